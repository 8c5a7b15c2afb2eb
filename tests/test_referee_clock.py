"""The referee's clock in real games: thinking time is charged, and the grace margin counts."""

import re
import time
from pathlib import Path

import pytest
from in_process_engines import engine_spec, in_process
from referee_fakes import Fake, play, survivors, write_fake

from protocol.errors import FLUSH_HINT
from referee.reasons import Reason
from referee.record import GameRecord
from referee.storage import traffic_path
from referee.timecontrol import TimeControl

THINKS = """
def on_genmove(i, words):
    if genmoves >= 3:
        reply(i, "a0 a0")
        return
    time.sleep(0.3)
    reply(i, choose(words[2]))
"""
"""Thinks 0.3 s over each of its first two genmoves, then resigns at once."""

SLACK_MS = 1500
"""How much longer than its sleep a genmove may take on a loaded machine."""


def clocks_before(record: GameRecord, index: int) -> tuple[int, int]:
    if index == 0:
        start = record.time_control.time_ms
        return start, start
    return record.plies[index - 1].clocks_ms


def test_each_genmove_is_charged_to_the_mover_and_sent_in_time_left(
    tmp_path: Path, fakes: list[Fake]
) -> None:
    thinker = write_fake(tmp_path / "engines", "thinker", THINKS)
    quick = write_fake(tmp_path / "engines", "quick")
    fakes += [thinker, quick]
    out = tmp_path / "run"
    [record] = play(
        out, (thinker.spec(), quick.spec()), time_control=TimeControl(time=60), log_traffic=True
    )

    assert (record.reason, record.winner, record.first) == (Reason.RESIGN, 1, 0)
    assert [p.player for p in record.plies] == [0, 1, 0, 1]
    for index, ply in enumerate(record.plies):
        before, after = clocks_before(record, index), ply.clocks_ms
        mover, other = ply.player, 1 - ply.player
        drop = before[mover] - after[mover]
        assert after[other] == before[other], (index, before, after)
        assert abs(drop - ply.ms) <= 1, (index, drop, ply.ms)
        if mover == 0:
            assert 300 <= ply.ms <= 300 + SLACK_MS, (index, ply.ms)
            assert 300 <= drop <= 300 + SLACK_MS, (index, drop)
        else:
            assert ply.ms < SLACK_MS, (index, ply.ms)
    assert record.plies[-1].clocks_ms[0] <= 60_000 - 600

    # After each ply both engines hear the mover's charged clock in time_left.
    colours = {0: record.players[0].colour, 1: record.players[1].colour}
    expected = [f"16 time_left {colours[p.player]} {p.clocks_ms[p.player]}" for p in record.plies]
    transcript = traffic_path(out, record.game_id).read_text(encoding="utf-8").splitlines()
    for name in ("thinker", "quick"):
        sent = [line.split("> ", 1)[1] for line in transcript if f"[{name}] > 16 " in line]
        assert sent == expected, name
    assert survivors([*thinker.pids(), *quick.pids()]) == []


def late_by(seconds: float, genmoves: int) -> str:
    """A fake that answers its first ``genmoves`` genmoves after ``seconds``, then resigns."""
    return f"""
def on_genmove(i, words):
    if genmoves > {genmoves}:
        reply(i, "a0 a0")
        return
    time.sleep({seconds})
    reply(i, choose(words[2]))
"""


MARGIN = TimeControl(time=60, move_time=0.2, margin_ms=600)
"""0.8 s allowed per move: 0.2 s and the 0.6 s margin (0.2 s without it, 6.2 s at ten times it)."""


def test_a_move_within_the_margin_is_not_a_time_loss(tmp_path: Path, fakes: list[Fake]) -> None:
    late = write_fake(tmp_path / "engines", "late", late_by(0.5, 2))
    quick = write_fake(tmp_path / "engines", "quick")
    fakes += [late, quick]
    [record] = play(tmp_path / "run", (late.spec(), quick.spec()), time_control=MARGIN)

    assert (record.reason, record.winner) == (Reason.RESIGN, 1), record.detail
    late_plies = [p for p in record.plies if p.player == 0]
    assert len(late_plies) == 2
    for ply in late_plies:
        assert ply.ms >= 500  # over the 0.2 s per move, under the 0.8 s allowed


def test_a_move_beyond_the_margin_loses_on_time(tmp_path: Path, fakes: list[Fake]) -> None:
    slow = write_fake(tmp_path / "engines", "slow", late_by(1.3, 1))
    quick = write_fake(tmp_path / "engines", "quick")
    fakes += [slow, quick]
    [record] = play(tmp_path / "run", (slow.spec(), quick.spec()), time_control=MARGIN)

    assert (record.reason, record.winner, record.plies) == (Reason.TIME_FORFEIT, 1, [])
    assert survivors([*slow.pids(), *quick.pids()]) == []


@pytest.mark.parametrize(
    ("stall_timeout", "stopped"), [(2.0, False), (0.5, True)], ids=["late", "silent"]
)
def test_a_late_move_loses_on_time_and_only_silence_counts_as_failing(
    tmp_path: Path, fakes: list[Fake], stall_timeout: float, stopped: bool
) -> None:
    """The engine moves 1.2 s into a 0.3 s allowance: within the stall timeout after the
    allowance, that is a time loss of an engine still answering; beyond it, one that
    stopped answering. Either way the detail says how long it took and what it had."""
    slow = write_fake(tmp_path / "engines", "slow", late_by(1.2, 1))
    quick = write_fake(tmp_path / "engines", "quick")
    fakes += [slow, quick]
    started = time.monotonic()
    [record] = play(
        tmp_path / "run",
        (slow.spec(), quick.spec()),
        time_control=TimeControl(time=60, move_time=0.2, margin_ms=100),
        stall_timeout=stall_timeout,
    )
    waited = time.monotonic() - started

    assert (record.reason, record.winner) == (Reason.TIME_FORFEIT, 1)
    assert record.stopped_answering is stopped
    assert record.loser_failed is stopped
    if stopped:
        assert record.detail == (
            "no move within the 0.300s allowed (a 0.200s limit a move, 60.000s left on its "
            "clock, and the margin), nor in the 0.5s after; " + FLUSH_HINT
        )
        assert waited < 2.5
    else:
        assert re.fullmatch(
            r"moved after 1\.\d{3}s with a 0\.200s limit a move, 60\.000s left on its clock: "
            r"0\.300s allowed with the margin",
            record.detail,
        )
    assert survivors([*slow.pids(), *quick.pids()]) == []


def test_an_engine_that_uses_no_cpu_within_its_clock_is_not_stalled(
    tmp_path: Path, fakes: list[Fake]
) -> None:
    """The clock is the judge: sleeping 1 s of a 60 s clock is the engine's own business,
    however short the stall timeout (without an idle limit)."""
    sleeper = write_fake(tmp_path / "engines", "sleeper", late_by(1.0, 1))
    quick = write_fake(tmp_path / "engines", "quick")
    fakes += [sleeper, quick]
    [record] = play(
        tmp_path / "run",
        (sleeper.spec(), quick.spec()),
        time_control=TimeControl(time=60),
        stall_timeout=0.3,
    )
    assert (record.reason, record.winner) == (Reason.RESIGN, 1), record.detail
    assert record.plies[0].ms >= 1000
    assert survivors([*sleeper.pids(), *quick.pids()]) == []


def test_the_mover_hears_its_move_limit_in_time_left_before_each_genmove(
    tmp_path: Path, fakes: list[Fake]
) -> None:
    """Before every genmove under a per-move limit, ``time_left`` for the mover's colour (both
    colours while undecided) says min(its clock, the limit): 600 ms, then its clock once that
    is less."""
    thinker = write_fake(tmp_path / "engines", "thinker", THINKS)
    quick = write_fake(tmp_path / "engines", "quick")
    fakes += [thinker, quick]
    out = tmp_path / "run"
    control = TimeControl(time=1.0, move_time=0.6, margin_ms=300)
    [record] = play(out, (thinker.spec(), quick.spec()), time_control=control, log_traffic=True)

    assert (record.reason, record.winner, len(record.plies)) == (Reason.RESIGN, 1, 4)
    transcript = traffic_path(out, record.game_id).read_text(encoding="utf-8").splitlines()
    sent = {
        name: [line.split("> ", 1)[1] for line in transcript if f"[{name}] > " in line]
        for name in ("thinker", "quick")
    }
    names = [p.name for p in record.players]
    colours = [p.colour for p in record.players]
    for index in range(len(record.plies) + 1):  # the last genmove is the resignation
        mover = record.plies[index].player if index < len(record.plies) else 0
        limit = min(clocks_before(record, index)[mover], 600)
        told = ["red", "black"] if index == 0 else [colours[mover]]
        commands = sent[names[mover]]
        genmove = [i for i, c in enumerate(commands) if c.startswith("12 genmove")][index // 2]
        assert commands[genmove - len(told) : genmove] == [
            f"16 time_left {colour} {limit}" for colour in told
        ], index
    assert clocks_before(record, 4)[0] < 600  # the clock, not the limit, in the last one


def test_our_engine_keeps_within_a_move_limit(tmp_path: Path) -> None:
    """The full search budgets from the latest time_left, so a 0.3 s limit with 60 s on the
    clock is no time loss (it was, when the engine budgeted a thirtieth of its clock)."""
    specs = (engine_spec("search", "--level", "3"), engine_spec("random", "--level", "0"))
    records = play(
        tmp_path / "run",
        specs,
        games=2,
        rules="olympiad",
        time_control=TimeControl(time=60, move_time=0.3),
        start_engine=in_process(),
    )
    assert [r.reason.is_board_end for r in records] == [True, True], [r.detail for r in records]
    assert max(p.ms for r in records for p in r.plies) < 300
