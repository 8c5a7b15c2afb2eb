"""Standings recomputed from the game records alone: the records are the only truth."""

from collections.abc import Sequence

from referee.reasons import Reason
from referee.record import GameRecord

from .results import PairStats, ScoredGame, Standings
from .standings import compute_standings, head_to_head


def game_result(record: GameRecord, pair_ids: dict[str, int]) -> ScoredGame:
    """A record as the statistics see it: seats in move order, winner by seat; void when
    the record says so or both engines were forfeited (records from before ``void`` existed
    say such a forfeit is a draw)."""
    first = record.first
    names = (record.players[first].name, record.players[1 - first].name)
    winner = None if record.winner is None else (0 if record.winner == first else 1)
    void = record.void or (record.reason is Reason.FORFEIT and record.winner is None)
    return ScoredGame(
        first=names[0], second=names[1], winner=winner, pair=pair_ids[record.deal], void=void
    )


def standings_from_records(
    records: list[GameRecord], names: list[str], deals: list[str]
) -> Standings:
    """Standings of ``names`` from ``records``; ``deals`` in schedule order number the pairs."""
    pair_ids = {deal: index for index, deal in enumerate(dict.fromkeys(deals))}
    return compute_standings((game_result(r, pair_ids) for r in records), names)


def head_to_head_from_records(records: Sequence[GameRecord], first: str, second: str) -> PairStats:
    """Head-to-head statistics of ``first`` against ``second`` from the records of their
    games (a match); games of one deal form the pairs. Raises ValueError for a record of
    another engine."""
    pair_ids = {deal: index for index, deal in enumerate(dict.fromkeys(r.deal for r in records))}
    return head_to_head((game_result(r, pair_ids) for r in records), first, second)
