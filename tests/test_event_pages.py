"""The event's pages in headless Chromium, against a stand-in for ``banqi serve``'s event
API (``event_fixtures``): the spectators' page draws the boards of the games being played
and follows them, the standings and the crosstable, the delay and the pause, the finished
games with their replays and records, and each entrant's page, and it asks for nothing but
read-only answers; the organiser's page shows the entrants and the games and its buttons
call the organiser's commands (a forfeit only once confirmed)."""

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import browser_page as page
import pytest
from event_fixtures import HOUSE, ORGANISER_TOKEN, EventFixture, event_app
from screen_checks import in_view, screenshot, square_side, whole
from selenium.webdriver.common.by import By
from selenium.webdriver.remote.webdriver import WebDriver
from spectator_data import LONG_NAME, live_view, play_match
from test_gui_screens import page_size, set_viewport
from test_gui_screens import screen as screen  # the fixture

from referee.record import GameRecord

SIZES = ((1280, 800), (390, 844))
IDS = [f"{w}x{h}" for w, h in SIZES]

CALLS = """
window.calls = [];
const fetched = window.fetch;
window.fetch = (path, options = {}) => {
  window.calls.push({path: String(path), method: options.method || 'GET',
                     headers: JSON.stringify(options.headers || {})});
  return fetched(path, options);
};
"""
"""Noted before the page's own scripts run: every fetch it makes."""


@pytest.fixture(scope="module")
def records(tmp_path_factory: pytest.TempPathFactory) -> list[GameRecord]:
    return play_match(tmp_path_factory.mktemp("played") / "m1")


class Event:
    """The stand-in served, and what it was asked."""

    def __init__(self, records: list[GameRecord], delay: dict[str, float] | None) -> None:
        self.fixture = EventFixture(records, delay)
        self.served = page.Served(event_app(self.fixture))
        self.base = self.served.base


@pytest.fixture
def event(records: list[GameRecord]) -> Iterator[Event]:
    made = Event(records, {"seconds": 30})
    yield made
    made.served.stop()


LIVE_STATUS = "live-status"
"""The line under the large live board: its last ply, and whether its pieces are hidden."""


def open_page(driver: WebDriver, url: str) -> None:
    driver.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": CALLS})
    driver.get(url)


def text(driver: WebDriver, element_id: str) -> str:
    return str(driver.find_element(By.ID, element_id).text)


def rows(driver: WebDriver, table: str) -> list[list[str]]:
    """The body rows of a table, cell by cell."""
    found: list[list[str]] = driver.execute_script(
        """return [...document.querySelectorAll(`#${arguments[0]} tbody tr`)]
            .map(row => [...row.cells].map(cell => cell.textContent));""",
        table,
    )
    return found


def calls(driver: WebDriver) -> list[dict[str, Any]]:
    found: list[dict[str, Any]] = driver.execute_script("return window.calls")
    return found


def csp_errors(driver: WebDriver) -> list[str]:
    return [e["message"] for e in driver.get_log("browser") if "Content Security" in e["message"]]


@pytest.mark.parametrize(("width", "height"), SIZES, ids=IDS)
def test_spectators_follow_the_live_boards_the_delay_and_the_pause(
    screen: WebDriver, event: Event, records: list[GameRecord], width: int, height: int
) -> None:
    driver = screen
    set_viewport(driver, width, height)
    open_page(driver, event.base + "/")
    large = page.wait(driver, lambda d: d.find_element(By.CSS_SELECTOR, "#live-game[data-game]"))
    assert large.get_attribute("data-game") == "live00"
    assert len(driver.find_elements(By.CSS_SELECTOR, "#live-list .thumb")) == 2
    pieces = large.find_elements(By.CSS_SELECTOR, "#live-board [data-piece]")
    assert 0 < sum(p.get_attribute("data-piece") != "X" for p in pieces) <= 11
    status = text(driver, "event-status")
    assert "2 of 6 games played" in status and "30 s behind" in status and "paused" not in status
    assert text(driver, "event-name") == "Winter cup"
    seats = ("live-top", "live-strip-top", "live-board", "live-strip-bottom", "live-bottom")
    in_view(driver, (*seats, "live-status"), width, height)
    assert page_size(driver)["scrollWidth"] <= width
    assert square_side(driver, "#live-board") >= 56
    names = whole(driver, "#live .seat-bar .name")
    assert LONG_NAME in [name["text"] for name in names]

    screenshot(driver, f"event-{width}x{height}")
    before = int(large.get_attribute("data-plies") or 0)
    event.fixture.advance()  # the long poll wakes: the board follows
    page.wait(driver, lambda d: int(large.get_attribute("data-plies") or 0) == before + 1)
    assert text(driver, "live-status").startswith(f"ply {before + 1}:")

    driver.execute_script("document.querySelector('.thumb[data-game=\"live01\"]').click()")
    page.wait(driver, lambda d: large.get_attribute("data-game") == "live01")
    assert driver.execute_script("return location.hash") == "#game/live01"

    event.fixture.command(None, "pause")
    page.wait(driver, lambda d: "paused" in text(d, "event-status"))
    asked = calls(driver)
    assert asked and all(c["method"] == "GET" and c["path"].startswith("/api/event") for c in asked)
    assert not any("organiser" in c["headers"].lower() for c in asked)
    assert not csp_errors(driver)


@pytest.mark.parametrize(("width", "height"), SIZES, ids=IDS)
def test_standings_and_crosstable_whole_with_an_infinite_elo(
    screen: WebDriver, event: Event, width: int, height: int
) -> None:
    driver = screen
    set_viewport(driver, width, height)
    open_page(driver, event.base + "/#standings")
    page.wait(driver, lambda d: len(rows(d, "standings-table")) == 3)
    table = rows(driver, "standings-table")
    assert [row[1] for row in table] == [LONG_NAME, "random", HOUSE]
    assert [row[-2] for row in table] == ["+inf", "-95.4", "-"]
    cross = rows(driver, "crosstable")
    assert [row[1:] for row in cross] == [["·", "2/2", ""], ["0/2", "·", ""], ["", "", "·"]]
    whole(driver, "#standings-table th, #standings-table td, #crosstable th, #crosstable td")
    assert page_size(driver)["scrollWidth"] <= width
    link = driver.find_element(By.LINK_TEXT, "random")
    assert link.get_attribute("href").endswith("#entrant/random")


def test_a_finished_game_replays_and_its_records_download(
    screen: WebDriver, event: Event, records: list[GameRecord]
) -> None:
    driver = screen
    set_viewport(driver, 1280, 800)
    open_page(driver, event.base + "/#games")
    page.wait(driver, lambda d: len(rows(d, "games-table")) == 2)
    latest = records[-1].game_id
    assert rows(driver, "games-table")[0][0] == latest  # the latest first
    json_link = driver.find_element(By.CSS_SELECTOR, "#games-table a[href$='record.json']")
    fetched = driver.execute_async_script(
        "fetch(arguments[0]).then(r => r.json()).then(arguments[1])",
        json_link.get_attribute("href"),
    )
    assert fetched["game_id"] == latest and json_link.get_attribute("download") is not None
    driver.find_element(By.LINK_TEXT, latest).click()
    status = driver.find_element(By.ID, "replay-status")
    page.wait(driver, lambda d: status.text.startswith("start"))
    assert not driver.find_element(By.ID, "game").get_attribute("hidden")
    driver.find_element(By.ID, "replay-forward").click()
    page.wait(driver, lambda d: status.text.startswith("ply 1 of"))
    driver.find_element(By.ID, "replay-last").click()
    page.wait(driver, lambda d: d.find_element(By.ID, "replay-end").is_displayed())
    assert text(driver, "replay-result") == records[-1].result
    assert "Record: JSON · text" in text(driver, "game-head")
    controls = ("replay-first", "replay-back", "replay-play", "replay-forward", "replay-last")
    in_view(driver, (*controls, "replay-slider", "replay-status", "replay-board"), 1280, 800)


def test_an_entrant_s_page_shows_its_games_score_and_faults(
    screen: WebDriver, event: Event, records: list[GameRecord]
) -> None:
    driver = screen
    set_viewport(driver, 1280, 800)
    open_page(driver, event.base + "/#entrants")
    page.wait(driver, lambda d: len(rows(d, "entrants-table")) == 3)
    entrants = {row[0]: row[1:] for row in rows(driver, "entrants-table")}
    assert entrants["random"][:2] == ["playing", "not connected"]
    assert entrants[HOUSE][:2] == ["between games", "plays on the server"]
    driver.find_element(By.LINK_TEXT, "random").click()
    page.wait(driver, lambda d: text(d, "entrant-name") == "random")
    assert text(driver, "entrant-state") == "playing · not connected"
    assert rows(driver, "entrant-standing")[0][1:6] == ["random", "2", "0", "0", "2"]
    games = rows(driver, "entrant-games")
    assert [row[0] for row in games] == [r.game_id for r in records] + ["live00", "live01"]
    assert all(row[3].startswith("loss: ") for row in games[:2])
    assert games[2][3] == "being played: watch"
    assert rows(driver, "entrant-faults") == [[records[1].game_id, "time-loss", "no move in 10 s"]]
    driver.find_element(By.LINK_TEXT, "live01").click()
    page.wait(
        driver, lambda d: d.find_element(By.ID, "live-game").get_attribute("data-game") == "live01"
    )


def test_the_organiser_s_page_needs_its_token_and_its_buttons_call_the_commands(
    screen: WebDriver, event: Event
) -> None:
    driver = screen
    set_viewport(driver, 1280, 800)
    open_page(driver, event.base + "/organiser")
    page.wait(driver, lambda d: d.find_element(By.ID, "org-no-token").is_displayed())
    open_page(driver, event.base + f"/organiser?token={ORGANISER_TOKEN}")  # the cookie set
    page.wait(driver, lambda d: len(rows(d, "org-entrants")) == 3)
    table = {row[0]: row[1:] for row in rows(driver, "org-entrants")}
    state, connection, lag, playing, _, address = table[LONG_NAME][1:]
    assert (state, lag, playing, address) == ("playing", "23", "live00, live01", "10.0.0.7")
    assert connection.startswith("since ")
    assert table["random"][1:] == [
        "playing",
        "not connected",
        "",
        "live00, live01",
        "1 (last: time-loss: no move in 10 s)",
        "",
    ]
    assert rows(driver, "org-waiting")[0][:3] == ["g0009", f"{HOUSE} – random", "random"]
    assert [row[0] for row in rows(driver, "org-running")] == ["live00", "live01"]

    def press(label: str) -> None:
        driver.find_element(By.CSS_SELECTOR, f'button[aria-label="{label}"]').click()

    def shown(label: str) -> bool:
        return bool(driver.find_elements(By.CSS_SELECTOR, f'button[aria-label="{label}"]'))

    press("Pause random")
    page.wait(
        driver, lambda d: d.find_elements(By.CSS_SELECTOR, 'button[aria-label="Resume random"]')
    )
    press("Resume random")
    page.wait(
        driver, lambda d: d.find_elements(By.CSS_SELECTOR, 'button[aria-label="Pause random"]')
    )
    driver.find_element(By.ID, "org-pause").click()
    page.wait(driver, lambda d: text(d, "org-pause") == "Resume the event")
    assert text(driver, "org-status").startswith("The event is paused")
    driver.find_element(By.ID, "org-pause").click()
    page.wait(driver, lambda d: text(d, "org-pause") == "Pause the event")

    press(f"Forfeit {HOUSE} for good")
    dialog = driver.find_element(By.ID, "org-confirm")
    assert dialog.is_displayed() and "for good" in text(driver, "org-confirm-words")
    dialog.find_element(By.CSS_SELECTOR, 'button[value="cancel"]').click()
    assert not dialog.is_displayed()
    press(f"Forfeit {HOUSE} for good")
    driver.find_element(By.ID, "org-confirm-forfeit").click()
    page.wait(driver, lambda d: {r[0]: r[1] for r in rows(d, "org-entrants")}[HOUSE] == "forfeited")
    assert event.fixture.posts == [
        "/api/organiser/entrants/random/pause",
        "/api/organiser/entrants/random/resume",
        "/api/organiser/pause",
        "/api/organiser/resume",
        f"/api/organiser/entrants/{HOUSE}/forfeit",
    ]
    assert all(c["method"] in ("GET", "POST") for c in calls(driver))
    assert not csp_errors(driver)


def test_the_pages_are_small_files_of_their_own() -> None:
    """Each page is an entry point of its own that loads the shared modules: no script or
    style written in the page (the Content-Security-Policy allows none)."""
    from banqi_gui.web_common import STATIC

    for name in ("event.html", "organiser.html"):
        html = (STATIC / name).read_text(encoding="utf-8")
        assert "<script>" not in html and "<style" not in html and "style=" not in html
        assert html.count('<script type="module" src="/static/') == 1


def test_the_pages_against_the_event_routes_banqi_serve_serves(
    screen: WebDriver, records: list[GameRecord], tmp_path: Path
) -> None:
    """The same pages on the real routes and feed of ``banqi serve`` over a run folder: a
    game being played drawn, the standings, and the organiser's pause of an entrant kept
    in the run's control."""
    from banqi_arena.hub import Hub
    from banqi_arena.server_app import arena_app
    from banqi_arena.tokens import TokenStore
    from banqi_gui.event_feed import EventFacts, EventFeed
    from banqi_gui.event_routes import event_routes
    from referee.live import live_file, write_live
    from referee.storage import save_game
    from tournaments.run_control import RunControl

    run = tmp_path / "run"
    for record in records:
        save_game(run, record)
    playing = live_view(records[0], "g9", 14).model_copy(update={"deal": "9"})
    write_live(live_file(run, "g9"), playing)
    names = (LONG_NAME, "random")
    control = RunControl(run, names)
    facts = EventFacts(
        name="cup",
        rules="casual",
        names=names,
        remote=frozenset({"random"}),
        max_failures=3,
        total_games=4,
        deal_games={records[0].deal: tuple(r.game_id for r in records), "9": ("g9", "g10")},
    )
    feed = EventFeed(run, facts, None, control)
    served = page.Served(arena_app(Hub(TokenStore(), 8), event_routes(feed, control, "t0ken")))
    try:
        driver = screen
        set_viewport(driver, 1280, 800)
        open_page(driver, served.base + "/")
        large = page.wait(
            driver, lambda d: d.find_element(By.CSS_SELECTOR, "#live-game[data-game]")
        )
        assert (
            large.get_attribute("data-game") == "g9" and large.get_attribute("data-plies") == "14"
        )
        assert "2 of 4 games played" in text(driver, "event-status")
        said = page.wait(driver, lambda d: text(d, LIVE_STATUS) or None)
        assert "pieces hidden until the other game of its deal ends" in said  # g10 is to come
        driver.get(served.base + "/#standings")
        page.wait(driver, lambda d: [r[1] for r in rows(d, "standings-table")] == list(names))
        open_page(driver, served.base + "/organiser?token=t0ken")
        button = page.wait(
            driver, lambda d: d.find_element(By.CSS_SELECTOR, '[aria-label="Pause random"]')
        )
        button.click()
        page.wait(driver, lambda d: control.state.paused_entrants == ("random",))
        assert not csp_errors(driver)
    finally:
        served.stop()
