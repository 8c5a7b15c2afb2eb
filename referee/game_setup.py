"""What decides one game before it starts (``GameSetup``), and the one function that builds it.

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


class GameSetup(BaseModel):
    """Everything public that decides one game before it starts."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    game_id: str
    rules: RuleSet
    time_control: TimeControl
    players: tuple[EngineSpec, EngineSpec]
    first: int = Field(ge=0, le=1, description="Index of the player who moves first.")
    seed: int
    deal: str = Field(description="Which deal of the run; paired games share one.")
    stall_timeout: StallTimeout = DEFAULT_STALL_TIMEOUT
    own_time: tuple[TimeControl | None, TimeControl | None] = Field(
        default=(None, None),
        description="Each player's own time control where it has one (time odds); None: "
        "time_control.",
    )

    def time_control_of(self, player: int) -> TimeControl:
        """The time control ``player``'s clock runs by."""
        return self.own_time[player] or self.time_control


def game_setup(
    *,
    game_id: str,
    players: tuple[EngineSpec, EngineSpec],
    first: int,
    deal: str,
    seed: int,
    rules: RuleSet,
    time_control: TimeControl,
    stall_timeout: float,
    own_time: tuple[TimeControl | None, TimeControl | None] = (None, None),
) -> GameSetup:
    """The setup of one game."""
    return GameSetup(
        game_id=game_id,
        rules=rules,
        time_control=time_control,
        players=players,
        first=first,
        seed=seed,
        deal=deal,
        stall_timeout=stall_timeout,
        own_time=own_time,
    )


def deal_secret_of(setup: GameSetup, key: bytes) -> str:
    """The secret of the setup's deal under the referee key (paired games share it)."""
    return deal_secret(key, setup.seed, setup.deal)
