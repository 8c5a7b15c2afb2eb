"""Tournament standings, crosstable and head-to-head statistics from per-game results.

Every figure is recomputed from the per-game results (:class:`~tournaments.results.ScoredGame`).

Standings
    A row's ``elo`` and ``elo_error`` are the engine's rating and margin (see
    :mod:`tournaments.ratings`). Rows are sorted by points; engines equal on points by the
    points each of them took in the games among all the engines on those points (once, not
    again within a smaller tie), then by rating, an engine without a rating after those with
    one; engines equal in all three share a rank and keep the order of ``names``. A row's
    ``los`` is the likelihood that its engine is stronger than the engine of the next row,
    from the head-to-head wins and losses of the two (trinomial formula,
    :mod:`tournaments.elo`); the last row has none.

Void games
    A void game (both engines failed) counts in ``games`` and ``void`` only: no points, in
    no W-D-L, rating, Elo or LOS, and a pair with a void game is incomplete.

Pairs of games
    Two games with the same ``pair`` id between the same two engines, with the seats
    swapped, form a pair; in the order given, each game pairs with the earliest unpaired
    game of its id and engines that has the other seating. A game without a pair id, or
    left without a partner, counts in W-D-L but not in the pentanomial counts, and so do the
    games of a pair with a void game.
"""

import math
from collections.abc import Iterable, Sequence
from typing import NamedTuple

from .elo import likelihood_of_superiority, pentanomial_elo, wdl_elo
from .ratings import Rating, fit_ratings
from .results import PairStats, Record, ScoredGame, StandingRow, Standings

_OUTCOME_INDEX = {0: 0, None: 1, 1: 2}
"""Index in a [wins, draws, losses] list of a game's result for its first seat."""

_RATING_DIGITS = 6
"""Decimals of Elo the tie-break compares, so that rounding noise of the fit breaks no tie."""


class _Tally(NamedTuple):
    """Counts per ordered pair of engines, by index in ``names``."""

    wdl: list[list[list[int]]]
    """wdl[a][b]: wins, draws, losses of a against b."""
    void: list[list[int]]
    """void[a][b]: void games between a and b."""
    penta: list[list[list[int]]]
    """penta[a][b]: complete pairs of games by a's half-points, 0 to 4."""


_SortKey = tuple[int, int, float]
"""Half-points, half-points among the engines on as many points, and rounded rating."""


def compute_standings(results: Iterable[ScoredGame], names: Sequence[str]) -> Standings:
    """Standings, crosstable and head-to-head statistics recomputed from per-game results.

    ``names`` lists every engine of the tournament; engines without games get a row too.
    Raises ValueError for a repeated name or a result naming an engine not in ``names``.
    """
    tally = _tally(results, names)
    ratings = _ratings(tally.wdl)
    keys = _sort_keys(tally.wdl, ratings)
    order = sorted(range(len(names)), key=lambda a: keys[a], reverse=True)
    return Standings(
        rows=_rows(names, order, keys, tally, ratings),
        crosstable=_crosstable(names, order, tally),
        pairs=[
            _pair_stats(names, a, b, tally)
            for i, a in enumerate(order)
            for b in order[i + 1 :]
            if sum(tally.wdl[a][b]) + tally.void[a][b]
        ],
    )


def head_to_head(results: Iterable[ScoredGame], first: str, second: str) -> PairStats:
    """Head-to-head statistics of ``first`` against ``second`` from the games between them.

    Raises ValueError for equal names or a game of another engine.
    """
    names = [first, second]
    return _pair_stats(names, 0, 1, _tally(results, names))


def _tally(results: Iterable[ScoredGame], names: Sequence[str]) -> _Tally:
    """Each engine's W-D-L and void games against each other and the pentanomial counts."""
    index = {name: i for i, name in enumerate(names)}
    if len(index) != len(names):
        raise ValueError(f"engine names are not distinct: {list(names)}")
    size = len(names)
    tally = _Tally(
        wdl=[[[0, 0, 0] for _ in range(size)] for _ in range(size)],
        void=[[0] * size for _ in range(size)],
        penta=[[[0] * 5 for _ in range(size)] for _ in range(size)],
    )
    # Games of a pair id still without a partner (all with the same seating).
    waiting: dict[tuple[int, int, int], list[ScoredGame]] = {}
    for game in results:
        a, b = _engine_index(index, game.first), _engine_index(index, game.second)
        if game.void:
            tally.void[a][b] += 1
            tally.void[b][a] += 1
        else:
            outcome = _OUTCOME_INDEX[game.winner]
            tally.wdl[a][b][outcome] += 1
            tally.wdl[b][a][2 - outcome] += 1
        if game.pair is None:
            continue
        low, high = min(a, b), max(a, b)
        unpaired = waiting.setdefault((low, high, game.pair), [])
        if unpaired and unpaired[0].first == game.second:
            partner = unpaired.pop(0)
            if not (game.void or partner.void):
                half_points = _half_points(game, names[low]) + _half_points(partner, names[low])
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


def _half_points(game: ScoredGame, name: str) -> int:
    """Half-points ``name`` took in ``game`` (not void): 2 a win, 1 a draw, 0 a loss."""
    if game.winner is None:
        return 1
    return 2 if (game.first, game.second)[game.winner] == name else 0


def _ratings(wdl: list[list[list[int]]]) -> list[Rating | None]:
    """The rating fit over the games (void ones left out) and points of every two engines."""
    size = len(wdl)
    return fit_ratings(
        [[sum(wdl[a][b]) for b in range(size)] for a in range(size)],
        [[wdl[a][b][0] + wdl[a][b][1] / 2 for b in range(size)] for a in range(size)],
    )


def _sort_keys(wdl: list[list[list[int]]], ratings: list[Rating | None]) -> list[_SortKey]:
    """Each engine's sort key: points, points among the engines on as many, rating."""
    size = len(wdl)
    half = [sum(2 * wins + draws for wins, draws, _ in wdl[a]) for a in range(size)]
    keys = []
    for a, rating in enumerate(ratings):
        among = sum(2 * wdl[a][b][0] + wdl[a][b][1] for b in range(size) if half[b] == half[a])
        elo = -math.inf if rating is None else round(rating.elo, _RATING_DIGITS) + 0.0
        keys.append((half[a], among, elo))
    return keys


def _rows(
    names: Sequence[str],
    order: list[int],
    keys: list[_SortKey],
    tally: _Tally,
    ratings: list[Rating | None],
) -> list[StandingRow]:
    """The table rows in ``order``: totals, rank, rating and LOS over the next row."""
    rows: list[StandingRow] = []
    for position, a in enumerate(order):
        rank = position + 1
        if rows and keys[order[position - 1]] == keys[a]:
            rank = rows[-1].rank
        los = None
        if position + 1 < len(order):
            wins, _, losses = tally.wdl[a][order[position + 1]]
            los = likelihood_of_superiority(wins, losses)
        rows.append(_row(rank, names[a], tally, a, ratings[a], los))
    return rows


def _row(
    rank: int, name: str, tally: _Tally, a: int, rating: Rating | None, los: float | None
) -> StandingRow:
    wins, draws, losses = (sum(column) for column in zip(*tally.wdl[a], strict=True))
    rated = wins + draws + losses
    void = sum(tally.void[a])
    return StandingRow(
        rank=rank,
        name=name,
        games=rated + void,
        wins=wins,
        draws=draws,
        losses=losses,
        void=void,
        points=wins + draws / 2,
        score_percent=100 * (2 * wins + draws) / (2 * rated) if rated else None,
        elo=None if rating is None else rating.elo,
        elo_error=None if rating is None else rating.elo_error,
        los=los,
    )


def _crosstable(
    names: Sequence[str], order: list[int], tally: _Tally
) -> dict[str, dict[str, Record]]:
    """Every engine's record against every other, both in table order."""
    return {
        names[a]: {
            names[b]: Record(
                wins=tally.wdl[a][b][0],
                draws=tally.wdl[a][b][1],
                losses=tally.wdl[a][b][2],
                void=tally.void[a][b],
            )
            for b in order
            if b != a
        }
        for a in order
    }


def _pair_stats(names: Sequence[str], a: int, b: int, tally: _Tally) -> PairStats:
    """Head-to-head statistics of engine ``a`` against engine ``b``."""
    wins, draws, losses = tally.wdl[a][b]
    penta = tally.penta[a][b]
    trinomial = wdl_elo(wins, draws, losses)
    pentanomial = pentanomial_elo(penta)
    return PairStats(
        first=names[a],
        second=names[b],
        games=wins + draws + losses + tally.void[a][b],
        wins=wins,
        draws=draws,
        losses=losses,
        void=tally.void[a][b],
        elo=trinomial.elo,
        elo_error=trinomial.elo_error,
        los=trinomial.los,
        pairs=sum(penta),
        pentanomial=(penta[0], penta[1], penta[2], penta[3], penta[4]),
        penta_elo=pentanomial.elo,
        penta_elo_error=pentanomial.elo_error,
        penta_los=pentanomial.los,
    )
