"""Tournament standings, crosstable and head-to-head statistics from per-game results.

Every figure is recomputed from the per-game results (:class:`~tournaments.results.GameResult`).

Standings
    A row's ``elo`` and ``elo_error`` are the engine's rating and margin (see
    :mod:`tournaments.ratings`). Rows are sorted by points, then score, then the order of
    ``names``; rows equal in points and score share a rank. A row's ``los`` is the likelihood
    that its engine is stronger than the engine of the next row, from the head-to-head wins
    and losses of the two (trinomial formula, :mod:`tournaments.elo`); the last row has none.

Pairs of games
    Two games with the same ``pair`` id between the same two engines, with the seats
    swapped, form a pair; in the order given, each game pairs with the earliest unpaired
    game of its id and engines that has the other seating. A game without a pair id, or
    left without a partner, counts in W-D-L but not in the pentanomial counts.
"""

from collections.abc import Iterable, Sequence
from fractions import Fraction
from typing import NamedTuple

from .elo import likelihood_of_superiority, pentanomial_elo, wdl_elo
from .ratings import Rating, fit_ratings
from .results import GameResult, PairStats, Record, StandingRow, Standings

_OUTCOME_INDEX = {0: 0, None: 1, 1: 2}
"""Index in a [wins, draws, losses] list of a game's result for its first seat."""


class _Tally(NamedTuple):
    """Counts per ordered pair of engines, by index in ``names``."""

    wdl: list[list[list[int]]]
    """wdl[a][b]: wins, draws, losses of a against b."""
    penta: list[list[list[int]]]
    """penta[a][b]: complete pairs of games by a's half-points, 0 to 4."""


def compute_standings(results: Iterable[GameResult], names: Sequence[str]) -> Standings:
    """Standings, crosstable and head-to-head statistics recomputed from per-game results.

    ``names`` lists every engine of the tournament; engines without games get a row too.
    Raises ValueError for a repeated name or a result naming an engine not in ``names``.
    """
    tally = _tally(results, names)
    totals = [[sum(column) for column in zip(*row, strict=True)] for row in tally.wdl]
    order = sorted(range(len(names)), key=lambda a: _order_key(totals[a]), reverse=True)
    return Standings(
        rows=_rows(names, order, totals, tally.wdl),
        crosstable=_crosstable(names, order, tally.wdl),
        pairs=_pairs(names, order, tally),
    )


def _tally(results: Iterable[GameResult], names: Sequence[str]) -> _Tally:
    """Each engine's W-D-L against each other and the pentanomial counts of its pairs."""
    index = {name: i for i, name in enumerate(names)}
    if len(index) != len(names):
        raise ValueError(f"engine names are not distinct: {list(names)}")
    size = len(names)
    tally = _Tally(
        wdl=[[[0, 0, 0] for _ in range(size)] for _ in range(size)],
        penta=[[[0] * 5 for _ in range(size)] for _ in range(size)],
    )
    # Games of a pair id still without a partner (all with the same seating).
    waiting: dict[tuple[int, int, int], list[GameResult]] = {}
    for game in results:
        a, b = _engine_index(index, game.first), _engine_index(index, game.second)
        outcome = _OUTCOME_INDEX[game.winner]
        tally.wdl[a][b][outcome] += 1
        tally.wdl[b][a][2 - outcome] += 1
        if game.pair is None:
            continue
        low, high = min(a, b), max(a, b)
        unpaired = waiting.setdefault((low, high, game.pair), [])
        if unpaired and unpaired[0].first == game.second:
            half_points = _half_points(game, names[low]) + _half_points(unpaired.pop(0), names[low])
            tally.penta[low][high][half_points] += 1
            tally.penta[high][low][4 - half_points] += 1
        else:
            unpaired.append(game)
    return tally


def _engine_index(index: dict[str, int], name: str) -> int:
    try:
        return index[name]
    except KeyError:
        raise ValueError(f"engine {name!r} is not in the tournament") from None


def _half_points(game: GameResult, name: str) -> int:
    """Half-points ``name`` took in ``game``: 2 a win, 1 a draw, 0 a loss."""
    if game.winner is None:
        return 1
    return 2 if (game.first, game.second)[game.winner] == name else 0


def _order_key(total: Sequence[int]) -> tuple[int, Fraction]:
    """Sort key of an engine's wins, draws and losses: half-points, then score."""
    wins, draws, losses = total
    games = wins + draws + losses
    return 2 * wins + draws, Fraction(2 * wins + draws, 2 * games) if games else Fraction(-1)


def _rows(
    names: Sequence[str], order: list[int], totals: list[list[int]], wdl: list[list[list[int]]]
) -> list[StandingRow]:
    """The table rows in ``order``: totals, rank, rating and LOS over the next row."""
    size = len(names)
    ratings = _ratings(wdl)
    rows: list[StandingRow] = []
    for position, a in enumerate(order):
        rank = position + 1
        if rows and _order_key(totals[order[position - 1]]) == _order_key(totals[a]):
            rank = rows[-1].rank
        los = None
        if position + 1 < size:
            head_to_head = wdl[a][order[position + 1]]
            los = likelihood_of_superiority(head_to_head[0], head_to_head[2])
        rows.append(_row(rank, names[a], totals[a], ratings[a], los))
    return rows


def _ratings(wdl: list[list[list[int]]]) -> list[Rating | None]:
    """The rating fit over the games and points of every two engines."""
    size = len(wdl)
    return fit_ratings(
        [[sum(wdl[a][b]) for b in range(size)] for a in range(size)],
        [[wdl[a][b][0] + wdl[a][b][1] / 2 for b in range(size)] for a in range(size)],
    )


def _row(
    rank: int, name: str, total: list[int], rating: Rating | None, los: float | None
) -> StandingRow:
    wins, draws, losses = total
    games = wins + draws + losses
    return StandingRow(
        rank=rank,
        name=name,
        games=games,
        wins=wins,
        draws=draws,
        losses=losses,
        points=wins + draws / 2,
        score_percent=100 * (2 * wins + draws) / (2 * games) if games else None,
        elo=None if rating is None else rating.elo,
        elo_error=None if rating is None else rating.elo_error,
        los=los,
    )


def _crosstable(
    names: Sequence[str], order: list[int], wdl: list[list[list[int]]]
) -> dict[str, dict[str, Record]]:
    """Every engine's record against every other, both in table order."""
    return {
        names[a]: {
            names[b]: Record(wins=wdl[a][b][0], draws=wdl[a][b][1], losses=wdl[a][b][2])
            for b in order
            if b != a
        }
        for a in order
    }


def _pairs(names: Sequence[str], order: list[int], tally: _Tally) -> list[PairStats]:
    """Head-to-head statistics of every two engines that met, the higher-ranked first."""
    return [
        _pair_stats(names[a], names[b], tally.wdl[a][b], tally.penta[a][b])
        for i, a in enumerate(order)
        for b in order[i + 1 :]
        if sum(tally.wdl[a][b])
    ]


def _pair_stats(first: str, second: str, wdl: list[int], penta: list[int]) -> PairStats:
    wins, draws, losses = wdl
    trinomial = wdl_elo(wins, draws, losses)
    pentanomial = pentanomial_elo(penta)
    return PairStats(
        first=first,
        second=second,
        games=wins + draws + losses,
        wins=wins,
        draws=draws,
        losses=losses,
        elo=trinomial.elo,
        elo_error=trinomial.elo_error,
        los=trinomial.los,
        pairs=sum(penta),
        pentanomial=(penta[0], penta[1], penta[2], penta[3], penta[4]),
        penta_elo=pentanomial.elo,
        penta_elo_error=pentanomial.elo_error,
        penta_los=pentanomial.los,
    )
