"""Standings recomputed from the game records alone: the records are the only truth."""

from referee.record import GameRecord

from .results import GameResult, Standings
from .standings import compute_standings


def game_result(record: GameRecord, pair_ids: dict[str, int]) -> GameResult:
    """A record as the statistics see it: seats in move order, winner by seat."""
    first = record.first
    names = (record.players[first].name, record.players[1 - first].name)
    winner = None if record.winner is None else (0 if record.winner == first else 1)
    return GameResult(first=names[0], second=names[1], winner=winner, pair=pair_ids[record.deal])


def standings_from_records(
    records: list[GameRecord], names: list[str], deals: list[str]
) -> Standings:
    """Standings of ``names`` from ``records``; ``deals`` in schedule order number the pairs."""
    pair_ids = {deal: index for index, deal in enumerate(dict.fromkeys(deals))}
    return compute_standings((game_result(r, pair_ids) for r in records), names)
