"""The live view the referee writes while a game runs, and the GUI's watch and replay API."""

import asyncio
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from referee_fakes import TEST_KEY, TEST_MACS

import referee.live_writer
from banqi_engine.rules import PRESETS
from referee import sandbox
from referee.sandbox import Isolation, SandboxMode
from tournaments.engine_places import live_views_safe
from tournaments.match import open_match, run_match, start_match_folder
from tournaments.match_config import MatchConfig
from tournaments.runner import RunEvents, RunOptions

pytest.importorskip("starlette", reason="the GUI tests need: pip install -e '.[test]'")
pytest.importorskip("httpx2", reason="the GUI tests need: pip install -e '.[test]'")

from gui_helpers import HEADERS, builtin_loop, gui_config, live_game
from in_process_engines import engine_spec, in_process
from referee_fakes import play
from spectator_data import LONG_NAME, live_view, play_match
from starlette.testclient import TestClient

import banqi_gui.watch
from banqi_gui.app import create_app
from banqi_gui.watch import BoardReplay, live_board
from protocol.engine_loop import DctpEngine
from protocol.messages import Reply
from referee.engine_spec import EngineSpec
from referee.engine_start import in_process_engines
from referee.live import LIVE_DIR, LiveGame, live_file, read_live, write_live
from referee.record import GameRecord
from referee.storage import save_game
from referee.text_record import format_text_record
from referee.withheld import withhold
from tournaments.config import builtin_engine_command


def level(name: str, number: int) -> EngineSpec:
    return EngineSpec(name=name, command=builtin_engine_command("--level", str(number)))


class Peeking(DctpEngine):
    """An engine loop that reads the run's live views each time it is asked for a move."""

    seen: list[dict[str, Any]]

    def __init__(self, spec: EngineSpec, live: Path, seen: list[dict[str, Any]]) -> None:
        loop = builtin_loop(spec)
        super().__init__(loop.rules, loop.player)
        self.live = live
        self.seen = seen

    def handle_line(self, line: str) -> Reply | None:
        if " genmove " in f" {line} ":
            for path in self.live.glob("*.json"):
                self.seen.append(json.loads(path.read_text()))
        return super().handle_line(line)


def test_the_referee_keeps_a_public_live_view_while_a_game_runs(tmp_path: Path) -> None:
    out = tmp_path / "run"
    seen: list[dict[str, Any]] = []
    factory = in_process_engines(lambda spec: Peeking(spec, out / LIVE_DIR, seen))
    records = play(out, (level("a", 0), level("b", 0)), games=2, start_engine=factory)
    assert len(seen) > 10
    by_game = {record.game_id: record for record in records}
    for view in seen:
        assert set(view) == set(LiveGame.model_fields)  # no layout, no secret
        record = by_game[view["game_id"]]
        plies = [ply["move"] for ply in view["plies"]]
        assert plies == [ply.move for ply in record.plies[: len(plies)]]
        assert all("?" not in move for move in plies)  # flips as they were revealed
    assert not list((out / LIVE_DIR).glob("*"))  # removed when each game ended


def test_a_live_view_that_cannot_be_written_does_not_stop_anything(tmp_path: Path) -> None:
    (tmp_path / "live").write_text("a file where the folder should be")
    view = live_game("g1", [])
    assert not write_live(tmp_path / "live" / "g1.json", view)
    assert write_live(live_file(tmp_path / "ok", "g1"), view)
    assert read_live(live_file(tmp_path / "ok", "g1")) == view


@pytest.fixture(scope="module")
def finished(tmp_path_factory: pytest.TempPathFactory) -> list[GameRecord]:
    """Two finished games of one deal, played in-process."""
    out = tmp_path_factory.mktemp("played")
    factory = in_process_engines(builtin_loop)
    return play(out, (level("a", 1), level("b", 0)), games=2, start_engine=factory)


@pytest.fixture
def client(tmp_path: Path) -> Iterator[TestClient]:
    with TestClient(create_app(gui_config(tmp_path)), headers=HEADERS) as made:
        yield made


def test_watch_shows_live_games_finished_games_and_standings(
    client: TestClient, tmp_path: Path, finished: list[GameRecord]
) -> None:
    run = tmp_path / "runs" / "t1"
    save_game(run, finished[0])
    write_live(live_file(run, "g9"), live_game("g9", ["b6(K)", "c6(g)", "b6-c6"]))
    write_live(live_file(run, finished[0].game_id), live_game(finished[0].game_id, []))
    (run / "standings.json").write_text(json.dumps([{"rank": 1, "name": "a", "elo": 3.5}]))
    (tmp_path / "runs" / "not-a-run").mkdir()
    runs = client.get("/api/runs").json()["runs"]
    assert [r["id"] for r in runs] == ["t1"] and runs[0]["live"] == 2
    view = client.get("/api/runs/t1/watch").json()
    assert [game["game_id"] for game in view["live"]] == ["g9"]  # the other has its record
    board = view["live"][0]["board"]
    assert board[21] == "-" and board[22] == "K" and board.count("X") == 30  # b6, c6
    assert view["live"][0]["captured"] == {"red": "", "black": "g"}
    assert view["live"][0]["problem"] is None
    assert view["live"][0]["plies"] == ["b6(K)", "c6(g)", "b6-c6"]
    assert view["finished"][0]["game_id"] == finished[0].game_id
    assert view["standings"][0]["name"] == "a" and view["standings"][0]["elo"] == 3.5
    assert "layout" not in json.dumps(view)
    assert client.get("/api/runs/nope/watch").status_code == 404
    assert client.get("/api/runs/..%2F..%2Fetc/watch").status_code == 404
    assert client.get("/api/runs/t1/games/..%2F..%2Fsecret").status_code == 404


def test_a_match_swept_shows_its_rating_and_the_match_summary_s_infinite_elo(
    client: TestClient, tmp_path: Path
) -> None:
    """A clean sweep: the standings' rating stays finite (two virtual draws an engine), and
    the head-to-head line reads as ``banqi match`` prints it, Elo +inf."""
    records = play_match(tmp_path / "runs" / "m1")
    assert all(record.winner == seat_of(record, LONG_NAME) for record in records)
    view = client.get("/api/runs/m1/watch").json()
    assert [row["elo"] for row in view["standings"]] == pytest.approx([95.424, -95.424], abs=1e-3)
    assert view["head_to_head"].startswith(
        f"{LONG_NAME} vs random: 2 games, W-D-L 2-0-0, Elo +inf, LOS 92.1%; 1 pair"
    )
    save_game(tmp_path / "runs" / "t1", records[0])  # not a match: no such line
    assert client.get("/api/runs/t1/watch").json()["head_to_head"] is None


def seat_of(record: GameRecord, name: str) -> int:
    return [player.name for player in record.players].index(name)


def test_a_live_game_shows_moves_onto_face_down_pieces(client: TestClient, tmp_path: Path) -> None:
    run = tmp_path / "runs" / "t2"
    moves = ["b2(G)", "d3(m)", "b2-b1(g)", "d3-d4(m)"]  # G takes g; m does not take its own
    write_live(live_file(run, "g1"), live_game("g1", moves, rules="hong-kong-forum"))
    [game] = client.get("/api/runs/t2/watch").json()["live"]
    assert game["problem"] is None and game["rules"] == "hong-kong-forum"
    board = game["board"]
    assert (board[1], board[5], board[11], board[15]) == ("G", "-", "m", "m")  # b1 b2 d3 d4
    assert board.count("X") == 28
    assert game["captured"] == {"red": "", "black": "g"}
    assert game["last"] == {"from": "d3", "to": "d4"}
    assert game["plies"] == moves


def test_replay_of_a_run_game_steps_every_ply_and_reveals_the_layout(
    client: TestClient, tmp_path: Path, finished: list[GameRecord]
) -> None:
    record = finished[0]
    save_game(tmp_path / "runs" / "t1", record)
    view = client.get(f"/api/runs/t1/games/{record.game_id}").json()
    assert len(view["frames"]) == len(record.plies) + 1
    assert view["frames"][0]["board"] == "X" * 32
    assert [f["move"] for f in view["frames"][1:]] == [p.move for p in record.plies]
    assert view["result"] == record.result and view["reason"] == record.reason.value
    assert view["layout"] is not None and "X" not in view["layout"]
    assert view["problem"] is None and not view["withheld"]


def test_a_withheld_record_shows_no_layout_and_no_flipped_piece(
    client: TestClient, finished: list[GameRecord]
) -> None:
    text = withhold(finished[0]).model_dump_json()
    view = client.post("/api/replay", content=text, params={"name": "w.json"}).json()
    assert view["withheld"] and view["layout"] is None
    assert set("".join(frame["board"] for frame in view["frames"])) <= {"X", "?", "-"}


def test_an_uploaded_text_record_replays_under_the_rules_named(
    client: TestClient, finished: list[GameRecord]
) -> None:
    from banqi_engine.position import Position

    text = format_text_record(finished[1], Position.opening())
    view = client.post("/api/replay", content=text, params={"rules": "casual"}).json()
    assert view["problem"] is None and view["layout"] is None
    assert len(view["frames"]) == len(finished[1].plies) + 1
    assert view["reason"] == finished[1].reason.value


@pytest.mark.parametrize(
    ("body", "params", "status", "words"),
    [
        (b"* not a record\n", {}, 422, "text record"),
        (b'{"format": "banqi-record/1"}', {}, 422, "not a valid banqi-record/1 record"),
        (b"\xff\xfe", {}, 400, "UTF-8"),
        (b"{}", {"rules": "chess"}, 400, "rules must be one of"),
    ],
)
def test_a_bad_upload_gets_a_clear_error(
    client: TestClient, body: bytes, params: dict[str, str], status: int, words: str
) -> None:
    answer = client.post("/api/replay", content=body, params=params)
    assert answer.status_code == status and words in answer.json()["error"]


def test_an_illegal_ply_ends_the_replay_with_the_reason(
    client: TestClient, finished: list[GameRecord]
) -> None:
    record = finished[0]
    plies = [*record.plies[:3], record.plies[3].model_copy(update={"move": "a1-a5"})]
    broken = record.model_copy(update={"plies": plies})
    view = client.post("/api/replay", content=broken.model_dump_json()).json()
    assert len(view["frames"]) == 4 and "ply 4 (a1-a5)" in view["problem"]


def test_a_resumed_run_clears_the_live_views_a_killed_run_left(tmp_path: Path) -> None:
    """Nothing is being played as a run opens: a stale view (or a half-written one) would
    show a game that is not."""
    out = tmp_path / "run"
    live = out / LIVE_DIR
    live.mkdir(parents=True)
    (live / "g0009.json").write_text("{}")
    (live / ".g0002.json.x.tmp").write_text("{")
    specs = (engine_spec("a", "--level", "0"), engine_spec("b", "--level", "0"))
    play(out, specs, games=1, start_engine=in_process())
    assert list(live.iterdir()) == []


@pytest.mark.parametrize("live_views", [True, False])
def test_live_views_are_written_only_when_the_run_allows_them(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, live_views: bool
) -> None:
    written: list[Path] = []
    monkeypatch.setattr(referee.live_writer, "write_live", lambda path, view: written.append(path))
    config = MatchConfig(
        engines=(engine_spec("a", "--level", "0"), engine_spec("b", "--level", "0")),
        games=1,
        rules=PRESETS["casual"],
        seed=3,
        out=tmp_path / "run",
    )
    start_match_folder(open_match(config, True, TEST_MACS), TEST_MACS)
    events = RunEvents(lambda record, standings: None, lambda *_: None)
    options = RunOptions(
        key=TEST_KEY,
        out=config.out,
        events=events,
        start_engine=in_process(),
        live_views=live_views,
    )
    asyncio.run(run_match(config, options))
    assert bool(written) is live_views


def test_unsandboxed_games_at_once_keep_no_live_view(monkeypatch: pytest.MonkeyPatch) -> None:
    """An unsandboxed engine could read the live view of its deal's other game, played beside it."""
    monkeypatch.setattr(sandbox, "working_isolations", lambda: (Isolation.NONE,))
    assert live_views_safe(SandboxMode.AUTO, 1)
    assert not live_views_safe(SandboxMode.AUTO, 2)
    assert not live_views_safe(SandboxMode.OFF, 2)
    monkeypatch.setattr(sandbox, "working_isolations", lambda: (Isolation.BWRAP, Isolation.NONE))
    assert live_views_safe(SandboxMode.AUTO, 4)
    assert not live_views_safe(SandboxMode.OFF, 4)


@pytest.mark.parametrize("withheld", [False, True])
def test_a_board_kept_between_calls_plays_only_the_new_plies(
    finished: list[GameRecord], withheld: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    record = finished[0]
    parsed: list[str] = []
    parse = banqi_gui.watch.parse_ply
    monkeypatch.setattr(
        banqi_gui.watch, "parse_ply", lambda move: parsed.append(move) or parse(move)
    )
    replay = BoardReplay(record.rules, withheld=withheld)
    before = 0
    for plies in (0, 6, 7, 12, len(record.plies), 4):  # 4: fewer plies, replayed afresh
        view = live_view(record, "g1", plies)
        parsed.clear()
        kept = live_board(view, withheld=withheld, replay=replay)
        played = len(parsed) - (plies > 0)  # the last ply is parsed again for its squares
        assert played == (plies - before if plies >= before else plies)
        fresh = live_board(view, withheld=withheld)
        assert kept | {"seconds_since_update": 0} == fresh | {"seconds_since_update": 0}
        assert kept["withheld"] is withheld and kept["problem"] is None
        before = plies
    with pytest.raises(ValueError, match="another game"):
        live_board(live_view(record, "g1", 3), withheld=not withheld, replay=replay)
