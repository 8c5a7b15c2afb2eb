"""Time management: budgets, the per-move limit, iteration control, and no time losses."""

import queue
import random
import re
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any, ClassVar

import pytest
from game_drivers import play_shown

from banqi_engine import search_player
from banqi_engine.game import Game
from banqi_engine.layout import random_layout
from banqi_engine.pieces import COLOUR_NAMES, UNDECIDED
from banqi_engine.players import RandomPlayer, make_player
from banqi_engine.position import Position, parse_position
from banqi_engine.rules import PRESETS
from banqi_engine.search import Searcher
from banqi_engine.search_player import SearchPlayer
from banqi_engine.time_manager import (
    HARD_SHARE,
    MAX_HARD_SECONDS,
    MAX_SOFT_SECONDS,
    MIN_USED_SECONDS,
    MOVE_RESERVE_SECONDS,
    OVERHEAD_SECONDS,
    PER_MOVE_SHARE,
    ClockPlayer,
    IterationControl,
    TimeBudget,
    TimeManager,
    clock_budget,
    overhead_margin,
    per_move_budget,
    phase_moves,
)
from protocol.engine_loop import DctpEngine, genmove_budget
from protocol.messages import Command, parse_genmove_payload, parse_reply_line

OLYMPIAD = PRESETS["olympiad"]
MIDGAME = "XpXn/XpG-/Xn-X/XXX-/XX-P/-XK-/NXXX/C--C b 01220021111012 3 40"
ENGINE = Path(sys.executable).parent / "banqi-engine"
ROOT = Path(__file__).resolve().parent.parent
SLACK = 0.25
"""Seconds a move may run over its hard limit in these tests (a loaded machine)."""
GRACE = 0.1
"""The clock's grace before a time loss in these games: the referee's default margin is
0.2 s; half of it absorbs a busy test machine's scheduling delays, not the engine's."""


@pytest.mark.parametrize("remaining_ms", [0, 1, 20, 100, 500, 2_000, 30_000, 900_000, 10**8])
def test_clock_budget_is_within_the_clock(remaining_ms: int) -> None:
    seconds = remaining_ms / 1000
    for pos in (None, Position.opening(), parse_position(MIDGAME)):
        budget = clock_budget(remaining_ms, pos)
        assert 0.0 <= budget.soft <= budget.hard <= seconds * HARD_SHARE
        assert budget.soft <= MAX_SOFT_SECONDS
        assert budget.hard <= seconds - overhead_margin(seconds)


def test_a_long_endgame_spends_the_clock_down_to_the_reserve() -> None:
    """150 moves of a face-up endgame, each using its soft target and 1 ms more: the clock
    never runs out, every move while a few hundred ms are left gets a search of its own,
    and what is left at the end is about the reserve, not a few hundred ms unspent."""
    pos = parse_position("K---/-G--/--M-/---k/-g--/----/---R/---- r 00000000000000")
    reserve = MOVE_RESERVE_SECONDS * sum(phase_moves(pos))
    remaining = 3.0
    for _ in range(150):
        budget = clock_budget(round(remaining * 1000), pos)
        if remaining > 2 * reserve + OVERHEAD_SECONDS:
            assert budget.soft >= 0.001, remaining
        remaining -= budget.soft + 0.001
        assert remaining > 0
    assert remaining < 2 * reserve


def test_more_time_early_than_late_and_for_more_clock() -> None:
    opening, endgame = (
        Position.opening(),
        parse_position("K---/----/----/---k/----/----/----/---- r 00000000000000"),
    )
    assert sum(phase_moves(opening)) > sum(phase_moves(endgame))
    assert clock_budget(60_000, opening).soft < clock_budget(60_000, endgame).soft
    assert clock_budget(10_000).soft < clock_budget(20_000).soft


def test_the_flipping_phase_keeps_time_for_the_face_up_endgame() -> None:
    """A move while pieces are face down gets less than one with as many pieces all face
    up, and less than an even share of the clock over all the moves left."""
    face_down = parse_position("XXXX/XXXX/XXXX/XXXX/KXXX/XXXX/XXXX/XXXk r 02222250222225")
    face_up = parse_position("KGGM/MRRN/NCCP/PPPP/kggm/mrrn/nccp/pppp r 00000000000000")
    assert phase_moves(face_down)[0] > 0 == phase_moves(face_up)[0]
    assert sum(phase_moves(face_down)) > sum(phase_moves(face_up))
    assert clock_budget(60_000, face_down).soft < clock_budget(60_000, face_up).soft
    for pos in (Position.opening(), face_down, parse_position(MIDGAME)):
        assert clock_budget(60_000, pos).soft < 60.0 / sum(phase_moves(pos)) * 0.9


def test_plain_players_get_the_soft_target() -> None:
    assert genmove_budget(None) is None
    plain = genmove_budget(3000)
    assert plain == pytest.approx(clock_budget(3000, reserve=0.0).soft)
    assert plain is not None and clock_budget(3000).soft < plain
    assert genmove_budget(-5) == 0.0


@pytest.mark.parametrize("limit_ms", [0, 30, 100, 1000, 60_000])
def test_per_move_budget_is_within_the_limit(limit_ms: int) -> None:
    budget = per_move_budget(limit_ms)
    assert budget.soft == budget.hard
    assert 0.0 <= budget.hard <= limit_ms / 1000 * PER_MOVE_SHARE


def test_a_per_move_limit_is_noticed_and_a_clock_is_not() -> None:
    pos = parse_position(MIDGAME)
    manager = TimeManager()
    assert manager.budget(100, pos, 10) == clock_budget(100, pos)
    manager.record(100, 10, 0.05)
    assert manager.budget(100, pos, 12) == per_move_budget(100)
    manager.record(100, 12, 0.05)
    # the time told drops: a clock after all (or the clock is below the limit now)
    assert manager.budget(60, pos, 14) == clock_budget(60, pos)
    # a new game (fewer plies) starts from the clock rule
    manager.record(100, 14, 0.05)
    assert manager.budget(100, pos, 2) == clock_budget(100, pos)
    # a move that used almost nothing tells nothing
    manager.record(100, 2, 0.0)
    assert manager.budget(100, pos, 4) == clock_budget(100, pos)


def test_a_fast_engine_notices_a_per_move_limit_over_a_few_moves() -> None:
    pos = parse_position(MIDGAME)
    manager = TimeManager()
    manager.record(300, 0, MIN_USED_SECONDS * 0.6)
    assert manager.budget(300, pos, 2) == clock_budget(300, pos)
    manager.record(300, 2, MIN_USED_SECONDS * 0.6)
    assert manager.budget(300, pos, 4) == per_move_budget(300)
    # a real clock drops once the moves' time adds up: the clock rule again
    manager.record(300, 4, MIN_USED_SECONDS * 0.6)
    assert manager.budget(297, pos, 6) == clock_budget(297, pos)


def test_instability_gives_more_time_and_stability_less() -> None:
    budget = TimeBudget(1.0, 5.0)
    stable = IterationControl(budget, 0.0)
    unstable = IterationControl(budget, 0.0)
    dropping = IterationControl(budget, 0.0)
    for depth in range(6):
        stable.after_iteration(7, 1.0)
        unstable.after_iteration(depth, 1.0)
        dropping.after_iteration(7, 10.0 - 3 * depth)
    assert stable.factor < 1.0 < dropping.factor < unstable.factor
    assert stable.deadline < dropping.deadline < unstable.deadline <= budget.hard
    assert stable.start_next(0.2) and not stable.start_next(0.4)
    assert unstable.start_next(0.9)
    # a per-move budget (soft = hard) is never cut short for stability
    fixed = IterationControl(TimeBudget.fixed(1.0), 0.0)
    for _ in range(6):
        fixed.after_iteration(7, 1.0)
    assert fixed.factor == 1.0 and fixed.deadline == 1.0


def test_the_search_player_is_a_clock_player() -> None:
    assert isinstance(SearchPlayer(OLYMPIAD, 0), ClockPlayer)
    assert not isinstance(RandomPlayer(0), ClockPlayer)


def genmove_seconds(engine: DctpEngine, remaining_ms: int, layout: list[int]) -> float:
    """Tell ``remaining_ms`` to the side to move, ask a genmove, play it; its seconds."""
    side = engine.game.side
    colour = "unknown" if side == UNDECIDED else COLOUR_NAMES[side]
    for word in ("red", "black"):
        engine.handle_line(f"16 time_left {word} {remaining_ms}")
    start = time.perf_counter()
    reply = engine.handle_line(f"12 genmove {colour}")
    elapsed = time.perf_counter() - start
    assert reply is not None and reply.ok, reply
    move = parse_genmove_payload(reply.payload).move
    assert move is not None
    engine.game.play(move, engine.game.piece_shown(move, layout))
    return elapsed


def test_hard_limit_holds_over_many_genmoves_with_random_clocks() -> None:
    rng = random.Random(3)
    engine = DctpEngine(OLYMPIAD, make_player(3, 0, OLYMPIAD))
    layout = random_layout(rng)
    remaining = 3000
    for _ in range(30):
        if engine.game.outcome is not None:
            break
        remaining = rng.randrange(remaining // 2, remaining) if remaining > 40 else 0
        pos = engine.game.position.copy()
        elapsed = genmove_seconds(engine, remaining, layout)
        assert elapsed <= clock_budget(remaining, pos).hard + SLACK, (remaining, elapsed)


PER_MOVE_MS = 1_000
"""A per-move limit the clock rule already spends a few ms of, so that the time told not
dropping shows: under limits far below a second the engine keeps to the clock rule."""


def test_a_per_move_limit_is_used_but_not_exceeded() -> None:
    rng = random.Random(4)
    engine = DctpEngine(OLYMPIAD, make_player(3, 0, OLYMPIAD))
    layout = random_layout(rng)
    for _ in range(8):
        if engine.game.outcome is not None:
            break
        elapsed = genmove_seconds(engine, PER_MOVE_MS, layout)
        assert elapsed <= per_move_budget(PER_MOVE_MS).hard + SLACK
    player = engine.player
    assert isinstance(player, SearchPlayer) and player.last is not None
    assert player.time_manager.per_move(PER_MOVE_MS, len(engine.game.plies))


class _Engine:
    """The engine executable on pipes, its replies read on a thread."""

    def __init__(self) -> None:
        self.process = subprocess.Popen(
            [str(ENGINE)], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE
        )
        self.lines: queue.Queue[bytes] = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        assert self.process.stdout is not None
        for line in self.process.stdout:
            self.lines.put(line)

    def ask(self, command: Command) -> tuple[str, float]:
        """The reply's payload and the seconds from sending to reading it."""
        assert self.process.stdin is not None
        start = time.monotonic()
        self.process.stdin.write(command.line().encode() + b"\n")
        self.process.stdin.flush()
        reply = parse_reply_line(self.lines.get(timeout=30).decode("ascii"))
        elapsed = time.monotonic() - start
        assert reply is not None and reply.ok and reply.id == command.id, (command, reply)
        return reply.payload, elapsed

    def close(self) -> None:
        assert self.process.stdin is not None
        self.process.stdin.close()
        self.process.wait(timeout=30)


def play_on_a_clock(seed: int, total_ms: int, move_ms: int | None) -> tuple[Game, list[float]]:
    """A game of the engine process against a random player, judged on a real clock
    (``GRACE`` its only margin); the engine's clock after each of its moves."""
    rules = OLYMPIAD
    layout = random_layout(random.Random(seed))
    game = Game(rules)
    opponent = RandomPlayer(seed)
    engine = _Engine()
    clock = total_ms / 1000
    left: list[float] = []
    try:
        engine.ask(Command.time_settings(total_ms))
        engine_turn = seed % 2 == 0
        while game.outcome is None and len(game.plies) < 400:
            mover = game.side
            if engine_turn:
                colour = "unknown" if mover == UNDECIDED else COLOUR_NAMES[mover]
                if move_ms is not None:
                    told = round(min(clock, move_ms / 1000) * 1000)
                    for word in ("red", "black") if mover == UNDECIDED else (colour,):
                        engine.ask(Command.time_left(word, told))
                payload, elapsed = engine.ask(Command.genmove(colour))
                allowed = (clock if move_ms is None else min(clock, move_ms / 1000)) + GRACE
                assert elapsed <= allowed, f"lost on time: {elapsed:.3f}s, {allowed:.3f}s allowed"
                clock -= elapsed
                left.append(clock)
                move = parse_genmove_payload(payload).move
                assert move is not None and move in game.legal_moves()
            else:
                move = opponent.choose(game, None)
            echo, mover = play_shown(game, move, layout)
            engine.ask(echo)
            if engine_turn:
                engine.ask(Command.time_left(mover, max(0, round(clock * 1000))))
            engine_turn = not engine_turn
    finally:
        engine.close()
    return game, left


@pytest.mark.parametrize("seed", [1, 2])
def test_no_time_loss_on_a_two_second_clock(seed: int) -> None:
    game, left = play_on_a_clock(seed, 2000, None)
    assert left and min(left) > -GRACE
    assert game.outcome is not None or len(game.plies) >= 400


def test_no_time_loss_under_a_tenth_of_a_second_a_move() -> None:
    game, left = play_on_a_clock(3, 900_000, 100)
    assert len(left) > 5
    assert game.outcome is not None or len(game.plies) >= 400


DOCUMENTED_HARD_SHARE = re.compile(r"a hard limit of the least of (\d+)% of the usable time")
"""Where the manual says how much of its clock one move may take (docs/engine.md)."""
FEW_PIECES = (
    "X---/----/-K--/----/----/--k-/----/---X r 00000010000001 0 60",
    "XX--/----/--G-/----/-p--/----/----/--XX b 10000000000111 4 80",
    "R---/----/-K--/-n--/----/--k-/p---/---C r 00000000000000 0 60",
)
"""Positions with few moves likely left, where the share of the clock is what binds."""


class Planned(Exception):
    """The search was given its budget: the move need not be searched."""


class PlanningSearcher:
    """A searcher that keeps the budget each search is given, then stops with Planned
    (the engine's ``Searcher`` is a C-level class in the compiled build: its methods cannot
    be patched, so the player is given this one in its place)."""

    given: ClassVar[list[TimeBudget]] = []

    def __init__(self, *args: Any) -> None:
        self.real = Searcher(*args)
        self.rules = self.real.rules

    def prepare_tables(self, pos: Position, seconds: float) -> bool:
        return self.real.prepare_tables(pos, seconds)

    def search(self, pos: Position, rng: random.Random, **options: Any) -> None:
        self.given.append(options["budget"])
        raise Planned


@pytest.mark.parametrize("remaining_ms", [5_000, 10_000, 30_000, 60_000, 300_000])
def test_the_engine_never_plans_more_than_the_documented_share_of_its_clock(
    remaining_ms: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The budget the search is given, as the player makes it on a clock: its hard limit
    is within the manual's share of the time left, and that share is what binds where few
    moves are left."""
    found = DOCUMENTED_HARD_SHARE.search((ROOT / "docs" / "engine.md").read_text())
    assert found is not None
    share = int(found.group(1)) / 100
    given: list[TimeBudget] = []
    monkeypatch.setattr(PlanningSearcher, "given", given)
    monkeypatch.setattr(search_player, "Searcher", PlanningSearcher)
    seconds = remaining_ms / 1000
    for text in (*FEW_PIECES, MIDGAME):
        player = SearchPlayer(OLYMPIAD, 0)
        with pytest.raises(Planned):
            player.choose_on_clock(Game(OLYMPIAD, parse_position(text)), remaining_ms)
        assert 0 < given[-1].soft <= given[-1].hard <= share * seconds, (text, given[-1])
    if seconds * share < MAX_HARD_SECONDS:  # else the cap of a move binds
        assert max(budget.hard for budget in given) > 0.8 * share * seconds
