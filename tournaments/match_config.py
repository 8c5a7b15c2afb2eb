"""A match's data: two engines, games in pairs on one hidden layout with the seats swapped.

``tournaments.match`` plays it (resumable, games at once) with the tournament runner.
"""

from collections.abc import Iterator
from typing import ClassVar

from pydantic import Field

from referee.game_setup import GameSetup

from .pairs import numbered_id, paired_setups
from .run_config import PAIR_RUN_ORDER, PairRunConfig


class MatchConfig(PairRunConfig):
    """A match: two engines, how many games, under which rules and clock."""

    saved_order: ClassVar[tuple[str, ...]] = ("engines", "games", *PAIR_RUN_ORDER)

    games: int = Field(default=2, ge=1, le=100_000)


def match_setups(config: MatchConfig) -> Iterator[GameSetup]:
    """The match's games in the pair schedule, numbered ``g0001`` (wider past 9999 games)."""
    width = max(4, len(str(config.games)))
    return paired_setups(
        config,
        config.engines,
        config.seed,
        config.games,
        lambda index: numbered_id(index, width),
    )
