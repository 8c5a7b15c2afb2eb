"""Stand-ins for the games and records a pair counter takes: game ids ``g0001``... and who
won."""

from types import SimpleNamespace
from typing import cast

from referee.record import GameRecord
from tournaments.pairs import ScheduledGame


def stub_games(count: int, width: int = 4) -> list[ScheduledGame]:
    """``count`` scheduled games, known by their ids only."""
    return [
        cast(ScheduledGame, SimpleNamespace(setup=SimpleNamespace(game_id=f"g{i + 1:0{width}d}")))
        for i in range(count)
    ]


def stub_record(index: int, winner: int | None, void: bool = False, width: int = 4) -> GameRecord:
    """The record of game ``index`` (from 0): who won (None: a draw), or void."""
    return cast(
        GameRecord,
        SimpleNamespace(game_id=f"g{index + 1:0{width}d}", winner=winner, void=void),
    )
