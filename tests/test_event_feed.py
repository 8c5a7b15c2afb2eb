"""The event's pages of ``banqi serve``: what spectators see (behind the delay, nothing
hidden), what the organiser sees and does, each from a run folder."""

import asyncio
import gzip
import json
from collections.abc import Iterator, Mapping
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

pytest.importorskip("starlette", reason="the event pages need: pip install -e '.[test]'")
pytest.importorskip("httpx2", reason="the event pages need: pip install -e '.[test]'")

from gui_helpers import builtin_loop
from gui_helpers import live_game as gui_live_game
from referee_fakes import play
from starlette.requests import Request
from starlette.testclient import TestClient

from banqi_arena.hub import Hub
from banqi_arena.server_app import arena_app
from banqi_arena.tokens import TokenStore
from banqi_gui.event_feed import EntrantLink, EventFacts, EventFeed, WaitingGame
from banqi_gui.event_routes import ORGANISER_COOKIE, ORGANISER_HEADER, event_routes
from banqi_gui.http_body import Body, accepts_gzip
from banqi_gui.json_pieces import json_bytes
from banqi_gui.spectator_delay import NO_DELAY, DelayError, SpectatorDelay, parse_delay
from banqi_gui.web_common import SECURITY_HEADERS
from referee.engine_spec import EngineSpec
from referee.engine_start import in_process_engines
from referee.live import LiveGame, live_file, write_live
from referee.record import GameRecord
from referee.storage import save_game
from referee.withheld import withhold
from tournaments.config import builtin_engine_command
from tournaments.run_control import CONTROL_FILE, RunControl

TOKEN = "organiser-secret"
NOW = datetime(2026, 12, 1, 12, 0, tzinfo=UTC)
MOVES = ["b6(K)", "c6(g)", "b6-c6", "a1(p)", "c6-b6", "b1(n)"]


@pytest.fixture(scope="module")
def finished(tmp_path_factory: pytest.TempPathFactory) -> list[GameRecord]:
    """Two finished games of one deal (``1``), a and b, played in-process."""
    out = tmp_path_factory.mktemp("played")
    specs = tuple(
        EngineSpec(name=name, command=builtin_engine_command("--level", level))
        for name, level in (("a", "1"), ("b", "0"))
    )
    return play(out, (specs[0], specs[1]), games=2, start_engine=in_process_engines(builtin_loop))


def live_game(
    game_id: str, deal: str, moves: list[str], updated_at: datetime, rules: str = "olympiad"
) -> LiveGame:
    """A game of a and b being played, a second a ply."""
    return gui_live_game(
        game_id, moves, deal, rules, names=("a", "b"), ms=1000, updated_at=updated_at
    )


class Arena:
    """What the arena tells the feed, as a test sets it."""

    def __init__(self) -> None:
        self.linked: dict[str, EntrantLink] = {}
        self.waits: list[WaitingGame] = []

    def links(self) -> Mapping[str, EntrantLink]:
        return self.linked

    def waiting(self) -> list[WaitingGame]:
        return self.waits


class Event:
    """A run folder, its feed (with a clock the test moves) and a client of its pages."""

    def __init__(self, run: Path, deal_games: dict[str, tuple[str, ...]], delay: SpectatorDelay):
        self.run = run
        self.now = NOW
        self.arena = Arena()
        self.control = RunControl(run, ["a", "b"])
        facts = EventFacts(
            name="cup",
            rules="olympiad",
            names=("a", "b"),
            remote=frozenset({"b"}),
            max_failures=3,
            total_games=4,
            deal_games=deal_games,
            delay=delay,
        )
        self.feed = EventFeed(run, facts, self.arena, self.control, clock=lambda: self.now)
        app = arena_app(Hub(TokenStore(), 8), event_routes(self.feed, self.control, TOKEN))
        self.client = TestClient(app)

    def get(self, path: str) -> dict[str, object]:
        self.feed.invalidate()
        answer = self.client.get(path)
        assert answer.status_code == 200, answer.text
        result: dict[str, object] = answer.json()
        return result


@pytest.fixture
def event(tmp_path: Path, finished: list[GameRecord]) -> Iterator[Event]:
    deals = {finished[0].deal: (finished[0].game_id, finished[1].game_id), "9": ("g9", "g10")}
    yield Event(tmp_path / "run", deals, NO_DELAY)


def test_spectators_see_standings_crosstable_finished_games_and_entrants_without_a_token(
    event: Event, finished: list[GameRecord]
) -> None:
    for record in finished:
        save_game(event.run, record)
    event.arena.linked["b"] = EntrantLink(address="10.0.0.2", rtt_ms=3.0, connected_since=NOW)
    view = event.get("/api/event")
    assert view["version"] == event.feed.event_version >= 1
    assert view["name"] == "cup" and view["delay"] is None and view["paused"] is False
    assert view["games"] == {"total": 4, "finished": 2, "live": 0}
    assert [f["game_id"] for f in view["finished"]] == [r.game_id for r in finished]  # type: ignore[attr-defined,index]
    points = {row["name"]: row["points"] for row in view["standings"]}  # type: ignore[attr-defined,index]
    wins_a = sum(1 for r in finished if r.winner is not None and r.players[r.winner].name == "a")
    draws = sum(1 for r in finished if r.winner is None)
    assert points["a"] == wins_a + draws / 2
    table = view["crosstable"]
    assert table["names"] == [row["name"] for row in view["standings"]]  # type: ignore[index,attr-defined]
    assert table["cells"][0][0] is None and table["cells"][0][1]["games"] == 2  # type: ignore[index]
    entrants = {e["name"]: e for e in view["entrants"]}  # type: ignore[attr-defined,index]
    assert entrants["b"]["connected"] is True and entrants["a"]["connected"] is None
    assert "address" not in str(view) and "10.0.0.2" not in str(view)  # the organiser's only
    game = event.get(f"/api/event/games/{finished[0].game_id}")
    assert game["finished"] is True
    assert len(game["replay"]["frames"]) == len(finished[0].plies) + 1  # type: ignore[index,arg-type]
    record = event.client.get(f"/api/event/games/{finished[0].game_id}/record.json")
    assert record.status_code == 200 and "attachment" in record.headers["content-disposition"]
    assert GameRecord.model_validate_json(record.text) == finished[0]
    text = event.client.get(f"/api/event/games/{finished[0].game_id}/record.txt")
    assert text.status_code == 200 and text.text.strip()
    page = event.get("/api/event/entrants/a")
    assert [g["game_id"] for g in page["games"]] == [r.game_id for r in finished]  # type: ignore[attr-defined,index]
    assert page["standing"]["points"] == points["a"]  # type: ignore[index]
    for path in ("/api/event", f"/api/event/games/{finished[0].game_id}"):
        answer = event.client.get(path)
        for name, value in SECURITY_HEADERS.items():
            assert answer.headers[name] == value


def test_a_game_whose_deal_has_a_game_still_to_end_shows_no_piece_it_turned_up(
    event: Event, finished: list[GameRecord]
) -> None:
    write_live(live_file(event.run, "g9"), live_game("g9", "9", MOVES, NOW))
    board = event.get("/api/event/games/g9")["board"]
    assert board["withheld"] is True  # type: ignore[index]
    assert set(board["board"]) <= set("X-?~")  # type: ignore[index]
    assert board["plies"][:2] == ["b6(?)", "c6(?)"] and "K" not in str(board)  # type: ignore[index]
    assert board["captured"] == {"red": "", "black": ""}  # type: ignore[index]
    assert board["colours"] == [None, None]  # type: ignore[index]  # b6's piece was red
    assert board["problem"] is None  # type: ignore[index]
    other = finished[1].model_copy(update={"game_id": "g10", "deal": "9"})
    save_game(event.run, withhold(other))  # the deal's other game ends
    event.feed.invalidate()
    record = event.client.get("/api/event/games/g10/record.json").json()
    assert record["withheld"] and [p["colour"] for p in record["players"]] == [None, None]
    assert record.get("mac") is None and record.get("layout") is None
    board = event.get("/api/event/games/g9")["board"]
    assert board["withheld"] is False and board["plies"][0] == "b6(K)"  # type: ignore[index]
    assert board["colours"] == ["red", "black"]  # type: ignore[index]
    assert board["board"][22] == "-" and board["captured"]["black"] == "g"  # type: ignore[index]
    assert board["board"][21] == "K" and board["problem"] is None  # type: ignore[index]


def test_the_delay_in_plies_hides_the_last_plies(tmp_path: Path) -> None:
    event = Event(tmp_path / "run", {"9": ("g9",)}, SpectatorDelay(plies=4))
    write_live(live_file(event.run, "g9"), live_game("g9", "9", MOVES, NOW))
    board = event.get("/api/event/games/g9")["board"]
    assert board["plies"] == MOVES[:2] and board["plies_hidden"] == 4  # type: ignore[index]
    assert board["clocks_ms"] == [898_999, 897_999]  # type: ignore[index]  # of the last shown
    assert event.get("/api/event")["delay"] == {"plies": 4}


def test_the_delay_in_seconds_shows_plies_and_ends_that_long_after(
    tmp_path: Path, finished: list[GameRecord]
) -> None:
    record = finished[0]
    deals = {record.deal: (record.game_id,)}
    event = Event(tmp_path / "run", deals, SpectatorDelay(seconds=2.5))
    moves = [ply.move for ply in record.plies]
    last_ply = NOW - timedelta(seconds=1)
    live = live_game(record.game_id, record.deal, moves, last_ply, "casual")  # 1 s a ply
    write_live(live_file(event.run, record.game_id), live)
    shown = event.get(f"/api/event/games/{record.game_id}")["board"]
    assert shown["plies"] == moves[:-2]  # type: ignore[index]  # played 1 s and 2 s ago: hidden
    assert shown["problem"] is None  # type: ignore[index]
    live_file(event.run, record.game_id).unlink()  # the game ends now ...
    save_game(event.run, record.model_copy(update={"finished_at": NOW}))
    view = event.get("/api/event")
    assert view["finished"] == [] and len(view["live"]) == 1  # type: ignore[arg-type]
    assert event.client.get(f"/api/event/games/{record.game_id}/record.json").status_code == 404
    assert view["standings"][0]["games"] == 0  # type: ignore[index]
    event.now = NOW + timedelta(seconds=3)  # ... and is shown ended 2.5 s later
    view = event.get("/api/event")
    assert [f["game_id"] for f in view["finished"]] == [record.game_id]  # type: ignore[attr-defined,index]
    assert view["live"] == [] and view["standings"][0]["games"] == 1  # type: ignore[index]


def test_a_record_arriving_changes_the_standings_the_lists_and_the_entrants_pages(
    event: Event, finished: list[GameRecord]
) -> None:
    write_live(
        live_file(event.run, finished[1].game_id),
        live_game(finished[1].game_id, finished[1].deal, MOVES, NOW),
    )
    before = event.get("/api/event")
    assert before["standings"][0]["games"] == 0  # type: ignore[index]
    assert before["crosstable"]["cells"][0][1]["games"] == 0  # type: ignore[index]
    assert [g["live"] for g in event.get("/api/event/entrants/a")["games"]] == [True]  # type: ignore[attr-defined,index]
    assert event.get("/api/event")["version"] == before["version"]  # nothing changed
    save_game(event.run, finished[0])
    after = event.get("/api/event")
    assert after["version"] == before["version"] + 1  # type: ignore[operator]
    assert [f["game_id"] for f in after["finished"]] == [finished[0].game_id]  # type: ignore[attr-defined,index]
    assert {row["games"] for row in after["standings"]} == {1}  # type: ignore[attr-defined,index]
    assert after["crosstable"]["cells"][0][1]["games"] == 1  # type: ignore[index]
    page = event.get("/api/event/entrants/a")
    assert [g["game_id"] for g in page["games"]] == [r.game_id for r in finished]  # type: ignore[attr-defined,index]
    assert page["standing"]["games"] == 1 and page["games"][0].get("live") is None  # type: ignore[index]
    live_file(event.run, finished[1].game_id).unlink()
    save_game(event.run, finished[1])
    view = event.get("/api/event")
    assert view["live"] == [] and {row["games"] for row in view["standings"]} == {2}  # type: ignore[attr-defined,index]
    assert event.get("/api/event/entrants/b")["standing"]["games"] == 2  # type: ignore[index]
    assert event.get("/api/event/games/" + finished[1].game_id)["finished"] is True


def test_a_withheld_record_completed_shows_its_colours_in_the_lists(
    event: Event, finished: list[GameRecord]
) -> None:
    write_live(live_file(event.run, "g9"), live_game("g9", "9", MOVES, NOW))
    other = finished[1].model_copy(update={"game_id": "g10", "deal": "9"})
    save_game(event.run, withhold(other))
    listed = event.get("/api/event")["finished"][0]  # type: ignore[index]
    assert listed["withheld"] is True and listed["colours"] == [None, None]
    played = event.get("/api/event/entrants/a")["games"]
    assert [(g["game_id"], g["colours"]) for g in played] == [
        ("g10", [None, None]),
        ("g9", ["red", "black"]),  # the last game of its deal: nothing to withhold
    ]  # type: ignore[attr-defined,index]
    live_file(event.run, "g9").unlink()  # g9 ends: the deal is complete
    save_game(event.run, finished[0].model_copy(update={"game_id": "g9", "deal": "9"}))
    save_game(event.run, other)
    view = event.get("/api/event")
    colours = {f["game_id"]: (f["withheld"], f["colours"]) for f in view["finished"]}  # type: ignore[attr-defined,index]
    assert colours["g10"] == (False, [p.colour for p in other.players])
    page = event.get("/api/event/entrants/a")["games"]
    assert {g["game_id"]: g["withheld"] for g in page} == {"g9": False, "g10": False}  # type: ignore[attr-defined,index]
    record = event.client.get("/api/event/games/g10/record.json")
    assert GameRecord.model_validate_json(record.text) == other  # complete, colours and MAC


def test_the_delay_moving_on_shows_the_plies_it_hid(tmp_path: Path) -> None:
    event = Event(tmp_path / "run", {"9": ("g9",)}, SpectatorDelay(seconds=2.5))
    write_live(live_file(event.run, "g9"), live_game("g9", "9", MOVES, NOW))  # 1 s a ply
    before = event.get("/api/event")
    assert before["live"][0]["plies"] == MOVES[:-3]  # type: ignore[index]
    assert event.get("/api/event/games/g9")["board"]["plies_hidden"] == 3  # type: ignore[index]
    event.now = NOW + timedelta(seconds=3)  # the file is the same: only the clock moved
    after = event.get("/api/event")
    assert after["version"] == before["version"] + 1  # type: ignore[operator]
    assert after["live"][0]["plies"] == MOVES and after["live"][0]["plies_hidden"] == 0  # type: ignore[index]
    board = event.get("/api/event/games/g9")["board"]
    assert board["plies"] == MOVES and board["plies_hidden"] == 0  # type: ignore[index]
    assert event.get("/api/event")["version"] == after["version"]


def test_the_views_are_compact_json_of_one_piece(event: Event, finished: list[GameRecord]) -> None:
    save_game(event.run, finished[0])
    write_live(live_file(event.run, "g9"), live_game("g9", "9", MOVES, NOW))
    for path in ("/api/event", "/api/event/entrants/a", "/api/event/games/g9"):
        event.feed.invalidate()
        body = event.client.get(path).content
        assert json_bytes(json.loads(body)) == body


def test_views_go_gzipped_to_clients_that_accept_it_the_same_json(
    event: Event, finished: list[GameRecord]
) -> None:
    for record in finished:
        save_game(event.run, record)
    event.feed.invalidate()
    plain = event.client.get("/api/event", headers={"Accept-Encoding": "identity"})
    packed = event.client.get("/api/event", headers={"Accept-Encoding": "br, gzip"})
    assert "content-encoding" not in plain.headers
    assert packed.headers["content-encoding"] == "gzip"
    assert plain.headers["vary"] == packed.headers["vary"] == "Accept-Encoding"
    assert int(packed.headers["content-length"]) < len(plain.content) / 2
    assert packed.content == plain.content  # the client unpacked the same bytes
    refused = event.client.get(
        f"/api/event/games/{finished[0].game_id}", headers={"Accept-Encoding": "gzip;q=0"}
    )
    assert "content-encoding" not in refused.headers and refused.json()["finished"] is True


@pytest.mark.parametrize(
    ("header", "takes"),
    [
        ("gzip", True),
        ("deflate, gzip;q=0.5", True),
        ("*", True),
        ("gzip;q=0", False),
        ("identity", False),
        ("", False),
        ("gzip;q=x", False),
    ],
)
def test_accept_encoding_is_read_with_its_quality(header: str, takes: bool) -> None:
    scope = {"type": "http", "headers": [(b"accept-encoding", header.encode())]}
    assert accepts_gzip(Request(scope)) is takes


def test_a_short_body_keeps_no_compressed_form() -> None:
    assert Body.of(b'{"a":1}').gzipped is None
    long = json_bytes({"cells": [{"wins": n, "draws": 0} for n in range(200)]})
    packed = Body.of(long).gzipped
    assert packed is not None and gzip.decompress(packed) == long


def test_the_organiser_needs_the_token_and_pauses_resumes_and_forfeits(event: Event) -> None:
    client = event.client
    assert client.get("/api/organiser").status_code == 401
    assert client.post("/api/organiser/pause").status_code == 401
    assert client.get("/api/organiser", headers={ORGANISER_HEADER: "wrong"}).status_code == 401
    assert client.get("/organiser?token=wrong").status_code == 403
    opened = client.get(f"/organiser?token={TOKEN}", follow_redirects=False)
    assert opened.status_code == 303 and opened.cookies[ORGANISER_COOKIE] == TOKEN
    assert "httponly" in opened.headers["set-cookie"].lower()
    client.cookies.set(ORGANISER_COOKIE, TOKEN)
    event.arena.linked["b"] = EntrantLink(address="10.0.0.2", rtt_ms=3.04, connected_since=NOW)
    event.arena.waits = [WaitingGame(game_id="g9", players=("a", "b"), waiting_for="b", since=NOW)]
    view = client.get("/api/organiser").json()
    b = next(line for line in view["entrants"] if line["name"] == "b")
    assert b["connected"] is True and b["address"] == "10.0.0.2" and b["rtt_ms"] == 3.0
    assert view["waiting"][0]["waiting_for"] == ["b"]
    paused = client.post("/api/organiser/pause").json()
    assert paused["paused"] is True and event.control.paused
    view = client.post("/api/organiser/entrants/b/forfeit").json()
    b = next(line for line in view["entrants"] if line["name"] == "b")
    assert b["forfeited"] is True and b["state"] == "forfeited"
    assert '"forfeited": [\n    "b"\n  ]' in (event.run / CONTROL_FILE).read_text()
    refused = client.post("/api/organiser/entrants/b/pause")
    assert refused.status_code == 409 and "forfeited for good" in refused.json()["error"]
    assert client.post("/api/organiser/entrants/zed/pause").status_code == 404
    assert client.post("/api/organiser/entrants/a/dance").status_code == 404
    assert client.post("/api/organiser/resume").json()["paused"] is False


def test_bad_requests_get_a_clear_error_and_no_secret(event: Event) -> None:
    answer = event.client.get("/api/event?since=soon")
    assert answer.status_code == 400 and "since must be a version number" in answer.json()["error"]
    assert event.client.get("/api/event/games/nope").status_code == 404
    assert event.client.get("/api/event/entrants/nope").status_code == 404
    write_live(live_file(event.run, "g9"), live_game("g9", "9", MOVES, NOW))
    assert event.client.get("/api/event/games/g9/record.json").status_code == 404  # playing
    assert event.client.get("/api/event/games/g9/record.pdf").status_code == 404
    assert TOKEN not in event.client.get("/api/event").text


def test_a_long_poll_waits_for_a_change_and_answers_it(event: Event) -> None:
    first = event.get("/api/event")
    del first

    async def poll() -> tuple[int, int]:
        before = (await asyncio.wait_for(_version(event), 5))[0]
        waiting = asyncio.ensure_future(event.feed.wait("event", before))
        await asyncio.sleep(0.1)
        assert not waiting.done()
        write_live(live_file(event.run, "g9"), live_game("g9", "9", MOVES, NOW))
        await asyncio.wait_for(waiting, 5)
        return before, event.feed.event_version

    before, after = asyncio.run(poll())
    assert after == before + 1
    assert event.get(f"/api/event?since={before}")["version"] == after


async def _version(event: Event) -> tuple[int, bytes]:
    view = await event.feed.event()
    return event.feed.event_version, view.plain


def test_delays_are_read_in_seconds_or_plies() -> None:
    assert parse_delay("30s") == SpectatorDelay(seconds=30)
    assert parse_delay("2.5 s") == SpectatorDelay(seconds=2.5)
    assert parse_delay("4plies") == parse_delay("4p") == SpectatorDelay(plies=4)
    assert parse_delay("none") == parse_delay("0") == NO_DELAY
    for bad in ("30", "4.5 plies", "-3s", "4 moves", "7200s"):
        with pytest.raises(DelayError, match="give seconds or plies"):
            parse_delay(bad)
