"""Time control and the chess clock of one game (monotonic seconds).

The clock is the judge of thinking time: an engine that owes a move loses only when its
clock (or the per-move limit) and the margin have run out. ``idle_limit`` lets an
organiser also end, by ``stall``, a move owed by an engine whose processes use no CPU
for that long (stuck, not thinking); it is off by default.
"""

from pydantic import BaseModel, ConfigDict, Field


class TimeControl(BaseModel):
    """Time per side for the whole game, an increment, an optional per-move limit, the
    margin, and the optional idle limit."""

    model_config = ConfigDict(frozen=True, extra="forbid", allow_inf_nan=False)

    time: float = Field(default=900.0, gt=0, le=86_400, description="Seconds per side.")
    increment: float = Field(default=0.0, ge=0, le=3_600, description="Seconds added per move.")
    move_time: float | None = Field(
        default=None, gt=0, le=86_400, description="Most seconds one genmove may take."
    )
    margin_ms: int = Field(
        default=200, ge=0, le=60_000, description="Grace before a time loss, in ms."
    )
    idle_limit: float | None = Field(
        default=None,
        gt=0,
        le=3_600,
        description="Seconds an engine owing a move may use no CPU before it loses by stall "
        "(default: no limit, only the clock judges).",
    )

    @property
    def time_ms(self) -> int:
        """Seconds per side in milliseconds, as ``time_settings`` sends them."""
        return round(self.time * 1000)

    def describe(self) -> str:
        """Short form like ``900s+0s`` or ``60s+1s, 5s/move, idle 10s``."""
        text = f"{self.time:g}s+{self.increment:g}s"
        if self.move_time is not None:
            text += f", {self.move_time:g}s/move"
        if self.idle_limit is not None:
            text += f", idle {self.idle_limit:g}s"
        return text


class Clock:
    """Both players' remaining time under one time control."""

    def __init__(self, control: TimeControl) -> None:
        self.control = control
        self.remaining = [control.time, control.time]

    def limit(self, player: int) -> float:
        """Seconds ``player`` may use for its next move: its clock, or the per-move limit
        if that is less (the margin not included)."""
        limit = max(0.0, self.remaining[player])
        if self.control.move_time is not None:
            limit = min(limit, self.control.move_time)
        return limit

    def limit_ms(self, player: int) -> int:
        """``limit`` in whole milliseconds, as ``time_left`` tells it before a move."""
        return round(self.limit(player) * 1000)

    def allowance(self, player: int) -> float:
        """Seconds ``player`` may think now before losing on time (margin included)."""
        return self.limit(player) + self.control.margin_ms / 1000

    def left_words(self, player: int) -> str:
        """What ``player`` has for its next move, in words, e.g. ``1.500s left on its clock``
        or ``a 0.500s limit a move, 58.000s left on its clock``."""
        clock = f"{max(0.0, self.remaining[player]):.3f}s left on its clock"
        move_time = self.control.move_time
        if move_time is not None and move_time < self.remaining[player]:
            return f"a {move_time:.3f}s limit a move, {clock}"
        return clock

    def charge(self, player: int, seconds: float) -> bool:
        """Take ``seconds`` off ``player``'s clock; False when that loses on time."""
        within = seconds <= self.allowance(player)
        self.remaining[player] -= seconds
        if within:
            self.remaining[player] = max(0.0, self.remaining[player]) + self.control.increment
        return within

    def remaining_ms(self, player: int) -> int:
        """``player``'s remaining time in whole milliseconds (never negative)."""
        return max(0, round(self.remaining[player] * 1000))
