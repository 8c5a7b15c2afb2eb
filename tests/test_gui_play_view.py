"""The play view in a real browser (headless Chromium by Selenium): its game kept while the
page shows it and ended once the page is left, a new game past the server's limit refused
in words."""

import json
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import browser_page as page
import pytest
from gui_helpers import HEADERS
from selenium.webdriver.remote.webdriver import WebDriver

from banqi_gui.sessions import SessionLimits


@pytest.fixture
def quick(tmp_path: Path) -> Iterator[page.Server]:
    """A server that ends a game 1 s after its page stops asking, 0.3 s after it is left."""
    made = page.Server(tmp_path, SessionLimits(idle=1.0, grace=0.3, sweep=0.05))
    yield made
    made.stop()


@pytest.fixture
def single(tmp_path: Path) -> Iterator[page.Server]:
    """A server that holds one game at most."""
    made = page.Server(tmp_path, SessionLimits(games=1))
    yield made
    made.stop()


def api(server: page.Server, method: str, path: str, body: Any = None) -> tuple[int, Any]:
    """A request of another tab's (or a script's): its status and JSON."""
    data = None if body is None else json.dumps(body).encode()
    headers = {**HEADERS, "Content-Type": "application/json"}
    request = urllib.request.Request(server.base + path, data, headers, method=method)
    try:
        with urllib.request.urlopen(request, timeout=30) as answer:
            return answer.status, json.loads(answer.read())
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read())


def toast(driver: WebDriver) -> str:
    shown = driver.find_element("id", "message")
    return str(shown.text) if shown.is_displayed() else ""


def test_a_game_is_kept_while_its_page_shows_it_and_ended_once_it_is_left(
    browser: WebDriver, quick: page.Server
) -> None:
    driver = browser
    driver.get(quick.url)
    page.wait(driver, lambda d: "to move" in page.status(d))
    game = page.game_id(driver)
    time.sleep(2.5)  # the person thinks longer than the server's idle time: the page polls
    before = page.plies(driver)
    page.click(driver, next(iter(page.legal(driver))))
    page.wait(driver, lambda d: page.plies(d) > before)
    assert toast(driver) == ""
    driver.get(quick.url)  # a reload finds the game again
    page.wait(driver, lambda d: page.game_id(d) == game and page.plies(d) > before)
    driver.get("about:blank")  # the page is left: its game ends at once
    time.sleep(1.0)
    status, answer = api(quick, "GET", f"/api/games/{game}")
    assert status == 404, answer


def test_a_new_game_past_the_limit_is_refused_in_words(
    browser: WebDriver, single: page.Server
) -> None:
    driver = browser
    status, other = api(single, "POST", "/api/games", {"engine": "level-0"})  # another tab's
    assert status == 201
    driver.get(single.url)  # the page asks for a game of its own
    page.wait(driver, lambda d: "at most 1 games" in toast(d))
    assert "end one" in toast(driver)
    assert api(single, "GET", f"/api/games/{other['id']}")[0] == 200
