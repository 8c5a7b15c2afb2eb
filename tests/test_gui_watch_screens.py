"""The Watch and Replay tabs on a desktop (1280×800) and a phone (390×844), in headless
Chromium: the game being watched drawn large and in view, the others small beside or
under it, names and clocks whole, the standings whole (scrolling inside their own box on
a phone, never clipped), and the replay's controls in view without scrolling."""

import shutil
from pathlib import Path

import browser_page as page
import pytest
from screen_checks import in_view, screenshot, square_side, whole
from selenium.webdriver.common.by import By
from selenium.webdriver.remote.webdriver import WebDriver
from spectator_data import LONG_NAME, play_match, write_live_games
from test_gui_screens import page_size, set_viewport
from test_gui_screens import screen as screen  # the fixture

from referee.record import GameRecord

SIZES = ((1280, 800), (390, 844))
IDS = [f"{w}x{h}" for w, h in SIZES]
MIN_SQUARE = 56
"""The least side of a square of the board watched, in CSS pixels (a card of the old grid
had at most 44)."""


@pytest.fixture(scope="module")
def played(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[GameRecord]]:
    """A finished match of two games (with its standings), to copy as a run folder."""
    out = tmp_path_factory.mktemp("played") / "m1"
    return out, play_match(out)


@pytest.fixture
def run(tmp_path: Path, played: tuple[Path, list[GameRecord]]) -> list[str]:
    """The match as a run of the server's, with five games being played; their ids."""
    folder, records = played
    copy = tmp_path / "runs" / "m1"
    shutil.copytree(folder, copy)
    return write_live_games(copy, records, 5)


@pytest.mark.parametrize(("width", "height"), SIZES, ids=IDS)
def test_the_watched_game_is_large_and_names_clocks_and_standings_whole(
    screen: WebDriver, server: page.Server, run: list[str], width: int, height: int
) -> None:
    driver = screen
    set_viewport(driver, width, height)
    driver.get(server.url + f"#watch/m1/{run[2]}")
    page.wait(driver, lambda d: len(d.find_elements(By.CSS_SELECTOR, ".thumb")) == len(run))
    page.wait(driver, lambda d: d.find_element(By.ID, "watch-game").get_attribute("data-game"))
    assert driver.find_element(By.ID, "watch-game").get_attribute("data-game") == run[2]
    size = page_size(driver)
    assert size["scrollWidth"] <= width, size
    table = ("watch-title", "watch-top", "watch-strip-top", "watch-board")
    in_view(driver, (*table, "watch-strip-bottom", "watch-bottom", "watch-status"), width, height)
    assert square_side(driver, "#watch-board") >= MIN_SQUARE

    names = whole(driver, "#watch .seat-bar .name, #watch .thumb-players span")
    assert LONG_NAME in [item["text"] for item in names]
    clocks = whole(driver, "#watch .seat-bar .clock")
    assert len(clocks) == 2 and all(c["text"].count(":") == 1 for c in clocks), clocks

    cells = whole(driver, "#watch-standings th, #watch-standings td")
    headers = [cell["text"] for cell in cells[:10]]
    assert headers == ["#", "Engine", "G", "W", "D", "L", "Pts", "Score", "Elo", "±"]
    elo = [c["text"] for c in whole(driver, "#watch-standings td.elo")]
    assert elo[0::2] == ["+95.4", "-95.4"]  # the rating, as the report prints it
    summary = driver.find_element(By.ID, "watch-head-to-head").text  # as the match printed it
    assert summary.startswith(f"{LONG_NAME} vs random: 2 games, W-D-L 2-0-0, Elo +inf")
    box = driver.execute_script(
        """const box = document.getElementById('watch-standings').parentElement;
        const at = box.getBoundingClientRect();
        return {width: box.clientWidth, needs: box.scrollWidth, left: at.left, right: at.right,
                overflow: getComputedStyle(box).overflowX};"""
    )
    assert box["left"] >= 0 and box["right"] <= width, box
    if width >= 1280:
        assert box["needs"] <= box["width"], box  # all of it at once on a desktop
    else:
        assert box["overflow"] == "auto", box  # on a phone it scrolls sideways in its box

    screenshot(driver, f"watch-{width}x{height}")
    pick = driver.find_element(By.CSS_SELECTOR, f'.thumb[data-game="{run[4]}"]')
    driver.execute_script("arguments[0].click()", pick)
    page.wait(
        driver, lambda d: d.find_element(By.ID, "watch-game").get_attribute("data-game") == run[4]
    )
    assert pick.get_attribute("aria-current") == "true"
    assert driver.execute_script("return location.hash") == f"#watch/m1/{run[4]}"


@pytest.mark.parametrize(("width", "height"), SIZES, ids=IDS)
def test_the_replay_controls_are_in_view_without_scrolling(
    screen: WebDriver,
    server: page.Server,
    run: list[str],
    played: tuple[Path, list[GameRecord]],
    width: int,
    height: int,
) -> None:
    driver = screen
    set_viewport(driver, width, height)
    game = played[1][0].game_id
    driver.get(server.url + f"#replay/m1/{game}")
    status = page.wait(driver, lambda d: d.find_element(By.ID, "replay-status"))
    page.wait(driver, lambda d: status.text.startswith("start"))
    driver.find_element(By.ID, "replay-last").click()
    page.wait(driver, lambda d: status.text.startswith("ply "))
    size = page_size(driver)
    assert size["scrollWidth"] <= width, size
    if width >= 720:  # on a phone the moves follow, below the controls
        assert size["scrollHeight"] <= height, size
    controls = ("replay-first", "replay-back", "replay-play", "replay-forward", "replay-last")
    seats = ("replay-top", "replay-strip-top", "replay-board", "replay-strip-bottom")
    in_view(
        driver,
        (*seats, "replay-bottom", *controls, "replay-slider", "replay-status"),
        width,
        height,
    )
    if width >= 720:
        in_view(driver, ("replay-ply",), width, height)
    whole(driver, "#replay .seat-bar .name, #replay .seat-bar .clock")
    assert square_side(driver, "#replay-board") >= 40
