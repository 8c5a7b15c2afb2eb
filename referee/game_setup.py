"""What decides one game before it starts (``GameSetup``), and the one function that builds it.

Plain data: the tournament's config and schedule, the match and the game runner
all use it without importing the runner.
"""

from typing import Annotated, Final

from pydantic import BaseModel, ConfigDict, Field

from banqi_engine.rules import RuleSet

from .deals import deal_secret
from .engine_spec import EngineSpec
from .timecontrol import TimeControl

DEFAULT_STALL_TIMEOUT: Final = 5.0
"""Seconds an engine gets to answer any command other than genmove, and to go without
using any CPU while it owes a move."""
MAX_STALL_TIMEOUT: Final = 600.0
"""The longest stall timeout a run may set, in seconds."""

StallTimeout = Annotated[
    float,
    Field(
        gt=0,
        le=MAX_STALL_TIMEOUT,
        description="Seconds to answer anything but genmove, and to go without CPU while "
        "owing a move.",
    ),
]
"""The type of a stall timeout, shared by every model that sets one."""


class GameSetup(BaseModel):
    """Everything that decides one game before it starts (the deal secret included)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    game_id: str
    rules: RuleSet
    time_control: TimeControl
    players: tuple[EngineSpec, EngineSpec]
    first: int = Field(ge=0, le=1, description="Index of the player who moves first.")
    seed: int
    deal: str = Field(description="Which deal of the run; paired games share one.")
    deal_secret: str = Field(pattern=r"^[0-9a-f]{64}$")
    stall_timeout: StallTimeout = DEFAULT_STALL_TIMEOUT


def game_setup(
    *,
    game_id: str,
    players: tuple[EngineSpec, EngineSpec],
    first: int,
    deal: str,
    seed: int,
    key: bytes,
    rules: RuleSet,
    time_control: TimeControl,
    stall_timeout: float,
) -> GameSetup:
    """The setup of one game, its deal secret derived from the referee key, seed and deal."""
    return GameSetup(
        game_id=game_id,
        rules=rules,
        time_control=time_control,
        players=players,
        first=first,
        seed=seed,
        deal=deal,
        deal_secret=deal_secret(key, seed, deal),
        stall_timeout=stall_timeout,
    )
