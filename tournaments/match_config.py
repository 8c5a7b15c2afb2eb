"""A match's data: two engines, games in pairs on one hidden layout with the seats swapped.

``tournaments.match`` plays it (resumable, games at once) with the tournament runner.
"""

from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field

from banqi_engine.rules import RuleSet
from referee.engine_spec import EngineSpec
from referee.game_setup import DEFAULT_STALL_TIMEOUT, GameSetup, StallTimeout, game_setup
from referee.sandbox import SandboxMode
from referee.timecontrol import TimeControl


class MatchConfig(BaseModel):
    """A match: two engines, how many games, under which rules and clock."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    engines: tuple[EngineSpec, EngineSpec]
    games: int = Field(default=2, ge=1, le=100_000)
    rules: RuleSet
    time_control: TimeControl = TimeControl()
    seed: int
    out: Path
    log_traffic: bool = False
    stall_timeout: StallTimeout = DEFAULT_STALL_TIMEOUT
    sandbox: SandboxMode = SandboxMode.AUTO
    concurrency: int = Field(default=1, ge=1, le=64, description="Games at once.")


def match_setups(config: MatchConfig) -> list[GameSetup]:
    """Game ``i`` deals layout ``i // 2``; the engine listed second moves first in odd games."""
    width = max(4, len(str(config.games)))
    return [
        game_setup(
            game_id=f"g{index + 1:0{width}d}",
            players=config.engines,
            first=index % 2,
            deal=str(index // 2),
            seed=config.seed,
            rules=config.rules,
            time_control=config.time_control,
            stall_timeout=config.stall_timeout,
        )
        for index in range(config.games)
    ]
