"""How far behind the games spectators are kept (``banqi serve --spectator-delay``).

A delay in plies shows a game being played without its last N plies; a delay in seconds
shows the plies played at least that long ago, and a game's end (its record, its result,
the standings with it) once it ended that long ago. The time a ply was played is taken as
the live view's last update less the thinking time of the plies after it: the referee's
own time between plies is not counted, so a ply is dated later than it was played, never
earlier, and shown late rather than early.
"""

import re
from collections.abc import Sequence
from datetime import datetime, timedelta
from typing import Final

from pydantic import BaseModel, ConfigDict, Field, model_validator

from banqi_common.errors import InputError
from referee.record import PlyRecord

_DELAY: Final = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*(s|sec|seconds?|p|ply|plies)\s*$", re.I)
MAX_DELAY_SECONDS: Final = 3600.0
MAX_DELAY_PLIES: Final = 1000


class DelayError(InputError):
    """A delay that is not ``N s`` or ``N plies`` within bounds."""


class SpectatorDelay(BaseModel):
    """Plies or seconds behind (neither: none)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    plies: int | None = Field(default=None, ge=1, le=MAX_DELAY_PLIES)
    seconds: float | None = Field(default=None, gt=0, le=MAX_DELAY_SECONDS)

    @model_validator(mode="after")
    def _one_unit(self) -> "SpectatorDelay":
        if self.plies is not None and self.seconds is not None:
            raise ValueError("a delay is in plies or in seconds, not both")
        return self

    def words(self) -> str:
        """``30 s``, ``4 plies``, or ``none``."""
        if self.seconds is not None:
            return f"{self.seconds:g} s"
        if self.plies is not None:
            return f"{self.plies} {'ply' if self.plies == 1 else 'plies'}"
        return "none"

    def shown_plies(self, plies: Sequence[PlyRecord], updated_at: datetime, now: datetime) -> int:
        """How many of a game's ``plies`` (its view last updated at ``updated_at``) spectators
        see at ``now``."""
        if self.plies is not None:
            return max(0, len(plies) - self.plies)
        if self.seconds is None:
            return len(plies)
        cutoff = now - timedelta(seconds=self.seconds)
        played_at = updated_at
        shown = len(plies)
        while shown and played_at > cutoff:
            played_at -= timedelta(milliseconds=plies[shown - 1].ms)
            shown -= 1
        return shown

    def end_shown(self, finished_at: datetime, now: datetime) -> bool:
        """Whether a game that ended at ``finished_at`` is shown as ended at ``now`` (with a
        delay in plies, at once: an ended game has nothing left to relay)."""
        if self.seconds is None:
            return True
        return finished_at <= now - timedelta(seconds=self.seconds)


NO_DELAY: Final = SpectatorDelay()


def parse_delay(text: str) -> SpectatorDelay:
    """``30s``, ``2.5 s``, ``4p`` or ``4 plies`` (``0`` or ``none``: no delay); DelayError
    says what is allowed."""
    if text.strip().lower() in ("0", "none", "0s", "0p"):
        return NO_DELAY
    match = _DELAY.match(text)
    allowed = (
        f"give seconds or plies, such as '30s' or '4plies' (at most {MAX_DELAY_SECONDS:g} s "
        f"or {MAX_DELAY_PLIES} plies), or 'none'"
    )
    if match is None:
        raise DelayError(f"bad delay {text!r}: {allowed}")
    number, unit = float(match[1]), match[2].lower()
    if unit.startswith("p"):
        if number != int(number) or not 1 <= number <= MAX_DELAY_PLIES:
            raise DelayError(f"bad delay {text!r}: {allowed}")
        return SpectatorDelay(plies=int(number))
    if not 0 < number <= MAX_DELAY_SECONDS:
        raise DelayError(f"bad delay {text!r}: {allowed}")
    return SpectatorDelay(seconds=number)
