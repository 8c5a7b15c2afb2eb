"""Driving the board page in a real browser (headless Chromium by Selenium): the browser
and the served app the browser tests share (fixtures ``browser`` and ``server`` in
``conftest``), and the page's state read in one script call each. Importing it skips
the importing module's tests where the GUI or Selenium is not installed."""

import random
import shutil
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("starlette", reason="the GUI tests need: pip install -e '.[test]'")
pytest.importorskip("selenium", reason="the browser tests need: pip install -e '.[test]'")

import uvicorn
from gui_helpers import TOKEN, gui_config
from selenium import webdriver
from selenium.common.exceptions import WebDriverException
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.remote.webdriver import WebDriver
from selenium.webdriver.support.ui import Select, WebDriverWait
from starlette.applications import Starlette
from starlette.types import ASGIApp

from banqi_common.sockets import listen
from banqi_gui.app import create_app
from banqi_gui.server import GuiServer, address
from banqi_gui.sessions import SessionLimits
from referee.engine_start import EngineFactory, start_engine_process

BROWSERS = ("chromium", "chromium-browser", "google-chrome", "chrome")
INSTALL = (
    "no headless browser found: install Chromium and its driver "
    "(Debian: apt-get install chromium chromium-driver; .ci/run does)"
)
FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-dev-shm-usage",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--window-size=1200,1000",
)


def open_browser() -> Iterator[WebDriver]:
    """A headless Chromium for a module's tests (skipped, saying what to install, where
    none is found); quit after them."""
    binary = next((found for name in BROWSERS if (found := shutil.which(name))), None)
    driver_path = shutil.which("chromedriver")
    if binary is None or driver_path is None:
        pytest.skip(INSTALL)
    options = webdriver.ChromeOptions()
    options.binary_location = binary
    for flag in FLAGS:
        options.add_argument(flag)
    try:
        driver = webdriver.Chrome(options=options, service=Service(executable_path=driver_path))
    except WebDriverException as error:
        pytest.skip(f"{INSTALL} ({error.msg})")
    yield driver
    driver.quit()


class Served:
    """An ASGI app served by uvicorn in a thread, on a free loopback port (at ``base``)."""

    def __init__(self, app: ASGIApp) -> None:
        sock = listen("127.0.0.1", 0)
        self.sock = sock
        self.base = f"http://127.0.0.1:{sock.getsockname()[1]}"
        self.server = self.make_server(app)
        self.thread = threading.Thread(target=self.server.run, kwargs={"sockets": [sock]})
        self.thread.start()
        deadline = time.monotonic() + 10
        while not self.server.started:
            assert time.monotonic() < deadline, "the server did not start"
            time.sleep(0.02)

    def make_server(self, app: ASGIApp) -> uvicorn.Server:
        """The uvicorn server of ``app``."""
        return uvicorn.Server(uvicorn.Config(app, log_level="warning"))

    def stop(self) -> None:
        self.server.should_exit = True
        self.thread.join(10)


class Server(Served):
    """The board's app served (its games held by ``limits``, the server's own by default;
    engines started as processes unless a ``factory`` is given); ``url`` carries its token."""

    def __init__(
        self,
        tmp_path: Path,
        limits: SessionLimits | None = None,
        factory: EngineFactory = start_engine_process,
    ) -> None:
        config = gui_config(tmp_path, factory)
        if limits is not None:
            config = replace(config, limits=limits)
        super().__init__(create_app(config))
        self.url = address(self.sock, TOKEN, "")

    def make_server(self, app: ASGIApp) -> uvicorn.Server:
        """The GUI's own server: its long polls end as it stops."""
        assert isinstance(app, Starlette)
        return GuiServer(app)


def wait(driver: WebDriver, what: Callable[[WebDriver], Any], seconds: float = 15) -> Any:
    return WebDriverWait(driver, seconds, poll_frequency=0.02).until(what)


def squares(driver: WebDriver) -> list[dict[str, Any]]:
    """Every square of the play board: name, piece letter, classes (one script call)."""
    result: list[dict[str, Any]] = driver.execute_script(
        """return [...document.querySelectorAll('#play-board [data-square]')].map(s => ({
            square: s.dataset.square, target: s.dataset.target || null,
            piece: s.firstElementChild ? s.firstElementChild.dataset.piece : null,
            classes: s.className}));"""
    )
    return result


def click(driver: WebDriver, square: str) -> None:
    driver.find_element(By.CSS_SELECTOR, f'#play-board [data-square="{square}"]').click()


def status(driver: WebDriver) -> str:
    return str(driver.find_element(By.ID, "play-status").text)


def page(driver: WebDriver) -> dict[str, Any]:
    """The play page in one script call: plies listed, whether a person may move, the end."""
    found: dict[str, Any] = driver.execute_script(
        """const status = document.getElementById('play-status').textContent;
        return {plies: document.querySelectorAll('#play-moves li').length,
                mine: status.startsWith('You to move'),
                over: !document.getElementById('play-end').hidden};"""
    )
    return found


def my_turn(driver: WebDriver) -> bool:
    state = page(driver)
    return bool(state["mine"] or state["over"])


def game_over(driver: WebDriver) -> bool:
    return bool(page(driver)["over"])


def plies(driver: WebDriver) -> int:
    return int(page(driver)["plies"])


def next_turn(driver: WebDriver, before: int) -> None:
    """Wait until the engine has answered a ply of ours (or the game is over)."""
    wait(driver, lambda d: (s := page(d))["over"] or (s["plies"] > before and s["mine"]))


def legal(driver: WebDriver) -> dict[str, list[dict[str, str]]]:
    """The legal actions the server sent the page for the game on its board."""
    actions: dict[str, list[dict[str, str]]] = page_state(driver)["legal"]
    return actions


def play_one(driver: WebDriver, choose: random.Random, *, check: bool = False) -> None:
    """One action of ours by clicking: a capture if there is one, else a flip (one tap on a
    face-down square), else a move. ``check``: with WebDriver's own clicks, checking that
    the page marked the action as it should."""
    before = plies(driver)
    actions = [(frm, a["to"], a["kind"]) for frm, some in legal(driver).items() for a in some]
    captures = [a for a in actions if a[2] in ("capture", "jump")]
    flips = [a for a in actions if a[2] == "flip"]
    frm, to, kind = choose.choice(captures or flips or actions)
    taps = [frm] if kind == "flip" else [frm, to]
    if check:
        click(driver, frm)
        if kind != "flip":
            assert next(s for s in squares(driver) if s["square"] == to)["target"] == kind
            click(driver, to)
    else:  # the same taps, dispatched by one script: quicker over a long game
        driver.execute_script(
            "for (const square of arguments[0]) document.querySelector("
            '`#play-board [data-square="${square}"]`).click();',
            taps,
        )
    next_turn(driver, before)


def choose_a_game_against_level_0(driver: WebDriver, server: Server, rules: str) -> None:
    """Open the page and choose a game against level 0 under ``rules``, the person first."""
    driver.get(server.url)
    wait(driver, lambda d: "to move" in status(d))
    drawer = driver.find_element(By.ID, "panel-open").is_displayed()  # narrow screens
    if drawer:
        driver.find_element(By.ID, "panel-open").click()
        wait(driver, panel_in_view)
    Select(driver.find_element(By.ID, "engine")).select_by_value("level-0")
    Select(driver.find_element(By.ID, "rules")).select_by_value(rules)
    Select(driver.find_element(By.ID, "first")).select_by_value("you")
    if drawer:
        driver.find_element(By.ID, "panel-close").click()


def panel_in_view(driver: WebDriver) -> bool:
    """Whether the settings drawer has slid all the way in (narrow screens)."""
    return bool(
        driver.execute_script(
            """const box = document.getElementById('play-panel').getBoundingClientRect();
            return getComputedStyle(document.getElementById('play-panel')).visibility
                === 'visible' && box.right <= innerWidth + 0.5 && box.left >= 0;"""
        )
    )


def start_against_level_0(driver: WebDriver, server: Server, rules: str) -> None:
    """A new game against level 0 under ``rules``, the person first, once it is shown."""
    choose_a_game_against_level_0(driver, server, rules)
    first = game_id(driver)
    driver.find_element(By.ID, "new-game").click()
    wait(driver, lambda d: game_id(d) != first and my_turn(d) and plies(d) == 0)


def game_id(driver: WebDriver) -> str:
    return driver.find_element(By.ID, "play-board").get_attribute("data-game") or ""


def own_movers(driver: WebDriver) -> list[str]:
    """Our face-up pieces that have a move (not a flip), by square."""
    return sorted(frm for frm, some in legal(driver).items() if some[0]["kind"] != "flip")


def page_state(driver: WebDriver) -> dict[str, Any]:
    """The state of the page's game, as the server gives it."""
    game = driver.find_element(By.ID, "play-board").get_attribute("data-game")
    state: dict[str, Any] = driver.execute_script(
        """const request = new XMLHttpRequest();
        request.open('GET', '/api/games/' + arguments[0], false);
        request.send();
        return JSON.parse(request.responseText);""",
        game,
    )
    return state
