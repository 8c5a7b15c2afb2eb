"""Time management: a soft target and a hard limit for each move, and when to stop deepening.

A move gets a ``TimeBudget``. On a clock the soft target is the time left over an
estimate of the moves left (``phase_moves``: the moves of the flipping phase, one per
face-down piece, and those of the face-up endgame, more with more pieces on the board),
at most ``MAX_SOFT_SECONDS``, after a reserve for the overhead of every move left
(``MOVE_RESERVE_SECONDS`` each). A move of the flipping phase counts as
``FLIP_PHASE_WEIGHT`` of an endgame move, so the clock keeps time for the face-up
endgame, where depth decides; the hard limit is a safe share of the
time left (``HARD_SHARE``, at most ``HARD_OVER_SOFT`` soft targets and
``MAX_HARD_SECONDS``), and never more than the time left less a margin for the
process's own overhead (reading the command, replaying the game, the pipes):
``OVERHEAD_SECONDS``, or ``OVERHEAD_SHARE`` of the time left on a tiny clock. The margin
caps the hard limit; it is not taken off every move's limit, which would leave a clock
of a few hundred ms unspent while a long endgame is played at 1 ms a move.

Under a per-move limit the driver tells, before each genmove, the least of the clock
and the limit; the time told then does not drop from one move to the next although
the engine used some of it. ``TimeManager`` notices that and spends up to
``PER_MOVE_SHARE`` of such a limit, soft target and hard limit alike. A wrong guess
costs strength, never the game: the next move's time told is lower and it goes back
to the clock rule.

During a search ``IterationControl`` decides after each iteration whether to start
another, and moves the in-tree deadline: it allows more time (up to the hard limit)
while the best move changes between iterations or the score drops, and less once the
best move has been stable for a few iterations (not under a per-move limit, where
time saved is lost).
"""

import time
from dataclasses import dataclass
from typing import Final, Protocol, runtime_checkable

from .game import Game
from .moves import Move
from .position import Position

OVERHEAD_SECONDS: Final = 0.04
"""Seconds a hard limit always leaves on the clock, for the engine process's own overhead."""
OVERHEAD_SHARE: Final = 0.15
"""On a tiny clock the overhead margin is at most this share of the time left."""
HARD_SHARE: Final = 0.2
"""On a clock, one move never takes more than this share of the time left."""
HARD_OVER_SOFT: Final = 6.0
"""On a clock, the hard limit is at most this many soft targets."""
PER_MOVE_SHARE: Final = 0.6
"""Share of a per-move limit a move may take (less the overhead margin)."""
MOVE_RESERVE_SECONDS: Final = 0.005
"""On a clock, this much is kept back for each move likely left: every move costs the
process some time however little it searches, and this keeps enough for the moves left
to be answered at once when the clock runs low."""
MAX_SOFT_SECONDS: Final = 10.0
"""The soft target never exceeds this, however much time is left."""
MAX_HARD_SECONDS: Final = 20.0
"""On a clock, no move takes longer than this, however much time is left."""
MIN_SOFT_SECONDS: Final = 0.005
"""The soft target is at least this (if the hard limit allows), so that a per-move limit
shows itself: time told that does not drop although this much was used."""
DEFAULT_MOVES_LEFT: Final = 30.0
"""Moves left assumed when the position is not known."""
MIN_ENDGAME_MOVES: Final = 20.0
"""Moves of the face-up endgame the side to move has left, at the least."""
PIECE_MOVES: Final = 0.25
"""Endgame moves added per piece still in the game (face up or down)."""
FLIP_MOVES: Final = 1.0
"""Moves of the side to move per face-down piece until the last flip. Self-play games at
10 s a side take about 1.5 (the last flip at ply 96 on average); 1.0 is the value
``banqi sprt`` accepted, and 1.5 was not (no verdict in 214 games, -10 +- 41 Elo)."""
FLIP_PHASE_WEIGHT: Final = 0.7
"""A move while pieces are face down gets this share of the time of an endgame move: the
chance nodes of the flips cut its search short, while the face-up endgame is a
perfect-information game, where depth counts."""

START_SHARE: Final = 0.5
"""No new iteration starts once this share of the adjusted soft target has passed."""
ABORT_OVER_SOFT: Final = 2.0
"""An iteration is cut at this many adjusted soft targets (or the hard limit, if less)."""
CHANGE_DECAY: Final = 0.5
"""Weight of the earlier best-move changes in the instability measure."""
DROP_MARGIN: Final = 2.0
"""A score this much below the last iteration's (a Pawn) counts as a drop."""
DROP_FACTOR: Final = 1.5
STABLE_ITERATIONS: Final = 3
"""The best move unchanged over this many iterations counts as stable."""
STABLE_FACTOR: Final = 0.6
MAX_FACTOR: Final = 3.0
MIN_USED_SECONDS: Final = 0.002
"""A move that used at least this much shows whether the time told drops."""


@dataclass(frozen=True, slots=True)
class TimeBudget:
    """Seconds for one move from the start of its search: a target and a limit."""

    soft: float
    """Time the move should take when the search is calm."""
    hard: float
    """Time the move must never exceed (the search is stopped from inside the tree)."""

    @classmethod
    def fixed(cls, seconds: float) -> "TimeBudget":
        """A budget where the whole time may be spent (a per-move time)."""
        return cls(seconds, seconds)


def overhead_margin(seconds: float) -> float:
    """Seconds kept back for the process's overhead when ``seconds`` are left."""
    return min(OVERHEAD_SECONDS, OVERHEAD_SHARE * seconds)


def phase_moves(pos: Position | None) -> tuple[float, float]:
    """Estimates of the moves the side to move has left: until the last flip, and after it."""
    if pos is None:
        return 0.0, DEFAULT_MOVES_LEFT
    hidden = pos.hidden.bit_count()
    pieces = hidden + (pos.colour_bb[0] | pos.colour_bb[1]).bit_count()
    return FLIP_MOVES * hidden, MIN_ENDGAME_MOVES + PIECE_MOVES * pieces


def clock_budget(
    remaining_ms: int, pos: Position | None = None, *, reserve: float = MOVE_RESERVE_SECONDS
) -> TimeBudget:
    """The budget of one move with ``remaining_ms`` left on the clock for the whole game,
    ``reserve`` seconds kept back for each move likely left."""
    seconds = max(0, remaining_ms) / 1000
    flipping, endgame = phase_moves(pos)
    usable = max(0.0, seconds - reserve * (flipping + endgame))
    weight = FLIP_PHASE_WEIGHT if flipping else 1.0
    target = min(MAX_SOFT_SECONDS, usable * weight / (FLIP_PHASE_WEIGHT * flipping + endgame))
    hard = min(usable * HARD_SHARE, target * HARD_OVER_SOFT, MAX_HARD_SECONDS)
    hard = max(0.0, min(hard, seconds - overhead_margin(seconds)))
    return TimeBudget(min(hard, max(target, MIN_SOFT_SECONDS)), hard)


def per_move_budget(limit_ms: int) -> TimeBudget:
    """The budget of one move under a per-move limit of ``limit_ms``."""
    seconds = max(0, limit_ms) / 1000
    return TimeBudget.fixed(max(0.0, seconds * PER_MOVE_SHARE - overhead_margin(seconds)))


@dataclass(frozen=True, slots=True)
class _Told:
    plies: int
    remaining_ms: int
    used: float


@runtime_checkable
class ClockPlayer(Protocol):
    """A player that budgets its own time from what the driver tells it."""

    def choose_on_clock(self, game: Game, remaining_ms: int | None) -> Move:
        """A legal move, with ``remaining_ms`` told for this move (None: no clock)."""
        ...


class TimeManager:
    """Budgets for the moves of one player on a clock, noticing a per-move limit."""

    def __init__(self) -> None:
        self._last: _Told | None = None

    def budget(self, remaining_ms: int, pos: Position, plies: int) -> TimeBudget:
        """The budget of the move ``plies`` plies into a game with ``remaining_ms`` told."""
        if self.per_move(remaining_ms, plies):
            return per_move_budget(remaining_ms)
        return clock_budget(remaining_ms, pos)

    def per_move(self, remaining_ms: int, plies: int) -> bool:
        """Whether the time told looks like a per-move limit: it did not drop since this
        player's last moves in the same game although they used some."""
        return self._not_dropped(remaining_ms, plies) and (
            self._last is not None and self._last.used >= MIN_USED_SECONDS
        )

    def _not_dropped(self, remaining_ms: int, plies: int) -> bool:
        last = self._last
        return last is not None and plies > last.plies and remaining_ms >= last.remaining_ms - 1

    def record(self, remaining_ms: int, plies: int, used: float) -> None:
        """Remember a move made ``plies`` plies into a game: the time told and the time used.
        While the time told does not drop, the moves' times add up: an engine fast enough
        to use less than ``MIN_USED_SECONDS`` a move still notices a per-move limit."""
        last = self._last
        if last is not None and self._not_dropped(remaining_ms, plies):
            self._last = _Told(plies, last.remaining_ms, last.used + used)
        else:
            self._last = _Told(plies, remaining_ms, used)


class IterationControl:
    """Between iterations: whether to start another, and the deadline inside the tree."""

    def __init__(self, budget: TimeBudget, start: float) -> None:
        self.budget = budget
        self.start = start
        self.factor = 1.0
        self._changes = 0.0
        self._stable = 0
        self._last: tuple[int, float] | None = None

    @property
    def deadline(self) -> float:
        """The clock reading (``time.perf_counter``) at which the search must stop."""
        budget = self.budget
        return self.start + min(budget.hard, budget.soft * self.factor * ABORT_OVER_SOFT)

    def after_iteration(self, move: int, score: float) -> None:
        """Take in an iteration's best move and score; adjust the time factor."""
        last = self._last
        self._last = (move, score)
        if last is None:
            return
        changed = move != last[0]
        self._changes = self._changes * CHANGE_DECAY + changed
        self._stable = 0 if changed else self._stable + 1
        factor = 1.0 + self._changes
        if last[1] - score > DROP_MARGIN:
            factor *= DROP_FACTOR
        elif self._stable >= STABLE_ITERATIONS and self.budget.soft < self.budget.hard:
            factor *= STABLE_FACTOR
        self.factor = min(MAX_FACTOR, factor)

    def start_next(self, now: float | None = None) -> bool:
        """Whether another iteration should start (``now`` defaults to the clock)."""
        now = time.perf_counter() if now is None else now
        budget = self.budget
        return now - self.start < min(budget.hard, budget.soft * self.factor) * START_SHARE
