"""The board page in a real browser (headless Chromium driven by Selenium): a whole game
against level 0 by clicking, hint and undo, labels and styles, a live match watched ply by
ply, and a replay stepped through.

Skipped, saying what to install, where no Chromium and chromedriver are found (Debian:
``apt-get install chromium chromium-driver``; ``.ci/run`` installs them).
"""

import random
import shutil
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("starlette", reason="the GUI tests need: pip install -e '.[test]'")
pytest.importorskip("selenium", reason="the browser tests need: pip install -e '.[test]'")

import uvicorn
from gui_helpers import TOKEN, builtin_loop, gui_config
from referee_fakes import play
from selenium import webdriver
from selenium.common.exceptions import WebDriverException
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.remote.webdriver import WebDriver
from selenium.webdriver.support.ui import Select, WebDriverWait

from banqi_common.sockets import listen
from banqi_gui.app import create_app
from banqi_gui.server import address
from protocol.engine_loop import DctpEngine
from protocol.messages import Reply
from referee.engine_spec import EngineSpec
from referee.engine_start import in_process_engines, start_engine_process
from tournaments.config import builtin_engine_command

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


@pytest.fixture(scope="module")
def browser() -> Iterator[WebDriver]:
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


class Server:
    """The app served by uvicorn in a thread, on a free port."""

    def __init__(self, tmp_path: Path) -> None:
        config = gui_config(tmp_path, start_engine_process)
        sock = listen("127.0.0.1", 0)
        self.url = address(sock, TOKEN, "")
        self.base = self.url.split("/?")[0]
        self.server = uvicorn.Server(uvicorn.Config(create_app(config), log_level="warning"))
        self.thread = threading.Thread(target=self.server.run, kwargs={"sockets": [sock]})
        self.thread.start()
        deadline = time.monotonic() + 10
        while not self.server.started:
            assert time.monotonic() < deadline, "the server did not start"
            time.sleep(0.02)

    def stop(self) -> None:
        self.server.should_exit = True
        self.thread.join(10)


@pytest.fixture
def server(tmp_path: Path) -> Iterator[Server]:
    made = Server(tmp_path)
    yield made
    made.stop()


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
    Select(driver.find_element(By.ID, "engine")).select_by_value("level-0")
    Select(driver.find_element(By.ID, "rules")).select_by_value(rules)
    Select(driver.find_element(By.ID, "first")).select_by_value("you")


def test_a_whole_game_against_level_0_by_clicking(browser: WebDriver, server: Server) -> None:
    driver = browser
    choose_a_game_against_level_0(driver, server, "casual")
    driver.find_element(By.ID, "helper").click()
    driver.find_element(By.ID, "new-game").click()
    top = driver.find_element(By.ID, "play-top")
    wait(driver, lambda d: "level-0" in top.text and my_turn(d) and plies(d) == 0)
    assert len(squares(driver)) == 32 and all(s["piece"] == "X" for s in squares(driver))

    choose = random.Random(5)
    play_one(driver, choose, check=True)  # a flip: everything was face down
    play_one(driver, choose, check=True)
    shown = [item.text for item in driver.find_elements(By.CSS_SELECTOR, "#play-moves li")]
    turned_up = any("(" in ply for ply in shown[2:])  # our last ply or the reply to it
    assert driver.find_element(By.ID, "undo").is_enabled() is not turned_up  # never past a flip
    driver.find_element(By.ID, "hint").click()
    wait(driver, lambda d: any("hint" in s["classes"] for s in squares(d)))
    assert "Hint" in status(driver)
    play_one(driver, choose)  # the hint is shown until our next ply

    Select(driver.find_element(By.ID, "labels")).select_by_value("en")
    Select(driver.find_element(By.ID, "piece-style")).select_by_value("tile")
    Select(driver.find_element(By.ID, "board-style")).select_by_value("slate")
    body = driver.find_element(By.TAG_NAME, "body").get_attribute("class") or ""
    assert {"labels-en", "pieces-tile", "board-slate", "helper-on"} <= set(body.split())
    face_up = driver.find_element(By.CSS_SELECTOR, "#play-board .piece:not([data-piece=X])")
    assert face_up.find_element(By.CSS_SELECTOR, ".en").is_displayed()
    assert not face_up.find_element(By.CSS_SELECTOR, ".zh").is_displayed()

    for _ in range(400):
        if game_over(driver):
            break
        play_one(driver, choose, check=plies(driver) < 12)
    assert game_over(driver)
    result = driver.find_element(By.ID, "play-result").text
    said = page_state(driver)["over"]
    headline = {None: "Draw", 0: "You win", 1: "You lose"}[said["winner"]]
    assert result == f"{headline} — {said['result'].partition(': ')[2]}"
    assert ("has no pieces left" in result) == ("no pieces" in said["result"])
    reason = driver.find_element(By.ID, "play-reason").text
    assert reason.split(":")[0] in ("no-legal-move", "threefold-repetition", "no-progress")
    record = driver.find_element(By.ID, "record-json").get_attribute("href") or ""
    assert record.endswith("/record.json")
    fetched = driver.execute_async_script(
        "fetch(arguments[0]).then(r => r.json()).then(arguments[1])", record
    )
    assert fetched["result"] == said["result"] and len(fetched["layout"].replace("/", "")) == 32
    tally = driver.find_element(By.ID, "tally").text
    assert "level 0: random 1" in tally

    driver.set_window_size(390, 844)  # a phone: the board fits the width
    fits = driver.execute_script(
        "const r = document.getElementById('play-board').getBoundingClientRect();"
        "return r.left >= 0 && r.right <= window.innerWidth;"
    )
    driver.set_window_size(1200, 1000)
    assert fits


class Slow(DctpEngine):
    """A built-in level that takes a moment over each move, so that a game can be watched."""

    def handle_line(self, line: str) -> Reply | None:
        if " genmove " in f" {line} ":
            time.sleep(0.02)
        return super().handle_line(line)


def slow(spec: EngineSpec) -> DctpEngine:
    loop = builtin_loop(spec)
    return Slow(loop.rules, loop.player)


def test_watch_a_live_match_then_replay_its_record(
    browser: WebDriver, server: Server, tmp_path: Path
) -> None:
    driver = browser
    engines = tuple(
        EngineSpec(name=name, command=builtin_engine_command("--level", level))
        for name, level in (("greedy", "1"), ("random", "0"))
    )
    run = tmp_path / "runs" / "m1"
    run.mkdir(parents=True)
    match = threading.Thread(
        target=play,
        args=(run, engines),
        kwargs={"games": 2, "start_engine": in_process_engines(slow)},
    )
    driver.get(server.url + "#watch/m1")
    match.start()
    try:
        card = wait(driver, lambda d: d.find_elements(By.CSS_SELECTOR, ".live-game[data-plies]"))[0]
        first = int(card.get_attribute("data-plies") or 0)
        wait(driver, lambda d: int(card.get_attribute("data-plies") or 0) > first + 2)
        pieces = card.find_elements(By.CSS_SELECTOR, "[data-square] [data-piece]")
        assert len(pieces) >= 2
    finally:
        match.join(60)
    wait(
        driver, lambda d: len(d.find_elements(By.CSS_SELECTOR, "#watch-finished [data-game]")) == 2
    )
    wait(driver, lambda d: len(d.find_elements(By.CSS_SELECTOR, "#watch-standings tr")) == 3)
    assert not driver.find_elements(By.CSS_SELECTOR, ".live-game")

    driver.find_element(By.CSS_SELECTOR, "#watch-finished [data-game]").click()
    replay_status = driver.find_element(By.ID, "replay-status")
    wait(driver, lambda d: replay_status.text.startswith("start"))
    assert all(
        p.get_attribute("data-piece") == "X"
        for p in driver.find_elements(By.CSS_SELECTOR, "#replay-board [data-piece]")
    )
    driver.find_element(By.ID, "replay-forward").click()
    driver.find_element(By.ID, "replay-forward").click()
    wait(driver, lambda d: replay_status.text.startswith("ply 2 of"))
    driver.find_element(By.ID, "replay-back").click()
    wait(driver, lambda d: replay_status.text.startswith("ply 1 of"))
    number = driver.find_element(By.ID, "replay-ply")
    number.clear()
    number.send_keys("5\n")
    wait(driver, lambda d: replay_status.text.startswith("ply 5 of"))
    driver.find_element(By.ID, "replay-play").click()
    wait(driver, lambda d: replay_status.text.startswith("ply 6 of"))
    driver.find_element(By.ID, "replay-play").click()
    driver.find_element(By.ID, "replay-last").click()
    end = driver.find_element(By.ID, "replay-end")
    wait(driver, lambda d: end.is_displayed())
    assert driver.find_element(By.ID, "replay-result").text
    layout = driver.find_elements(By.CSS_SELECTOR, "#replay-layout [data-piece]")
    assert len(layout) == 32 and "X" not in {p.get_attribute("data-piece") for p in layout}


def test_a_move_onto_a_face_down_piece_by_clicking_then_its_replay(
    browser: WebDriver, server: Server, tmp_path: Path
) -> None:
    driver = browser
    choose_a_game_against_level_0(driver, server, "hong-kong-forum")
    board = driver.find_element(By.ID, "play-board")
    old = board.get_attribute("data-game")
    driver.find_element(By.ID, "new-game").click()
    wait(driver, lambda d: board.get_attribute("data-game") != old and my_turn(d))
    click(driver, "b2")  # one tap flips
    next_turn(driver, 0)  # the engine can only flip: b2 keeps a face-down neighbour or more
    assert "step onto a face-down" in status(driver)
    click(driver, "b2")
    targets = {s["square"]: s for s in squares(driver) if s["target"]}
    onto = sorted(name for name, s in targets.items() if s["target"] == "reveal")
    assert onto and all(targets[name]["piece"] == "X" for name in onto)
    assert all("target-reveal" in targets[name]["classes"] for name in onto)
    assert "face-down" in status(driver)
    click(driver, onto[0])
    next_turn(driver, 2)
    moves = [item.text for item in driver.find_elements(By.CSS_SELECTOR, "#play-moves li")]
    assert moves[2].startswith(f"you: b2-{onto[0]}(") and moves[2].endswith(")")

    driver.find_element(By.ID, "resign").click()
    driver.find_element(By.ID, "resign").click()
    wait(driver, game_over)
    record = driver.find_element(By.ID, "record-json").get_attribute("href")
    text = driver.execute_async_script(
        "fetch(arguments[0]).then(r => r.text()).then(arguments[1])", record
    )
    path = tmp_path / "forum.json"
    path.write_text(text)
    driver.execute_script("location.hash = '#replay'")
    driver.find_element(By.ID, "replay-file").send_keys(str(path))
    replay_status = driver.find_element(By.ID, "replay-status")
    wait(driver, lambda d: replay_status.text.startswith("start"))
    number = driver.find_element(By.ID, "replay-ply")
    number.clear()
    number.send_keys("3\n")
    wait(driver, lambda d: replay_status.text.startswith("ply 3 of"))
    assert f"b2-{onto[0]}(" in replay_status.text
    assert "onto a face-down piece, turned it up and" in replay_status.text
    marked = driver.find_elements(By.CSS_SELECTOR, "#replay-board .square.last")
    assert sorted(str(s.get_attribute("data-square")) for s in marked) == sorted(["b2", onto[0]])


def test_a_reload_finds_the_game_and_new_game_asks_first(
    browser: WebDriver, server: Server
) -> None:
    driver = browser
    start_against_level_0(driver, server, "casual")  # nothing played yet: it does not ask
    choose = random.Random(2)
    play_one(driver, choose)
    play_one(driver, choose)
    moves = [item.text for item in driver.find_elements(By.CSS_SELECTOR, "#play-moves li")]
    board = [s["piece"] for s in squares(driver)]
    driver.refresh()
    wait(driver, lambda d: plies(d) == len(moves) and my_turn(d))
    assert [i.text for i in driver.find_elements(By.CSS_SELECTOR, "#play-moves li")] == moves
    assert [s["piece"] for s in squares(driver)] == board

    driver.find_element(By.ID, "new-game").click()
    asked = wait(driver, lambda d: d.switch_to.alert)
    assert "game in progress" in asked.text
    asked.dismiss()  # keep playing
    assert plies(driver) == len(moves)
    playing = game_id(driver)
    driver.find_element(By.ID, "new-game").click()
    wait(driver, lambda d: d.switch_to.alert).accept()
    wait(driver, lambda d: game_id(d) != playing and plies(d) == 0 and my_turn(d))


def start_against_level_0(driver: WebDriver, server: Server, rules: str) -> None:
    """A new game against level 0 under ``rules``, the person first, once it is shown."""
    choose_a_game_against_level_0(driver, server, rules)
    first = game_id(driver)
    driver.find_element(By.ID, "new-game").click()
    wait(driver, lambda d: game_id(d) != first and my_turn(d) and plies(d) == 0)


def game_id(driver: WebDriver) -> str:
    return driver.find_element(By.ID, "play-board").get_attribute("data-game") or ""


def test_one_tap_flips_and_any_other_tap_cancels_a_selection(
    browser: WebDriver, server: Server
) -> None:
    driver = browser
    start_against_level_0(driver, server, "casual")
    click(driver, "b3")  # one tap: flipped, and the engine answered
    next_turn(driver, 0)
    assert next(s for s in squares(driver) if s["square"] == "b3")["piece"] != "X"
    choose = random.Random(3)
    while not (movers := own_movers(driver)) and not game_over(driver):
        play_one(driver, choose)
    assert movers, "no piece of ours could move in the whole game"
    mover = movers[0]
    before = plies(driver)
    facedown = next(s["square"] for s in squares(driver) if s["piece"] == "X")
    click(driver, mover)
    assert any(s["target"] for s in squares(driver))
    click(driver, facedown)  # cancels: nothing flipped by accident
    assert plies(driver) == before and not any(s["target"] for s in squares(driver))
    assert next(s for s in squares(driver) if s["square"] == facedown)["piece"] == "X"
    if len(movers) > 1:
        click(driver, mover)
        click(driver, movers[1])  # another piece of ours: cancels too, selects nothing
        assert plies(driver) == before and not any(s["target"] for s in squares(driver))


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
