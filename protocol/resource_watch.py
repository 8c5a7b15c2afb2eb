"""``ResourceWatch``: what a client asks of the limits an engine process runs under.

The referee's sandbox makes one per engine (``referee.engine_watch``); the client asks it,
while a command waits and when the engine fails, whether a limit was reached, and
releases it once the process is gone.
"""

from dataclasses import dataclass
from typing import Literal, Protocol

LimitKind = Literal["memory", "processes", "room", "cpu"]
"""The limits an engine can reach."""


@dataclass(frozen=True)
class LimitBreach:
    """A limit the engine reached: its ``kind`` and what happened, in words."""

    kind: LimitKind
    words: str


class ResourceWatch(Protocol):
    """The limits of one engine process, as its client sees them."""

    def breach(self, pid: int, returncode: int | None, stderr_tail: str) -> LimitBreach | None:
        """The limit the engine (started as ``pid``; exited with ``returncode``, None while
        it runs; the end of its stderr) has reached, if any."""
        ...

    def release(self) -> None:
        """The process is gone: free what the limits held (a control group)."""
        ...
