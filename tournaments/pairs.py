"""The pair schedule every run plays: game ``i`` on deal ``i // 2``, the engine listed second
moving first in odd games, so both games of a pair share one hidden layout with the seats
swapped; and the game ids that number them."""

from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass

from referee.engine_spec import EngineSpec
from referee.game_setup import GameSetup
from referee.timecontrol import TimeControl

from .run_config import RunConfig

OwnTime = tuple[TimeControl | None, TimeControl | None]


@dataclass(frozen=True)
class ScheduledGame:
    """One game of the schedule and the engines (by index into the config) that play it."""

    setup: GameSetup
    engines: tuple[int, int]
    pair_id: str


def numbered_id(index: int, width: int) -> str:
    """Game ``index`` (from 0) as ``g`` and its number from 1, zero-padded to ``width``."""
    return f"g{index + 1:0{width}d}"


def pair_deal(index: int) -> str:
    """The deal of game ``index``: ``str(index // 2)``."""
    return str(index // 2)


def paired_setups(
    config: RunConfig,
    players: tuple[EngineSpec, EngineSpec],
    seed: int,
    count: int,
    game_id: Callable[[int], str],
    deal: str | None = None,
    own_time: OwnTime = (None, None),
) -> Iterator[GameSetup]:
    """``count`` games of ``players`` under the run's rules and clock: game ``i`` named
    ``game_id(i)``, on deal ``i // 2`` (or all on ``deal``, a run that names its pairs), the
    second player first when ``i`` is odd; each made as it is asked for."""
    start = GameSetup(
        game_id="",
        players=players,
        first=0,
        deal="",
        seed=seed,
        rules=config.rules,
        time_control=config.time_control,
        stall_timeout=config.stall_timeout,
        own_time=own_time,
    )
    for i in range(count):
        yield start.model_copy(
            update={"game_id": game_id(i), "first": i % 2, "deal": deal or pair_deal(i)}
        )


def two_engine_games(setups: Iterable[GameSetup]) -> list[ScheduledGame]:
    """The games of a run between two engines, for the runner."""
    return [ScheduledGame(setup, (0, 1), setup.deal) for setup in setups]
