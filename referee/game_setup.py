"""What decides one game before it starts (``GameSetup``), and the facts of it that every view
of the game repeats (``GameFacts``: the setup, the live view and the record share them).

Plain data: the tournament's config and schedule, the match and the game runner
all use it without importing the runner. A setup holds no secret: the deal's secret
is derived from the referee key (``deal_secret_of``) when its game is about to be
played, and again when the deal's records are completed, so the referee holds the
secret of the deal being played, not a whole run's. (A run dealt from a deal book reads
the deal's entry from the book at those moments instead: ``referee.deal_book``.)
"""

from typing import Annotated, Final

from pydantic import BaseModel, ConfigDict, Field

from banqi_engine.rules import RuleSet

from .deals import deal_secret
from .engine_spec import EngineSpec
from .timecontrol import TimeControl

DEFAULT_STALL_TIMEOUT: Final = 5.0
"""Seconds an engine gets to answer any command other than genmove, and to answer a move
it lost on time before it counts as having stopped answering."""
MAX_STALL_TIMEOUT: Final = 600.0
"""The longest stall timeout a run may set, in seconds."""

StallTimeout = Annotated[
    float,
    Field(
        gt=0,
        le=MAX_STALL_TIMEOUT,
        allow_inf_nan=False,
        description="Seconds to answer anything but genmove, and to answer a move lost on "
        "time before counting as having stopped answering.",
    ),
]
"""The type of a stall timeout, shared by every model that sets one."""


class FileFormat(BaseModel):
    """The first key of a file the referee writes: its format and version (each file's model
    narrows it to its own). A model lists it first among its bases to keep it first."""

    format: str


class GameFacts(BaseModel):
    """The public facts that decide a game, which its setup, live view and record all hold."""

    game_id: str
    rules: RuleSet
    time_control: TimeControl
    first: int = Field(ge=0, le=1, description="Index of the player who moves first.")
    seed: int
    deal: str = Field(description="Which deal of the run; paired games share one.")

    def facts(self) -> dict[str, object]:
        """These facts alone, to start a view of the same game with."""
        return {name: getattr(self, name) for name in GameFacts.model_fields}


class GameSetup(GameFacts):
    """Everything public that decides one game before it starts."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    players: tuple[EngineSpec, EngineSpec]
    stall_timeout: StallTimeout = DEFAULT_STALL_TIMEOUT
    own_time: tuple[TimeControl | None, TimeControl | None] = Field(
        default=(None, None),
        description="Each player's own time control where it has one (time odds); None: "
        "time_control.",
    )

    def time_control_of(self, player: int) -> TimeControl:
        """The time control ``player``'s clock runs by."""
        return self.own_time[player] or self.time_control


def deal_secret_of(setup: GameSetup, key: bytes) -> str:
    """The secret of the setup's deal under the referee key (paired games share it)."""
    return deal_secret(key, setup.seed, setup.deal)
