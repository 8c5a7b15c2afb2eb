"""Time control and the chess clock of one game (monotonic seconds)."""

from pydantic import BaseModel, ConfigDict, Field


class TimeControl(BaseModel):
    """Time per side for the whole game, an increment, an optional per-move limit."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    time: float = Field(default=900.0, gt=0, le=86_400, description="Seconds per side.")
    increment: float = Field(default=0.0, ge=0, le=3_600, description="Seconds added per move.")
    move_time: float | None = Field(
        default=None, gt=0, le=86_400, description="Most seconds one genmove may take."
    )
    margin_ms: int = Field(
        default=200, ge=0, le=60_000, description="Grace before a time loss, in ms."
    )

    @property
    def time_ms(self) -> int:
        """Seconds per side in milliseconds, as ``time_settings`` sends them."""
        return round(self.time * 1000)

    def describe(self) -> str:
        """Short form like ``900s+0s`` or ``60s+1s, 5s/move``."""
        text = f"{self.time:g}s+{self.increment:g}s"
        if self.move_time is not None:
            text += f", {self.move_time:g}s/move"
        return text


class Clock:
    """Both players' remaining time under one time control."""

    def __init__(self, control: TimeControl) -> None:
        self.control = control
        self.remaining = [control.time, control.time]

    def allowance(self, player: int) -> float:
        """Seconds ``player`` may think now before losing on time (margin included)."""
        limit = self.remaining[player]
        if self.control.move_time is not None:
            limit = min(limit, self.control.move_time)
        return max(0.0, limit) + self.control.margin_ms / 1000

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
