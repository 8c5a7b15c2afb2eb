"""Checks of a page as a real browser lays it out: text shown whole (neither cut by its own
box nor clipped by one around it), elements on the screen, the size of a board's squares;
and, with ``BANQI_SCREENSHOTS=DIR`` set, screenshots for the manual."""

import os
from pathlib import Path
from typing import Any

from browser_page import wait
from selenium.webdriver.remote.webdriver import WebDriver
from test_gui_screens import rects

CLIPPED = """
const [selector] = arguments;
const out = [];
for (const element of document.querySelectorAll(selector)) {
  if (!element.getClientRects().length) continue;  // not shown
  const box = element.getBoundingClientRect();
  const cut = element.scrollWidth > element.clientWidth + 1
    || getComputedStyle(element).textOverflow === 'ellipsis' && element.scrollWidth > box.width;
  let clipped = false;
  for (let up = element.parentElement; up; up = up.parentElement) {
    const style = getComputedStyle(up);
    if (style.overflowX === 'visible') continue;
    const room = up.getBoundingClientRect();
    const scrolls = style.overflowX === 'auto' || style.overflowX === 'scroll';
    if (!scrolls && (box.right > room.right + 1 || box.left < room.left - 1)) clipped = true;
    break;
  }
  out.push({text: element.textContent, cut, clipped, left: box.left, right: box.right});
}
return out;
"""
"""Every element shown that ``selector`` finds: its text, whether it is cut (its own box
narrower than its text) or clipped (by the nearest ancestor that clips and does not
scroll), and where it is across the screen."""


def whole(driver: WebDriver, selector: str) -> list[dict[str, Any]]:
    """The elements ``selector`` finds, each checked to be shown whole: neither cut nor
    clipped (a box that scrolls sideways may hold it out of view)."""
    found: list[dict[str, Any]] = driver.execute_script(CLIPPED, selector)
    assert found, f"nothing shown for {selector}"
    for item in found:
        assert not item["cut"] and not item["clipped"], (selector, item)
    return found


def in_view(driver: WebDriver, ids: tuple[str, ...], width: int, height: int) -> None:
    """Check that the elements of ``ids`` are all on a ``width`` × ``height`` screen."""
    for name, (left, top, right, bottom) in rects(driver, ids).items():
        assert left >= 0 and top >= 0 and right <= width and bottom <= height, (name, width)


def square_side(driver: WebDriver, board: str) -> float:
    """The side of a square of the board ``board`` (a CSS selector), in CSS pixels."""
    side: float = driver.execute_script(
        "return document.querySelector(arguments[0] + ' [data-square]')"
        ".getBoundingClientRect().width",
        board,
    )
    return side


def screenshot(driver: WebDriver, name: str) -> None:
    """Save the screen as ``DIR/name.png`` if ``BANQI_SCREENSHOTS=DIR`` is set, once no
    animation runs."""
    folder = os.environ.get("BANQI_SCREENSHOTS")
    if folder:
        wait(driver, lambda d: not d.execute_script("return document.getAnimations().length"))
        Path(folder).mkdir(parents=True, exist_ok=True)
        driver.save_screenshot(str(Path(folder) / f"{name}.png"))
