"""Time control and the chess clock of one game (monotonic seconds).

The clock is the judge of thinking time: an engine that owes a move loses only when its
clock (or the per-move limit) and the margin have run out. ``idle_limit`` lets an
organiser also end, by ``stall``, a move owed by an engine whose processes use no CPU
for that long (stuck, not thinking); it is off by default.

Each side may have a time control of its own (time odds): a ``TimeOverride`` laid over
the game's gives it, and the ``Clock`` runs each side's clock by its own control.
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


class TimeOverride(BaseModel):
    """Some fields of a time control, laid over another one: an engine's own time in a
    tournament. A field left out (None) is the other control's; its bounds are
    ``TimeControl``'s."""

    model_config = ConfigDict(frozen=True, extra="forbid", allow_inf_nan=False)

    time: float | None = Field(default=None, gt=0, le=86_400)
    increment: float | None = Field(default=None, ge=0, le=3_600)
    move_time: float | None = Field(default=None, gt=0, le=86_400)
    margin_ms: int | None = Field(default=None, ge=0, le=60_000)
    idle_limit: float | None = Field(default=None, gt=0, le=3_600)

    def over(self, base: TimeControl) -> TimeControl:
        """``base`` with the fields this override sets."""
        return base.model_copy(update=self.model_dump(exclude_none=True))


class Clock:
    """Both players' remaining time, each under its own time control."""

    def __init__(self, controls: tuple[TimeControl, TimeControl]) -> None:
        self.controls = controls
        self.remaining = [controls[0].time, controls[1].time]

    def limit(self, player: int) -> float:
        """Seconds ``player`` may use for its next move: its clock, or its per-move limit
        if that is less (the margin not included)."""
        limit = max(0.0, self.remaining[player])
        move_time = self.controls[player].move_time
        if move_time is not None:
            limit = min(limit, move_time)
        return limit

    def limit_ms(self, player: int) -> int:
        """``limit`` in whole milliseconds, as ``time_left`` tells it before a move."""
        return round(self.limit(player) * 1000)

    def allowance(self, player: int) -> float:
        """Seconds ``player`` may think now before losing on time (its margin included)."""
        return self.limit(player) + self.controls[player].margin_ms / 1000

    def left_words(self, player: int) -> str:
        """What ``player`` has for its next move, in words, e.g. ``1.500s left on its clock``
        or ``a 0.500s limit a move, 58.000s left on its clock``."""
        clock = f"{max(0.0, self.remaining[player]):.3f}s left on its clock"
        move_time = self.controls[player].move_time
        if move_time is not None and move_time < self.remaining[player]:
            return f"a {move_time:.3f}s limit a move, {clock}"
        return clock

    def charge(self, player: int, seconds: float) -> bool:
        """Take ``seconds`` off ``player``'s clock; False when that loses on time."""
        within = seconds <= self.allowance(player)
        self.remaining[player] -= seconds
        if within:
            increment = self.controls[player].increment
            self.remaining[player] = max(0.0, self.remaining[player]) + increment
        return within

    def remaining_ms(self, player: int) -> int:
        """``player``'s remaining time in whole milliseconds (never negative)."""
        return max(0, round(self.remaining[player] * 1000))
