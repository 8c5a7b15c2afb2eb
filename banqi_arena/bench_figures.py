"""The figures of ``banqi bench arena``, as its ``--json`` file holds them."""

import statistics
from collections.abc import Sequence
from enum import StrEnum

from pydantic import BaseModel, ConfigDict, Field


class _Figures(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class Spread(_Figures):
    """How a set of values spreads: their count, median, 99th percentile and largest."""

    count: int = Field(ge=1)
    median: float
    p99: float
    max: float

    @classmethod
    def of(cls, values: Sequence[float]) -> "Spread | None":
        """The spread of ``values``; None when there are none."""
        if not values:
            return None
        p99 = (
            statistics.quantiles(values, n=100, method="inclusive")[98]
            if len(values) > 1
            else values[0]
        )
        return cls(count=len(values), median=statistics.median(values), p99=p99, max=max(values))


class Load(StrEnum):
    """What an event of the bench is played under."""

    QUIET = "quiet"
    """The games alone."""
    SPECTATORS = "spectators"
    """Spectators polling and long-polling the event's web API."""
    FLOOD = "flood"
    """Spectators asking as fast as they can, with no pause."""
    SLOW_READERS = "slow-readers"
    """Spectators that ask for large answers and read them very slowly, or never."""
    RELAY_STORM = "relay-storm"
    """Half the relays dropping their connection every few seconds."""


class RequestFigures(_Figures):
    """The spectators' requests of one kind."""

    requests: int = Field(ge=0, description="Requests answered (any status).")
    failed: int = Field(
        ge=0, description="Requests that failed: no answer in time, a broken connection, a 5xx."
    )
    statuses: dict[str, int] = Field(description="Answers by HTTP status.")
    latency_ms: Spread | None = Field(description="From the request sent to its body read.")


class SpectatorFigures(_Figures):
    """What the spectators of one event asked, and how fast they were answered."""

    spectators: int = Field(ge=0, description="Spectators at once (connections).")
    seconds: float = Field(ge=0, description="How long they watched.")
    cpu_seconds: float = Field(ge=0, description="The spectators' process's CPU time.")
    kinds: dict[str, RequestFigures] = Field(
        description="By kind of request: event (/api/event, answered at once), long-poll "
        "(/api/event?since=V, answered at the next change: its time is mostly that wait), "
        "game (/api/event/games/ID), slow (/api/event read slowly or never)."
    )


class RunFigures(_Figures):
    """One event of the bench: its games, the server's cost, and the clocks it charged."""

    load: Load
    round: int = Field(ge=1, description="The bench's round it was played in (--repeat).")
    games: int = Field(ge=0, description="Games recorded.")
    plies: int = Field(ge=0, description="Plies of those games.")
    wall_seconds: float = Field(ge=0, description="From the relays' start to the last game's end.")
    server_cpu_seconds: float = Field(
        ge=0, description="The server process's CPU time (user and system) over that time."
    )
    server_ms_per_ply: float = Field(ge=0, description="Server CPU per ply, in ms.")
    relays_cpu_seconds: float = Field(
        ge=0, description="The relays' process's CPU time over that time (the bench's own)."
    )
    peak_rss_mib: float = Field(ge=0, description="The server's peak resident memory (VmHWM).")
    turnaround_ms: Spread | None = Field(
        description="From a relay's move sent to the server's next frame of that game."
    )
    overcharge_ms: Spread | None = Field(
        description="Each ply's charged time (the record's ms) less the time the relay's "
        "engine took; under a relay storm, only the plies of relays that stayed connected."
    )
    relays_lag_ms: Spread | None = Field(
        description="How late the relays' event loop woke from its 10 ms sleeps: the part "
        "of the turnaround and the overcharge that is the relays' own delay."
    )
    relay_connects: int = Field(ge=0)
    relay_drops: int = Field(ge=0, description="Connections the storm dropped.")
    spectators: SpectatorFigures | None = None
    problems: list[str] = Field(
        description="Why this event does not count as run: games not ended on the board, "
        "relay errors, a server that failed."
    )


class ArenaBench(_Figures):
    """What ``banqi bench arena`` played, and each event's figures."""

    entrants: int
    games_at_once: int
    games: int | None = Field(description="Games each event was bounded to, if given.")
    seconds: float | None = Field(description="Seconds each event was bounded to, if given.")
    time_control: str
    rules: str
    engine: str = Field(description="The relays' engine: random or greedy.")
    think_ms: float = Field(ge=0, description="What the relays' engine takes over a move.")
    repeat: int = Field(ge=1, description="Rounds of the quiet event and each load.")
    runs: list[RunFigures]
