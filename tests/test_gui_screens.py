"""The board page on real screens (headless Chromium by Selenium): every viewport shows the
board, clocks, strips, status and buttons without scrolling; nothing moves when a piece is
selected; a whole game on a phone by tapping, and one by keyboard alone; contrast of every
mark and piece style; signs drawn without fonts; animations, and none under reduced motion.

With ``BANQI_SCREENSHOTS=DIR`` set, the viewport test saves a screenshot of each viewport
there (``docs/images`` holds the ones the manual shows).
"""

import os
import random
import re
from pathlib import Path
from typing import Any

import browser_page as page
import pytest
from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.remote.webdriver import WebDriver

VIEWPORTS = ((390, 844), (768, 1024), (1280, 800), (1920, 1080))
ACROSS = {390: 4, 768: 4, 1280: 8, 1920: 8}
"""Squares across the board: 4 on narrow screens, 8 on wide ones."""
IN_VIEW = (
    "play-top",
    "play-strip-top",
    "play-board",
    "play-strip-bottom",
    "play-bottom",
    "play-status",
    "hint",
    "undo",
    "resign",
    "new-game",
)


def set_viewport(driver: WebDriver, width: int, height: int) -> None:
    """Make the page's viewport exactly ``width`` × ``height`` CSS pixels (a phone's too)."""
    driver.execute_cdp_cmd(
        "Emulation.setDeviceMetricsOverride",
        {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": width < 700},
    )


@pytest.fixture
def screen(browser: WebDriver) -> Any:
    yield browser
    browser.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})
    browser.execute_cdp_cmd("Emulation.setEmulatedMedia", {"features": []})


def rects(driver: WebDriver, ids: tuple[str, ...]) -> dict[str, list[float]]:
    """Each element's box on the screen (left, top, right, bottom), by id."""
    found: dict[str, list[float]] = driver.execute_script(
        """const out = {};
        for (const id of arguments[0]) {
          const box = document.getElementById(id).getBoundingClientRect();
          out[id] = [box.left, box.top, box.right, box.bottom];
        }
        return out;""",
        list(ids),
    )
    return found


def page_size(driver: WebDriver) -> dict[str, int]:
    found: dict[str, int] = driver.execute_script(
        """const root = document.documentElement;
        return {width: innerWidth, height: innerHeight, scrollWidth: root.scrollWidth,
                scrollHeight: root.scrollHeight};"""
    )
    return found


def squares_across(driver: WebDriver) -> int:
    lefts = driver.execute_script(
        """return [...document.querySelectorAll('#play-board [data-square]')]
            .map(s => Math.round(s.getBoundingClientRect().left));"""
    )
    return len(set(lefts))


@pytest.mark.parametrize(("width", "height"), VIEWPORTS, ids=[f"{w}x{h}" for w, h in VIEWPORTS])
def test_every_viewport_shows_the_whole_table_without_scrolling(
    screen: WebDriver, server: page.Server, width: int, height: int
) -> None:
    driver = screen
    set_viewport(driver, width, height)
    page.start_against_level_0(driver, server, "olympiad")
    for _ in range(3):
        page.play_one(driver, random.Random(width))
    size = page_size(driver)
    assert (size["width"], size["height"]) == (width, height)
    assert size["scrollWidth"] <= width and size["scrollHeight"] <= height, size
    for name, (left, top, right, bottom) in rects(driver, IN_VIEW).items():
        assert left >= 0 and right <= width and top >= 0 and bottom <= height, (name, size)
    assert squares_across(driver) == ACROSS[width]
    engine = driver.find_element("id", "engine")
    if width < 720:  # the settings are in a drawer, over the page, until asked for
        assert not engine.is_displayed()
        board = rects(driver, ("play-board",))["play-board"]
        driver.find_element("id", "panel-open").click()
        page.wait(driver, page.panel_in_view)
        left, top, right, bottom = rects(driver, ("engine",))["engine"]
        assert left >= 0 and right <= width and top >= 0 and bottom <= height
        assert rects(driver, ("play-board",))["play-board"] == board
        driver.find_element("id", "panel-close").click()
        page.wait(driver, lambda d: not d.find_element("id", "engine").is_displayed())
    else:
        assert engine.is_displayed()
        left, _, right, _ = rects(driver, ("engine",))["engine"]
        assert right <= width
    if folder := os.environ.get("BANQI_SCREENSHOTS"):
        page.wait(driver, lambda d: not d.execute_script("return document.getAnimations().length"))
        Path(folder).mkdir(parents=True, exist_ok=True)
        driver.save_screenshot(str(Path(folder) / f"board-{width}x{height}.png"))


LAYOUT = ("play-board", "play-status", "play-top", "play-bottom", "new-game", "play-panel")


def test_nothing_moves_when_a_piece_is_selected_or_the_status_changes(
    screen: WebDriver, server: page.Server
) -> None:
    driver = screen
    set_viewport(driver, 1280, 800)
    page.start_against_level_0(driver, server, "hong-kong-forum")
    choose = random.Random(5)
    while not page.own_movers(driver) and not page.game_over(driver):
        page.play_one(driver, choose)
    movers = page.own_movers(driver)
    assert movers, "no piece of ours could move in the whole game"
    driver.execute_script(  # the browser's own measure of layout shift, from the start
        """window.shifts = [];
        new PerformanceObserver((list) => window.shifts.push(...list.getEntries()
            .map(e => e.value))).observe({type: 'layout-shift', buffered: true});"""
    )
    before = rects(driver, LAYOUT)
    status = driver.find_element("id", "play-status").text
    driver.execute_script(
        "document.querySelector(`#play-board [data-square='${arguments[0]}']`).click()",
        movers[0],
    )
    assert driver.find_element("id", "play-status").text != status
    assert any(s["target"] for s in page.squares(driver))
    assert rects(driver, LAYOUT) == before
    driver.find_element("id", "play-status").click()  # a tap elsewhere cancels
    assert not any(s["target"] for s in page.squares(driver))
    assert rects(driver, LAYOUT) == before
    assert sum(driver.execute_script("return window.shifts")) < 0.001


def focused(driver: WebDriver) -> str:
    return str(driver.execute_script("return document.activeElement.dataset.square || ''"))


def press(driver: WebDriver, key: str) -> None:
    ActionChains(driver).send_keys(key).perform()


def walk_to(driver: WebDriver, square: str) -> None:
    """Arrow keys from the focused square to ``square``, by where the squares are drawn."""
    for _ in range(16):
        here = focused(driver)
        if here == square:
            return
        dx, dy = driver.execute_script(
            """const box = (name) => document.querySelector(
                 `#play-board [data-square='${name}']`).getBoundingClientRect();
            const a = box(arguments[0]), b = box(arguments[1]);
            const sign = (d) => Math.sign(Math.round(d));
            return [sign(b.left - a.left), sign(b.top - a.top)];""",
            here,
            square,
        )
        if dx:
            press(driver, Keys.ARROW_RIGHT if dx > 0 else Keys.ARROW_LEFT)
        else:
            press(driver, Keys.ARROW_DOWN if dy > 0 else Keys.ARROW_UP)
    raise AssertionError(f"the arrow keys did not reach {square} (at {focused(driver)})")


def label(driver: WebDriver, square: str) -> str:
    return str(
        driver.execute_script(
            "return document.querySelector(`#play-board [data-square='${arguments[0]}']`)"
            ".getAttribute('aria-label')",
            square,
        )
    )


def test_a_whole_game_on_a_phone_by_tapping(screen: WebDriver, server: page.Server) -> None:
    driver = screen
    set_viewport(driver, 390, 844)
    page.start_against_level_0(driver, server, "olympiad")
    choose = random.Random(8)
    while not page.game_over(driver):
        page.play_one(driver, choose, check=True)  # WebDriver's own taps, one per flip
    assert driver.find_element("id", "play-result").is_displayed()
    left, top, right, bottom = rects(driver, ("play-end",))["play-end"]
    assert left >= 0 and right <= 390 and top >= 0 and bottom <= 844


def test_a_whole_game_by_keyboard_alone(screen: WebDriver, server: page.Server) -> None:
    driver = screen
    set_viewport(driver, 1280, 800)  # 8 across: the arrow keys follow the board as drawn
    page.start_against_level_0(driver, server, "casual")
    driver.get(server.url)  # the page finds its game again, and the focus is at its start
    page.wait(
        driver,
        lambda d: (
            bool(shown := page.squares(d))
            and shown[0]["piece"] == "X"
            and "to move" in page.status(d)
        ),
    )
    for _ in range(12):  # Tab from the page's start reaches the board
        if focused(driver):
            break
        press(driver, Keys.TAB)
    assert focused(driver), driver.execute_script(
        "return [document.activeElement.outerHTML.slice(0, 200), "
        "[...document.querySelectorAll('#play-board [tabindex=\"0\"]')].length]"
    )
    square = focused(driver)
    role = driver.execute_script("return document.activeElement.getAttribute('role')")
    assert role == "button"
    assert label(driver, square) == f"{square}, face down, can be flipped"
    driver.execute_script(  # what the live region says, as a screen reader hears it
        """window.spoken = [];
        const region = document.getElementById('play-announce');
        new MutationObserver(() => window.spoken.push(region.textContent))
            .observe(region, {childList: true, characterData: true, subtree: true});"""
    )
    choose = random.Random(11)
    escaped = False
    while not page.game_over(driver):
        before = page.plies(driver)
        actions = [(f, a["to"], a["kind"]) for f, some in page.legal(driver).items() for a in some]
        captures = [a for a in actions if a[2] in ("capture", "jump")]
        flips = [a for a in actions if a[2] == "flip"]
        frm, to, kind = choose.choice(captures or flips or actions)
        walk_to(driver, frm)
        press(driver, Keys.ENTER)
        if kind != "flip":
            assert "selected" in label(driver, frm)
            if not escaped:  # Escape cancels a selection, once in the game
                press(driver, Keys.ESCAPE)
                assert not any(s["target"] for s in page.squares(driver))
                press(driver, Keys.SPACE)
                escaped = True
            assert f"{frm} can" in label(driver, to)
            walk_to(driver, to)
            press(driver, Keys.SPACE)
        page.next_turn(driver, before)
        spoken = driver.execute_script("return window.spoken.splice(0)")
        assert any(frm in words for words in spoken) or page.game_over(driver), spoken
    assert driver.find_element("id", "play-result").text


def luminance(rgb: tuple[float, float, float]) -> float:
    """WCAG's relative luminance of an sRGB colour."""

    def channel(value: float) -> float:
        c = value / 255
        return c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4

    r, g, b = (channel(v) for v in rgb)
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def contrast(a: tuple[float, float, float], b: tuple[float, float, float]) -> float:
    high, low = sorted((luminance(a), luminance(b)), reverse=True)
    return (high + 0.05) / (low + 0.05)


COLOUR = re.compile(r"rgba?\(([\d.]+),\s*([\d.]+),\s*([\d.]+)(?:,\s*([\d.]+))?\)")


def colours(css: str) -> list[tuple[float, float, float]]:
    """The opaque colours in a computed CSS value (a gradient's stops, a border's colour)."""
    found = []
    for match in COLOUR.finditer(css):
        alpha = 1.0 if match.group(4) is None else float(match.group(4))
        if alpha >= 0.99:
            found.append((float(match.group(1)), float(match.group(2)), float(match.group(3))))
    return found


MARKS = {
    "target-move": ("::after", "backgroundColor"),
    "target-capture": ("::after", "borderTopColor"),
    "target-jump": ("::after", "borderTopColor"),
    "target-flip": ("::after", "borderTopColor"),
    "target-reveal": ("::after", "borderTopColor"),
    "last": ("::before", "borderTopColor"),
    "hint": ("::after", "borderTopColor"),
}
"""Each mark a square can carry: the pseudo-element that draws it and its drawn colour."""


def styles_seen(driver: WebDriver, pieces: str, board: str) -> dict[str, Any]:
    """Under one piece and board style, the computed colours of the board, of a red, a
    black and a face-down piece (body, rim, sign), and of every mark."""
    found: dict[str, Any] = driver.execute_script(
        """const [pieces, board, marks] = arguments;
        document.body.classList.remove('pieces-disc', 'pieces-flat', 'pieces-tile',
          'board-wood', 'board-slate', 'board-paper', 'labels-zh', 'labels-en');
        document.body.classList.add('pieces-' + pieces, 'board-' + board, 'labels-both');
        const host = document.getElementById('play-board');
        const square = host.querySelector('[data-square]');
        const keep = square.className;
        const out = {board: getComputedStyle(host).backgroundImage + ' '
                     + getComputedStyle(host).backgroundColor, pieces: {}, marks: {}};
        for (const letter of ['R', 'c', 'X']) {
          const piece = document.createElement('div');
          const colour = {R: 'red', c: 'black', X: 'unknown'}[letter];
          piece.className = 'piece ' + colour;
          piece.dataset.piece = letter;
          square.replaceChildren(piece);
          const style = getComputedStyle(piece);
          out.pieces[letter] = {body: style.backgroundImage + ' ' + style.backgroundColor,
                                rim: style.borderTopColor, sign: style.color};
        }
        for (const [mark, [pseudo, property]] of Object.entries(marks)) {
          square.className = 'square ' + mark + (mark.startsWith('target') ? ' target' : '');
          out.marks[mark] = getComputedStyle(square, pseudo)[property];
        }
        square.className = 'square selected';
        square.replaceChildren(document.createElement('div'));
        square.firstChild.className = 'piece';
        out.marks.selected = getComputedStyle(square.firstChild).outlineColor;
        square.className = 'square can-move';
        out.marks['can-move'] = getComputedStyle(square.firstChild).boxShadow;
        square.className = keep;
        square.replaceChildren();
        return out;""",
        pieces,
        board,
        MARKS,
    )
    return found


def test_every_mark_and_piece_style_has_enough_contrast(
    screen: WebDriver, server: page.Server
) -> None:
    driver = screen
    page.start_against_level_0(driver, server, "olympiad")
    for pieces in ("disc", "flat", "tile"):
        for board in ("wood", "slate", "paper"):
            seen = styles_seen(driver, pieces, board)
            grounds = colours(seen["board"])
            assert grounds, seen["board"]
            where = f"{pieces} pieces on {board}"
            for letter, piece in seen["pieces"].items():
                (rim,) = colours(piece["rim"])
                worst = min(contrast(rim, ground) for ground in grounds)
                assert worst >= 3, f"{where}: the rim of {letter}, {worst:.2f}:1"
                if letter != "X":
                    bodies = colours(piece["body"])
                    (sign,) = colours(piece["sign"])
                    worst = min(contrast(sign, body) for body in bodies)
                    assert worst >= 4.5, f"{where}: the sign of {letter}, {worst:.2f}:1"
            for mark, value in seen["marks"].items():
                drawn = colours(value)
                assert drawn, (where, mark, value)
                worst = min(contrast(drawn[0], ground) for ground in grounds)
                assert worst >= 3, f"{where}: the mark {mark}, {worst:.2f}:1"


def test_signs_and_icons_are_drawn_not_typed(screen: WebDriver, server: page.Server) -> None:
    driver = screen
    page.start_against_level_0(driver, server, "casual")
    choose = random.Random(2)
    while not (page.own_movers(driver) and captured(driver)):
        assert not page.game_over(driver), "no capture in the whole game"
        page.play_one(driver, choose)
    text = driver.execute_script("return document.body.innerText")
    assert not re.search("[\u2e80-\u9fff\u2190-\u23ff\u25a0-\u25ff]", text), "a sign set as text"
    pieces = driver.execute_script(
        """return [...document.querySelectorAll('.piece:not([data-piece="X"])')].map(p => ({
            text: p.textContent.trim(), paths: p.querySelectorAll('svg path').length,
            strip: !!p.closest('.strip')}));"""
    )
    assert pieces and all(p["text"] == "" and p["paths"] > 0 for p in pieces)
    assert any(p["strip"] for p in pieces)
    for labels in ("zh", "en", "both"):
        driver.execute_script(
            "const s = document.getElementById('labels'); s.value = arguments[0];"
            "s.dispatchEvent(new Event('change'));",
            labels,
        )
        shown = driver.execute_script(
            """const seen = (p) => [...p.querySelectorAll('svg')]
                 .filter(s => getComputedStyle(s).display !== 'none')
                 .map(s => s.getAttribute('class')).join(' ');
            return {board: seen(document.querySelector('#play-board .piece:not([data-piece="X"])')),
                    strip: seen(document.querySelector('.strip .piece'))};"""
        )
        assert shown["board"] == shown["strip"], (labels, shown)
        assert (
            shown["board"]
            == {"zh": "glyph zh", "en": "glyph en", "both": "glyph zh glyph en"}[labels]
        )
    driver.get(server.url + "#replay")
    icons = page.wait(  # the replay's controls are built once the page has its options
        driver,
        lambda d: d.execute_script(
            """return [...document.querySelectorAll('#replay .buttons button')].map(b => ({
                svg: !!b.querySelector('svg.icon path'), label: b.getAttribute('aria-label')
                  || b.textContent.trim()}));"""
        ),
    )
    assert len(icons) == 5 and all(i["svg"] and i["label"] for i in icons)


def captured(driver: WebDriver) -> int:
    """Pieces shown in the play page's strips of taken pieces."""
    return int(
        driver.execute_script("return [...document.querySelectorAll('#play .strip .piece')].length")
    )


def count_animations(driver: WebDriver) -> None:
    driver.execute_script(
        """window.animations = 0;
        const animate = Element.prototype.animate;
        Element.prototype.animate = function (...args) {
          window.animations += 1;
          return animate.apply(this, args);
        };"""
    )


@pytest.mark.parametrize("reduced", [False, True], ids=["motion", "reduced-motion"])
def test_plies_animate_unless_motion_is_reduced(
    screen: WebDriver, server: page.Server, reduced: bool
) -> None:
    driver = screen
    if reduced:
        driver.execute_cdp_cmd(
            "Emulation.setEmulatedMedia",
            {"features": [{"name": "prefers-reduced-motion", "value": "reduce"}]},
        )
    page.start_against_level_0(driver, server, "casual")
    count_animations(driver)
    choose = random.Random(4)
    for _ in range(4):
        page.play_one(driver, choose)
    animations = driver.execute_script("return window.animations")
    assert (animations == 0) if reduced else (animations >= 4), animations
    last = [s for s in page.squares(driver) if "last" in s["classes"].split()]
    assert last, "the last ply is not marked"
