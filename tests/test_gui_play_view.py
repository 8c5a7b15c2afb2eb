"""The play view in a real browser (headless Chromium by Selenium): its game kept while the
page shows it and ended once the page is left, a new game past the server's limit refused
in words, an engine's thinking time counted, every ply said with what it was; at 1280x800
and 390x844 every button and tab 44 px tall, all 16 taken pieces of a side in view, the
coordinates on the board's edges."""

import itertools
import json
import random
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import browser_page as page
import pytest
from gui_helpers import HEADERS, builtin_loop, in_process_builtins
from selenium.webdriver.remote.webdriver import WebDriver
from selenium.webdriver.support.ui import Select
from test_gui_screens import colours, contrast, set_viewport

from banqi_gui.play_settings import UNTIMED_ENGINE_MOVE_TIME
from banqi_gui.sessions import SessionLimits
from protocol.engine_loop import DctpEngine
from protocol.messages import Reply
from referee.engine_spec import EngineSpec
from referee.engine_start import in_process_engines


@pytest.fixture
def quick(tmp_path: Path) -> Iterator[page.Server]:
    """A server that ends a game 1.5 s after its page stops asking, 1 s after it is left."""
    made = page.Server(tmp_path, SessionLimits(idle=1.5, grace=1.0, sweep=0.05))
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
    time.sleep(3.0)  # the person thinks longer than the server's idle time: the page polls
    before = page.plies(driver)
    page.click(driver, next(iter(page.legal(driver))))
    page.wait(driver, lambda d: page.plies(d) > before)
    assert toast(driver) == ""
    driver.get(quick.url)  # a reload finds the game again
    page.wait(driver, lambda d: page.game_id(d) == game and page.plies(d) > before)
    driver.get("about:blank")  # the page is left: its game ends at once
    time.sleep(2.0)
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


class Thoughtful(DctpEngine):
    """A built-in level that thinks 2.5 s over each move."""

    def handle_line(self, line: str) -> Reply | None:
        if " genmove " in f" {line} ":
            time.sleep(2.5)
        return super().handle_line(line)


def thoughtful(spec: EngineSpec) -> DctpEngine:
    loop = builtin_loop(spec)
    return Thoughtful(loop.rules, loop.player)


def text(driver: WebDriver, selector: str) -> str:
    """The text of an element as shown now (read in one script: the bars are redrawn)."""
    return str(
        driver.execute_script("return document.querySelector(arguments[0]).textContent", selector)
    )


def test_an_engine_thinking_shows_its_seconds_and_untimed_has_a_limit_a_move(
    browser: WebDriver, tmp_path: Path
) -> None:
    driver = browser
    server = page.Server(tmp_path, factory=in_process_engines(thoughtful))
    try:
        driver.get(server.url)
        page.wait(driver, lambda d: "to move" in page.status(d))
        limit = f"{UNTIMED_ENGINE_MOVE_TIME:g} s"
        assert f"the engine has {limit} a move" in driver.find_element(
            "id", "untimed-note"
        ).get_attribute("textContent")
        assert text(driver, "#play-top .clock") == f"{limit} a move"
        assert text(driver, "#play-bottom .clock") == ""
        page.click(driver, next(iter(page.legal(driver))))
        turn = "#play-top .turn"
        seen = [
            page.wait(driver, lambda d, s=s: text(d, turn) == s)
            for s in ("thinking… 0 s", "thinking… 1 s", "thinking… 2 s")
        ]
        assert all(seen)
        page.wait(driver, lambda d: page.my_turn(d))
        assert text(driver, turn) == ""
    finally:
        server.stop()


NAMES = {"K": "King", "G": "Guard", "M": "Minister", "R": "Chariot", "N": "Horse"}
NAMES |= {"C": "Cannon", "P": "Pawn"}


def title(letter: str) -> str:
    """A piece as the page names it: ``black Pawn``."""
    return f"{'red' if letter.isupper() else 'black'} {NAMES[letter.upper()]}"


def said(ply: dict[str, Any]) -> str:
    """What the live region must say of a ply (of an engine's or the person's)."""
    square = ply["move"][:2]
    if len(ply["move"].split("(")[0]) == 2:
        return f"flipped {square}, {title(ply['piece'])}"
    to = ply["move"][3:5]
    if ply["took"]:
        return f"{title(ply['piece'])} {square} takes {title(ply['took'])} on {to}"
    return f"{title(ply['piece'])} {square} to {to}"


WITH_THE_REPLY = """
const real = window.fetch;
window.fetch = async (url, options) => {  // a state arrives with the engine's reply in it
  const answer = await real(url, options);
  if (!String(url).startsWith('/api/games/') || !answer.ok) return answer;
  let view = await answer.json();
  while (view.thinking && !view.over) {
    view = await (await real(`/api/games/${view.id}?since=${view.version}`)).json();
  }
  return new Response(JSON.stringify(view), {headers: {'Content-Type': 'application/json'}});
};
window.spoken = [];
const region = document.getElementById('play-announce');
new MutationObserver(() => window.spoken.push(region.textContent))
  .observe(region, {childList: true, characterData: true, subtree: true});
"""


def test_every_ply_is_said_with_what_it_took_also_when_two_arrive_at_once(
    browser: WebDriver, tmp_path: Path
) -> None:
    driver = browser
    server = page.Server(tmp_path, factory=in_process_builtins())
    try:
        driver.get(server.url)
        page.wait(driver, lambda d: "to move" in page.status(d))
        Select(driver.find_element("id", "engine")).select_by_value("level-1")  # greedy
        Select(driver.find_element("id", "rules")).select_by_value("casual")
        driver.execute_script(WITH_THE_REPLY)
        first = page.game_id(driver)
        driver.find_element("id", "new-game").click()
        page.wait(driver, lambda d: page.game_id(d) != first and page.my_turn(d))
        choose = random.Random(6)
        engine_took = 0
        while engine_took < 2 and not page.game_over(driver):
            before = len(page.page_state(driver)["plies"])
            page.play_one(driver, choose)
            plies = page.page_state(driver)["plies"][before:]
            (words,) = driver.execute_script("return window.spoken.splice(0)")
            for ply in plies:
                assert said(ply) in words, (ply, words)
            assert words.startswith("you: ") and "level-1: " in words
            engine_took += sum(1 for ply in plies if ply["player"] == 1 and ply["took"])
        assert engine_took == 2
    finally:
        server.stop()


SCREENS = ((1280, 800), (390, 844))
SCREEN_IDS = [f"{w}x{h}" for w, h in SCREENS]


@pytest.fixture
def screen(browser: WebDriver) -> Iterator[WebDriver]:
    yield browser
    browser.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})


def heights(driver: WebDriver) -> dict[str, float]:
    """The height of every button and tab in view (a link-like button in a sentence aside)."""
    found: dict[str, float] = driver.execute_script(
        """const out = {};
        for (const b of document.querySelectorAll('button:not(.link), nav a')) {
          const box = b.getBoundingClientRect();
          if (b.closest('#play, header') && b.offsetParent && box.width) {
            out[b.id || b.textContent.trim()] = box.height;
          }
        }
        return out;"""
    )
    return found


@pytest.mark.parametrize(("width", "height"), SCREENS, ids=SCREEN_IDS)
def test_every_button_and_tab_is_at_least_44_px_tall(
    screen: WebDriver, tmp_path: Path, width: int, height: int
) -> None:
    driver = screen
    set_viewport(driver, width, height)
    server = page.Server(tmp_path, factory=in_process_builtins())
    try:
        driver.get(server.url)
        page.wait(driver, lambda d: "to move" in page.status(d))
        seen = heights(driver)
        if width < 720:  # the drawer's own button
            driver.find_element("id", "panel-open").click()
            page.wait(driver, page.panel_in_view)
            seen |= heights(driver)
            driver.find_element("id", "panel-close").click()
        for _ in range(2):  # Resign asks twice: then the end's own buttons
            driver.find_element("id", "resign").click()
        page.wait(driver, page.game_over)
        seen |= heights(driver)
        expected = {"tab-play", "tab-watch", "tab-replay", "hint", "undo", "resign"}
        expected |= {"new-game", "end-new-game", "end-close"}
        expected |= {"panel-open", "panel-close"} if width < 720 else set()
        assert expected <= set(seen), seen
        assert all(tall >= 44 for tall in seen.values()), seen
    finally:
        server.stop()


DRAW_STRIPS = """
const done = arguments[0];
import('/static/board.js').then((board) => {
  const out = {};
  for (const [id, letters] of [['play-strip-top', 'kggmmrrnnccppppp'],
                               ['play-strip-bottom', 'KGGMMRRNNCCPPPPP']]) {
    const strip = document.getElementById(id);
    const before = strip.getBoundingClientRect().height;
    board.drawStrip(strip, letters);
    const box = strip.getBoundingClientRect();
    out[id] = {before, box: [box.left, box.top, box.right, box.bottom],
               pieces: [...strip.children].map((piece) => {
                 const at = piece.getBoundingClientRect();
                 return [at.left, at.top, at.right, at.bottom];
               })};
  }
  done(out);
});
"""


@pytest.mark.parametrize(("width", "height"), SCREENS, ids=SCREEN_IDS)
def test_a_strip_shows_all_16_pieces_of_a_side(
    screen: WebDriver, tmp_path: Path, width: int, height: int
) -> None:
    driver = screen
    set_viewport(driver, width, height)
    server = page.Server(tmp_path, factory=in_process_builtins())
    try:
        driver.get(server.url)
        page.wait(driver, lambda d: "to move" in page.status(d))
        for name, strip in driver.execute_async_script(DRAW_STRIPS).items():
            left, top, right, bottom = strip["box"]
            assert bottom - top == pytest.approx(strip["before"]), name  # nothing moves
            assert left >= 0 and right <= width, (name, strip["box"])
            pieces = strip["pieces"]
            assert len(pieces) == 16
            for a, b in itertools.pairwise(pieces):
                assert a[2] <= b[0] + 0.5, (name, "pieces overlap", a, b)
            for p_left, p_top, p_right, p_bottom in pieces:
                assert left - 0.5 <= p_left and p_right <= right + 0.5, (name, "cut off")
                assert top - 0.5 <= p_top and p_bottom <= bottom + 0.5, (name, "cut off")
                assert p_right - p_left >= 16 and p_bottom - p_top == pytest.approx(
                    p_right - p_left, abs=0.5
                ), (name, "too small or not round")
    finally:
        server.stop()


COORDINATES = """
const board = document.getElementById('play-board');
const box = (element) => {
  const at = element.getBoundingClientRect();
  return [at.left, at.top, at.right, at.bottom];
};
return {
  square: board.querySelector('[data-square]').getBoundingClientRect().width,
  labels: [...board.querySelectorAll('.coord')].map((label) => {
    const at = label.getBoundingClientRect();
    const hit = document.elementFromPoint((at.left + at.right) / 2, (at.top + at.bottom) / 2);
    const under = hit && hit.closest('[data-square]');
    return {text: label.textContent, box: box(label), hidden: label.getAttribute('aria-hidden'),
            hit: under && under.dataset.square};
  }),
  squares: Object.fromEntries([...board.querySelectorAll('[data-square]')]
    .map((square) => [square.dataset.square, box(square)])),
};
"""


@pytest.mark.parametrize(("width", "height"), SCREENS, ids=SCREEN_IDS)
def test_the_board_shows_its_coordinates_on_its_edges(
    screen: WebDriver, tmp_path: Path, width: int, height: int
) -> None:
    driver = screen
    set_viewport(driver, width, height)
    server = page.Server(tmp_path, factory=in_process_builtins())
    try:
        driver.get(server.url)
        page.wait(driver, lambda d: "to move" in page.status(d))
        seen = driver.execute_script(COORDINATES)
        labels = seen["labels"]
        assert sorted(label["text"] for label in labels) == sorted("12345678abcd")
        across = 8 if width >= 720 else 4  # the ranks along the bottom or up the left edge
        for label in labels:
            text = label["text"]
            edge = "d" if across == 8 else "a"
            square = f"{edge}{text}" if text.isdigit() else f"{text}1"
            left, top, right, bottom = label["box"]
            s_left, s_top, s_right, s_bottom = seen["squares"][square]
            assert s_left <= left and right <= s_right and s_top <= top and bottom <= s_bottom, (
                label,
                square,
            )
            assert bottom - top < 0.3 * seen["square"], label  # small: in a corner
            assert label["hidden"] == "true" and label["hit"] == square, label  # taps go through
        for style in ("wood", "slate", "paper"):
            colours_seen = driver.execute_script(
                """document.body.classList.remove('board-wood', 'board-slate', 'board-paper');
                document.body.classList.add('board-' + arguments[0]);
                const board = document.getElementById('play-board');
                return [getComputedStyle(board.querySelector('.coord')).color,
                        getComputedStyle(board).backgroundImage + ' '
                        + getComputedStyle(board).backgroundColor];""",
                style,
            )
            (ink,) = colours(colours_seen[0])
            worst = min(contrast(ink, ground) for ground in colours(colours_seen[1]))
            assert worst >= 4.5, (style, worst)
    finally:
        server.stop()
