"""The referee and the tournament runner with engines played in-process through the factory seam."""

import asyncio
import json
import time
from pathlib import Path

import pytest
from in_process_engines import engine_loop, engine_spec, in_process
from referee_fakes import TEST_KEY, play

import tournaments.runner
from banqi_engine.game import Game
from banqi_engine.moves import move_from, step_move
from banqi_engine.pieces import piece_from_letter
from banqi_engine.players import RandomPlayer
from banqi_engine.rules import PRESETS
from banqi_engine.squares import parse_square
from protocol.connection import EngineConnection
from protocol.engine_loop import DctpEngine
from protocol.errors import EngineTerminatedError, EngineTimeoutError
from protocol.in_process import InProcessEngine
from protocol.line_protocol import TrafficLog
from protocol.messages import Command, parse_genmove_payload
from referee.engine_spec import EngineSpec
from referee.engine_start import in_process_engines
from referee.game_setup import GameSetup
from referee.reasons import Reason
from referee.record import read_record
from referee.replay import replay_game_record
from referee.storage import record_path
from referee.timecontrol import TimeControl
from tournaments.config import TournamentConfig
from tournaments.runner import RunEvents, RunOptions, run_games
from tournaments.schedule import schedule

CASUAL = PRESETS["casual"]


class Misbehaving(RandomPlayer):
    """A random player that, on its second genmove, does what ``how`` says instead."""

    def __init__(self, how: str) -> None:
        super().__init__(seed=1)
        self.how = how
        self.asked = 0

    def choose(self, game: Game, budget_seconds: float | None) -> int:
        self.asked += 1
        if self.asked == 2:
            if self.how == "illegal":
                return step_move(parse_square("a1"), parse_square("d8"))
            if self.how == "slow":
                time.sleep(1.0)
            if self.how == "crash":
                raise RuntimeError("the player broke")
        return super().choose(game, budget_seconds)


def test_an_in_process_engine_answers_logs_and_ends() -> None:
    async def scenario() -> tuple[list[str], str]:
        lines: list[str] = []
        engine = InProcessEngine(DctpEngine(CASUAL, RandomPlayer(1)), "loop", lines.append)
        assert engine.pid is None
        name = await engine.request(Command.name(), timeout=1.0)
        assert await engine.quit() == 0
        with pytest.raises(EngineTerminatedError):
            await engine.request(Command.name(), timeout=1.0)
        return lines, name.payload

    lines, name = asyncio.run(scenario())
    assert name == "banqi-engine"
    assert lines == ["> 1 name", "< =1 banqi-engine", "> 5 quit", "< =5"]


def test_an_in_process_engine_times_out_and_then_finishes_its_command_first() -> None:
    async def scenario() -> list[str]:
        engine = InProcessEngine(DctpEngine(CASUAL, Misbehaving("slow")), "slow")
        await engine.request(Command.reset_board(), timeout=1.0)
        first = await engine.request(Command.genmove("unknown"), timeout=5.0)
        move = parse_genmove_payload(first.payload).move
        assert move is not None
        await engine.request(Command.flip(move_from(move), piece_from_letter("K")), timeout=1.0)
        with pytest.raises(EngineTimeoutError):
            await engine.request(Command.genmove("unknown"), timeout=0.2)
        started = time.monotonic()
        reply = await engine.request(Command.name(), timeout=5.0)
        waited = time.monotonic() - started
        await engine.quit()
        return [reply.payload, f"{waited:.1f}"]

    payload, waited = asyncio.run(scenario())
    assert payload == "banqi-engine"
    assert float(waited) >= 0.5  # the late genmove ran to its end before name was answered


@pytest.mark.parametrize(
    ("how", "stall", "reason", "detail", "stopped"),
    [
        ("illegal", 5.0, Reason.ILLEGAL_MOVE, "a1 d8: illegal move a1-d8", False),
        ("slow", 5.0, Reason.TIME_FORFEIT, "moved after 1.", False),
        ("slow", 0.3, Reason.TIME_FORFEIT, "no move within the 0.300s allowed (a 0.200s", True),
        ("crash", 5.0, Reason.UNREADABLE_REPLY, "genmove failed: ?12 internal error", False),
    ],
    ids=["illegal", "late", "silent", "crash"],
)
def test_the_referee_judges_an_in_process_engine(
    tmp_path: Path, how: str, stall: float, reason: Reason, detail: str, stopped: bool
) -> None:
    """A late move loses on time but is no failure; no move at all is one (stopped answering)."""
    specs = (EngineSpec(name="bad", command=("bad",)), EngineSpec(name="good", command=("good",)))

    def make(spec: EngineSpec) -> DctpEngine:
        player = Misbehaving(how) if spec.name == "bad" else RandomPlayer(2)
        return DctpEngine(CASUAL, player)

    [record] = play(
        tmp_path,
        specs,
        games=1,
        time_control=TimeControl(time=60, move_time=0.2, margin_ms=100),
        stall_timeout=stall,
        start_engine=in_process_engines(make),
    )
    assert (record.reason, record.winner) == (reason, 1)
    assert record.detail.startswith(detail), record.detail
    assert record.stopped_answering is stopped
    assert record.loser_failed is (reason.is_fault or stopped)
    assert len(record.plies) == 2
    assert replay_game_record(record).ok


def test_a_tournament_plays_in_process_with_two_games_at_once(tmp_path: Path) -> None:
    engines = (
        engine_spec("random", "--level", "0", "--seed", "1", "--rules", "casual"),
        engine_spec("greedy", "--level", "1", "--seed", "2", "--rules", "casual"),
        engine_spec("greedy-2", "--level", "1", "--seed", "3", "--rules", "casual"),
    )
    config = TournamentConfig(engines=engines, rules=CASUAL, concurrency=2, seed=4)
    games = list(schedule(config, 4))
    done: list[str] = []
    events = RunEvents(lambda record, standings: done.append(record.game_id), print)
    options = RunOptions(key=TEST_KEY, out=tmp_path, events=events, start_engine=in_process())
    standings = asyncio.run(run_games(games, config, options))

    assert sorted(done) == sorted(g.setup.game_id for g in games) and len(done) == 6
    records = [read_record(record_path(tmp_path, g.setup.game_id)) for g in games]
    for record in records:
        assert record.reason.is_board_end, record.detail
        assert replay_game_record(record).ok
        assert {p.engine_name for p in record.players} == {"banqi-engine"}
    rows = {row.name: row for row in standings.rows}
    for spec in engines:
        points = sum(
            r.points(seat)
            for r in records
            for seat, p in enumerate(r.players)
            if p.name == spec.name
        )
        assert rows[spec.name].points == points
        assert rows[spec.name].games == 4
    saved = json.loads((tmp_path / "standings.json").read_text())
    assert [row["name"] for row in saved] == [row.name for row in standings.rows]


def test_the_engine_loop_of_a_spec_follows_its_options() -> None:
    loop = engine_loop(engine_spec("x", "--level", "1", "--rules", "hong-kong", "--seed", "9"))
    assert loop.rules == PRESETS["hong-kong"]
    assert type(loop.player).__name__ == "GreedyPlayer"


def test_a_match_derives_each_deal_secret_only_as_its_game_starts(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    events: list[str] = []
    derive = tournaments.runner.deal_secret_of

    def spy_secret(setup: GameSetup, key: bytes) -> str:
        events.append(f"secret {setup.game_id}")
        return derive(setup, key)

    factory = in_process()

    async def spy_start(spec: EngineSpec, log: TrafficLog | None) -> EngineConnection:
        events.append(f"start {spec.name}")
        return await factory(spec, log)

    monkeypatch.setattr(tournaments.runner, "deal_secret_of", spy_secret)
    specs = (
        engine_spec("a", "--level", "0", "--rules", "casual"),
        engine_spec("b", "--level", "0", "--rules", "casual"),
    )
    records = play(tmp_path, specs, games=4, start_engine=spy_start)
    assert events == [
        event
        for game in ("g0001", "g0002", "g0003", "g0004")
        for event in (f"secret {game}", "start a", "start b")
    ]
    assert records[0].deal_secret == records[1].deal_secret != records[2].deal_secret
    assert "deal_secret" not in GameSetup.model_fields
