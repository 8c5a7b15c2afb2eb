"""A game in which both engines fail at once is void: no winner, no points, both faults named."""

import asyncio
from pathlib import Path

from in_process_engines import engine_spec, in_process
from referee_fakes import Fake, survivors, write_fake

from banqi_engine.rules import PRESETS
from protocol.connection import EngineConnection
from protocol.errors import FLUSH_HINT
from protocol.line_protocol import TrafficLog
from referee.engine_spec import EngineSpec
from referee.engine_start import EngineFactory, start_engine_process
from referee.game_runner import play_game
from referee.game_setup import GameSetup
from referee.reasons import Reason
from referee.record import GameRecord
from referee.timecontrol import TimeControl

SECRET = "ab" * 32


def play_one(
    specs: tuple[EngineSpec, EngineSpec], start_engine: EngineFactory, stall_timeout: float = 2.0
) -> GameRecord:
    setup = GameSetup(
        game_id="g1",
        players=specs,
        first=0,
        deal="0",
        seed=1,
        rules=PRESETS["casual"],
        time_control=TimeControl(time=60),
        stall_timeout=stall_timeout,
    )
    return asyncio.run(play_game(setup, SECRET, start_engine=start_engine)).record


def assert_void(record: GameRecord) -> None:
    assert record.void
    assert record.winner is None
    assert record.score == "void"
    assert (record.points(0), record.points(1)) == (0.0, 0.0)
    assert GameRecord.model_validate_json(record.model_dump_json()) == record


def starts_only(name: str) -> EngineFactory:
    """A factory that starts ``name`` in-process and fails to start any other engine."""
    start_ours = in_process()

    async def start(spec: EngineSpec, log: TrafficLog | None) -> EngineConnection:
        if spec.name != name:
            raise OSError(f"no program for {spec.name}")
        return await start_ours(spec, log)

    return start


def test_neither_engine_starting_is_void_not_a_loss_of_the_first() -> None:
    record = play_one((engine_spec("alpha"), engine_spec("beta")), starts_only("nobody"))
    assert_void(record)
    assert record.reason is Reason.CRASH
    assert record.result == "void: neither engine started (alpha crashed; beta crashed)"
    assert record.detail == (
        "alpha: could not start: no program for alpha; beta: could not start: no program for beta"
    )
    assert record.plies == []


def test_one_engine_not_starting_loses_as_before() -> None:
    record = play_one((engine_spec("alpha"), engine_spec("beta")), starts_only("alpha"))
    assert not record.void
    assert (record.winner, record.reason) == (0, Reason.CRASH)
    assert record.result == "alpha wins: beta crashed"


HANG_AT_START = """
plain_answer = answer


def answer(i, words):
    if i == 7:
        time.sleep(60)
    plain_answer(i, words)
"""

EXIT_ON_FIRST_ECHO = """
def on_echo(i, words):
    os._exit(0)
"""


def test_both_engines_silent_at_the_start_is_void_and_both_are_ended(
    tmp_path: Path, fakes: list[Fake]
) -> None:
    first = write_fake(tmp_path, "first", HANG_AT_START)
    second = write_fake(tmp_path, "second", HANG_AT_START)
    fakes += [first, second]
    record = play_one((first.spec(), second.spec()), start_engine_process, stall_timeout=0.5)
    assert_void(record)
    assert (record.reason, record.stopped_answering) == (Reason.STALL, True)
    assert record.result == (
        "void: neither engine answered the start of the game "
        "(first stopped answering; second stopped answering)"
    )
    assert record.detail == (
        f"first: no reply to '7 reset_board' within 0.5s; {FLUSH_HINT}; "
        f"second: no reply to '7 reset_board' within 0.5s; {FLUSH_HINT}"
    )
    assert survivors([*first.pids(), *second.pids()]) == []


def test_both_engines_crashing_on_an_echo_is_void(tmp_path: Path, fakes: list[Fake]) -> None:
    first = write_fake(tmp_path, "first", EXIT_ON_FIRST_ECHO)
    second = write_fake(tmp_path, "second", EXIT_ON_FIRST_ECHO)
    fakes += [first, second]
    record = play_one((first.spec(), second.spec()), start_engine_process)
    assert_void(record)
    assert record.reason is Reason.CRASH
    assert record.result.startswith("void: both engines failed after a ply (")
    assert record.end_ply == len(record.plies) == 1
    assert survivors([*first.pids(), *second.pids()]) == []
