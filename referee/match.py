"""``banqi match``: games between two engines, in pairs on one hidden layout, seats swapped."""

import asyncio
from collections.abc import Callable
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field

from banqi_engine.rules import RuleSet

from .deal_records import DealRecords
from .engine_spec import EngineSpec
from .engine_start import EngineFactory, start_engine_process
from .game_runner import play_game
from .game_setup import (
    DEFAULT_STALL_TIMEOUT,
    GameSetup,
    StallTimeout,
    deal_secret_of,
    game_setup,
)
from .record import GameRecord
from .sandbox import SandboxMode
from .timecontrol import TimeControl


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


async def run_match(
    config: MatchConfig,
    key: bytes,
    on_game: Callable[[GameRecord], None],
    *,
    start_engine: EngineFactory = start_engine_process,
) -> list[GameRecord]:
    """Play every game in order, saving each record the moment its game ends, withheld
    until the other game of its deal has ended (``referee.deal_records``).

    Each game's deal secret is derived from ``key`` as the game starts. A match is never
    resumed, so one that stops early (Ctrl-C) completes its half pair as it stops.
    Returns the records as saved, in game order.
    """
    setups = match_setups(config)
    deals = DealRecords(config.out, key, setups, {})
    saved: dict[str, GameRecord] = {}
    try:
        for setup in setups:
            secret = deal_secret_of(setup, key)
            played = await play_game(
                setup, secret, keep_traffic=config.log_traffic, start_engine=start_engine
            )
            saved.update((r.game_id, r) for r in deals.save(played.record, played.transcript))
            on_game(saved[setup.game_id])
    finally:
        saved.update((r.game_id, r) for r in deals.complete_all())
    return [saved[setup.game_id] for setup in setups if setup.game_id in saved]


def play_match(
    config: MatchConfig,
    key: bytes,
    on_game: Callable[[GameRecord], None],
    start_engine: EngineFactory = start_engine_process,
) -> list[GameRecord]:
    """Blocking form of ``run_match``."""
    return asyncio.run(run_match(config, key, on_game, start_engine=start_engine))
