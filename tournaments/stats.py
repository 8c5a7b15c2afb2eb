"""Tournament statistics: ratings, Elo from scores, pentanomial pair statistics, reports.

Every figure is recomputed from the per-game results (:class:`GameResult`).

Ratings (the Elo of the standings)
    A maximum-likelihood Bradley–Terry fit over every game of the tournament, the logistic
    model of Ordo and BayesElo without a first-move advantage: engine ``i`` rated ``Ri``
    scores ``P(Ri - Rj) = 1/(1 + 10^((Rj - Ri)/400))`` per game against engine ``j``, a draw
    counting as half a win for each side, as in Ordo (BayesElo gives draws a parameter of
    their own). The log-likelihood ``Σ s_ij·ln P(Ri - Rj)``, over ordered
    pairs with ``s_ij`` the points ``i`` took against ``j``, has no finite maximum once an
    engine scored 0% or 100%, so virtual draws are added first, as BayesElo's default prior
    (``prior 2``) adds them: two per engine, each engine spreading one virtual draw over its
    opponents in proportion to the games it played against them, which puts
    ``v_ij = n_ij/N_i + n_ij/N_j`` virtual draws between ``i`` and ``j`` (``n_ij`` games
    between them, ``N_i`` games of ``i``): 2 between two engines, ``2/(k-1)`` per pair in a
    balanced round robin of ``k`` engines. This prior weighs two games per engine whatever
    the size of the field, links only engines that met (it invents no comparison) and is
    unchanged by a common shift of the ratings, so it pulls toward no fixed rating. With
    ``m_ij = n_ij + v_ij`` games and ``a_ij = s_ij + v_ij/2`` points, every engine that played
    gets a finite rating: the likelihood equations ``Σj a_ij = Σj m_ij·P(Ri - Rj)`` have a
    unique solution up to a common shift of each group of engines linked by games, found by
    Newton's method (full Hessian, Gaussian elimination, steps capped at 347 Elo and halved
    until the log-likelihood rises by a quarter of the first-order gain). Each group
    averages 0; a round robin has one, so the engines with games average 0.

    The 95% error margin is ``1.96·σ``, from the curvature along the engine's own rating
    (the diagonal of the observed Fisher information, BayesElo's ``variance`` intervals):
    ``σ = (400/ln 10)/√(Σj m_ij·P(Ri - Rj)·P(Rj - Ri))``, the uncertainty of the rating
    against its opponents taken at their estimates. That curvature counts each game as a
    win-or-loss trial, so frequent draws make the margin wider than the trinomial one (40%
    draws at an even score: about 1.29 times).

    Two engines, W-D-L 6-3-1: with the 2 virtual draws the first scores 8.5 of 12,
    ``400·log10(8.5/3.5) = 154.14`` Elo apart, rated +77.07 and -77.07, each ± 216.24
    (``σ = 173.72/√(12·(8.5/12)·(3.5/12)) = 110.33``).

Elo from a score
    A score ``s`` is the fraction of the points taken (win 1, draw ½, loss 0):
    ``elo(s) = -400·log10(1/s - 1)``, ``+inf`` at ``s = 1`` and ``-inf`` at ``s = 0``.

Trinomial statistics (games one by one; cutechess-cli's ``Elo``, fastchess's ``EloWDL``)
    ``s = (W + D/2)/N``; per-game variance ``σ² = (W(1-s)² + D(½-s)² + L·s²)/N``;
    standard error of ``s``: ``σ/√N``. The 95% interval ``s ± z·σ/√N``, with
    ``z = Φ⁻¹(0.975) = 1.959963984540054``, is mapped through ``elo`` and the error margin
    is half its width: ``(elo(s + zσ/√N) - elo(s - zσ/√N))/2``. Likelihood of superiority
    (cutechess): ``LOS = ½(1 + erf((W - L)/√(2(W + L))))``. cutechess computes ``z`` with an
    approximate inverse error function (1.95716), so its margins are about 0.15% narrower.

Pentanomial statistics (pairs of games, seats swapped; fastchess's ``EloPentanomial``)
    A pair scores 0, ½, 1, 1½ or 2 points for one side; the counts are
    ``[LL, LD, DD+WL, WD, WW]``. Over ``P`` pairs, ``s`` is the mean pair score / 2 and
    ``σ²`` the variance of the pair scores / 4 (over the pairs, divided by ``P``); the
    standard error is ``σ/√P``; Elo and margin as above;
    ``LOS = Φ((s - ½)/(σ/√P)) = ½(1 + erf((s - ½)/√(2σ²/P)))``.

Undefined values are ``None`` (where those tools print ``inf``, ``-inf`` or ``nan``)
    Head-to-head Elo: no games, or a score of 0 or 1 (the reports show ``-inf`` and
    ``+inf``). Error margin: the Elo is undefined, or the 95% interval of the score reaches
    0 or 1 (an unbounded margin; the reports show ``inf``). LOS: no decisive game
    (trinomial), or no pairs or every pair scored exactly 1 point (pentanomial; with zero
    variance and another score the pentanomial LOS is 0 or 1). A rating and its margin are
    ``None`` only for an engine without games.

Standings
    A row's ``elo`` and ``elo_error`` are the engine's rating and margin (see Ratings).
    Rows are sorted by points, then score, then the order of ``names``; rows equal in points
    and score share a rank. A row's ``los`` is the likelihood that its engine is stronger
    than the engine of the next row, from the head-to-head wins and losses of the two
    (trinomial formula); the last row has none.

Pairs of games
    Two games with the same ``pair`` id between the same two engines, with the seats
    swapped, form a pair; in the order given, each game pairs with the earliest unpaired
    game of its id and engines that has the other seating. A game without a pair id, or
    left without a partner, counts in W-D-L but not in the pentanomial counts.

JSON
    ``standings.json`` is :func:`standings_json`, the list of table rows; ``report.json``
    is :func:`report_json`, the whole :class:`Standings` (rows, crosstable and pairs).
"""

import math
from collections.abc import Iterable, Sequence
from fractions import Fraction
from typing import Literal, NamedTuple, Self

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, model_validator

Z_95 = 1.959963984540054
"""Φ⁻¹(0.975): the two-sided 95% quantile of the standard normal distribution."""

_FROZEN = ConfigDict(frozen=True, extra="forbid")
_OUTCOME_INDEX = {0: 0, None: 1, 1: 2}
"""Index in a [wins, draws, losses] list of a game's result for its first seat."""


class GameResult(BaseModel):
    """One finished game: the players in seat order, the winner, and the pair it belongs to."""

    model_config = _FROZEN

    first: str = Field(description="Engine in the first seat (it moves first).")
    second: str = Field(description="Engine in the second seat.")
    winner: Literal[0, 1] | None = Field(description="0: first won, 1: second won, None: draw.")
    pair: int | None = Field(default=None, description="Id shared by the two games of a pair.")

    @model_validator(mode="after")
    def _distinct_players(self) -> Self:
        if self.first == self.second:
            raise ValueError(f"engine {self.first!r} cannot play itself")
        return self


class Record(BaseModel):
    """Wins, draws and losses of one engine against one opponent."""

    model_config = _FROZEN

    wins: int = Field(default=0, ge=0)
    draws: int = Field(default=0, ge=0)
    losses: int = Field(default=0, ge=0)

    @property
    def games(self) -> int:
        """Number of games."""
        return self.wins + self.draws + self.losses

    @property
    def points(self) -> float:
        """Points: 1 a win, ½ a draw."""
        return self.wins + self.draws / 2


class EloEstimate(BaseModel):
    """An Elo difference with its 95% error margin and likelihood of superiority."""

    model_config = _FROZEN

    score: float | None = Field(description="Mean score per game, 0 to 1; None without games.")
    elo: float | None = Field(description="Elo difference; None if undefined or infinite.")
    elo_error: float | None = Field(description="95% error margin; None if undefined or infinite.")
    los: float | None = Field(description="Likelihood of superiority, 0 to 1; None if undefined.")


class PairStats(BaseModel):
    """Head-to-head statistics of two engines, from the side of ``first``."""

    model_config = _FROZEN

    first: str = Field(description="The engine the figures are for (the higher-ranked one).")
    second: str = Field(description="Its opponent.")
    games: int
    wins: int
    draws: int
    losses: int
    elo: float | None = Field(description="Trinomial Elo of first against second.")
    elo_error: float | None = Field(description="Trinomial 95% error margin.")
    los: float | None = Field(description="Trinomial likelihood that first is stronger.")
    pairs: int = Field(description="Complete pairs of games (seats swapped).")
    pentanomial: tuple[int, int, int, int, int] = Field(
        description="Pairs by first's pair score 0, ½, 1, 1½, 2: [LL, LD, DD+WL, WD, WW]."
    )
    penta_elo: float | None = Field(description="Pentanomial Elo of first against second.")
    penta_elo_error: float | None = Field(description="Pentanomial 95% error margin.")
    penta_los: float | None = Field(description="Pentanomial likelihood that first is stronger.")


class StandingRow(BaseModel):
    """One engine's line in the standings."""

    model_config = _FROZEN

    rank: int = Field(description="1 for the first row; rows equal in points and score share it.")
    name: str
    games: int
    wins: int
    draws: int
    losses: int
    points: float = Field(description="1 a win, ½ a draw.")
    score_percent: float | None = Field(description="100·points/games; None without games.")
    elo: float | None = Field(
        description="Maximum-likelihood rating over all games, the engines with games "
        "averaging 0; None without games."
    )
    elo_error: float | None = Field(
        description="95% error margin of the rating; None without games."
    )
    los: float | None = Field(
        description="Likelihood of being stronger than the next row's engine (head to head)."
    )


class Standings(BaseModel):
    """The standings of a tournament, its crosstable and head-to-head statistics."""

    model_config = _FROZEN

    rows: list[StandingRow] = Field(description="Sorted by points, then score.")
    crosstable: dict[str, dict[str, Record]] = Field(
        description="crosstable[a][b]: a's record against b, every two engines, table order."
    )
    pairs: list[PairStats] = Field(description="Every two engines that met, in table order.")


def elo_from_score(score: float) -> float:
    """Elo difference of a score (0 to 1): ``-400·log10(1/score - 1)``, ±inf at 1 and 0."""
    if not 0 <= score <= 1:
        raise ValueError(f"score {score} is not between 0 and 1")
    if score == 1:
        return math.inf
    if score == 0:
        return -math.inf
    return -400 * math.log10(1 / score - 1) + 0.0


def likelihood_of_superiority(wins: int, losses: int) -> float | None:
    """cutechess's LOS ``½(1 + erf((W - L)/√(2(W + L))))``; None without decisive games."""
    _check_counts(wins, losses)
    if wins + losses == 0:
        return None
    return 0.5 * (1 + math.erf((wins - losses) / math.sqrt(2 * (wins + losses))))


def wdl_elo(wins: int, draws: int, losses: int) -> EloEstimate:
    """Trinomial Elo, 95% error margin and LOS of a W-D-L record."""
    _check_counts(wins, draws, losses)
    games = wins + draws + losses
    if games == 0:
        return EloEstimate(score=None, elo=None, elo_error=None, los=None)
    score = (2 * wins + draws) / (2 * games)
    variance = (wins * (1 - score) ** 2 + draws * (0.5 - score) ** 2 + losses * score**2) / games
    elo, error = _elo_and_margin(score, math.sqrt(variance / games))
    return EloEstimate(
        score=score, elo=elo, elo_error=error, los=likelihood_of_superiority(wins, losses)
    )


def pentanomial_elo(counts: Sequence[int]) -> EloEstimate:
    """Pentanomial Elo, 95% error margin and LOS of pair counts ``[LL, LD, DD+WL, WD, WW]``."""
    if len(counts) != 5:
        raise ValueError(f"a pentanomial has 5 counts, not {len(counts)}")
    _check_counts(*counts)
    pairs = sum(counts)
    if pairs == 0:
        return EloEstimate(score=None, elo=None, elo_error=None, los=None)
    score = sum(k * count for k, count in enumerate(counts)) / (4 * pairs)
    variance = sum(count * (k / 4 - score) ** 2 for k, count in enumerate(counts)) / pairs
    stdev = math.sqrt(variance / pairs)
    elo, error = _elo_and_margin(score, stdev)
    if stdev > 0:
        los: float | None = 0.5 * (1 + math.erf((score - 0.5) / (math.sqrt(2) * stdev)))
    else:
        los = None if score == 0.5 else float(score > 0.5)
    return EloEstimate(score=score, elo=elo, elo_error=error, los=los)


def _check_counts(*counts: int) -> None:
    if any(count < 0 for count in counts):
        raise ValueError(f"negative count in {counts}")


def _elo_and_margin(score: float, stdev: float) -> tuple[float | None, float | None]:
    """Elo of ``score`` and the half-width of its 95% interval, None where not finite."""
    elo = elo_from_score(score)
    if not math.isfinite(elo):
        return None, None
    low, high = score - Z_95 * stdev, score + Z_95 * stdev
    if low <= 0 or high >= 1:
        return elo, None
    return elo, (elo_from_score(high) - elo_from_score(low)) / 2


PRIOR_DRAWS = 2.0
"""Virtual draws per engine in the rating fit: BayesElo's default prior."""

_NATURAL = 400 / math.log(10)
"""Elo per unit of the natural logarithm of the odds."""

_TOLERANCE = 1e-12
"""Newton's method ends with a full step once ``gradient·step`` is below this fraction of
``1 + |log-likelihood|``."""

_MAX_NEWTON_STEPS = 200
_MAX_STEP = 2.0
"""Longest move of a rating in one Newton step, in log-odds (347 Elo)."""

_MIN_FRACTION = 2.0**-40
"""Smallest fraction of a Newton step the backtracking tries."""


class Rating(NamedTuple):
    """A fitted rating and its 95% error margin, in Elo."""

    elo: float
    elo_error: float


def fit_ratings(
    games: Sequence[Sequence[int]], points: Sequence[Sequence[float]]
) -> list[Rating | None]:
    """Maximum-likelihood ratings with BayesElo's prior, as the module docstring describes.

    ``games[i][j]`` counts the games between engines ``i`` and ``j``, ``points[i][j]`` the
    points ``i`` took in them. An engine without games gets None; the others average 0
    within each group of engines linked by games. Raises ValueError for inconsistent input.
    """
    _check_matrices(games, points)
    size = len(games)
    played = [sum(row) for row in games]
    weight = [[0.0] * size for _ in range(size)]
    target = [[0.0] * size for _ in range(size)]
    for i in range(size):
        for j in range(size):
            if games[i][j]:
                virtual = PRIOR_DRAWS / 2 * (games[i][j] / played[i] + games[i][j] / played[j])
                weight[i][j] = games[i][j] + virtual
                target[i][j] = points[i][j] + virtual / 2
    group = _groups(weight)
    x = _maximise_likelihood(weight, target, group)
    ratings: list[Rating | None] = []
    for i in range(size):
        if not played[i]:
            ratings.append(None)
            continue
        members = [j for j in range(size) if group[j] == group[i]]
        centre = sum(x[j] for j in members) / len(members)
        information = sum(
            weight[i][j] * _sigmoid(x[i] - x[j]) * _sigmoid(x[j] - x[i]) for j in members
        )
        error = Z_95 * _NATURAL / math.sqrt(information)
        ratings.append(Rating(elo=_NATURAL * (x[i] - centre), elo_error=error))
    return ratings


def _check_matrices(games: Sequence[Sequence[int]], points: Sequence[Sequence[float]]) -> None:
    size = len(games)
    if len(points) != size or any(len(row) != size for row in [*games, *points]):
        raise ValueError("games and points must be square matrices of the same size")
    for i in range(size):
        for j in range(size):
            count = games[i][j]
            if (
                count != games[j][i]
                or count < 0
                or (i == j and count)
                or not 0 <= points[i][j] <= count
                or points[i][j] + points[j][i] != count
            ):
                raise ValueError(f"inconsistent games or points between engines {i} and {j}")


def _groups(weight: list[list[float]]) -> list[int]:
    """For each engine, the lowest index of the group of engines linked to it by games."""
    size = len(weight)
    group = [-1] * size
    for start in range(size):
        if group[start] < 0:
            group[start] = start
            pending = [start]
            while pending:
                i = pending.pop()
                for j in range(size):
                    if weight[i][j] and group[j] < 0:
                        group[j] = start
                        pending.append(j)
    return group


def _maximise_likelihood(
    weight: list[list[float]], target: list[list[float]], group: list[int]
) -> list[float]:
    """Log-odds ratings maximising the likelihood, each group summing to 0: Newton's method.

    The Hessian is singular along a common shift of a group; adding 1 between every two
    engines of a group makes the system positive definite and keeps each step's sum over
    every group at 0, as the gradient's is.
    """
    size = len(weight)
    x = [0.0] * size
    for _ in range(_MAX_NEWTON_STEPS):
        value = _log_likelihood(x, target)
        gradient = [
            sum(target[i][j] - weight[i][j] * _sigmoid(x[i] - x[j]) for j in range(size))
            for i in range(size)
        ]
        system = [[float(group[i] == group[j]) for j in range(size)] for i in range(size)]
        for i in range(size):
            for j in range(size):
                curvature = weight[i][j] * _sigmoid(x[i] - x[j]) * _sigmoid(x[j] - x[i])
                system[i][i] += curvature
                system[i][j] -= curvature
        step = _solve(system, gradient)
        gain = sum(g * s for g, s in zip(gradient, step, strict=True))
        if gain <= _TOLERANCE * (1 + abs(value)):
            return _moved(x, step, 1.0)
        fraction = min(1.0, _MAX_STEP / max(abs(si) for si in step))
        while (
            _log_likelihood(_moved(x, step, fraction), target) < value + fraction * gain / 4
            and fraction > _MIN_FRACTION
        ):
            fraction /= 2
        x = _moved(x, step, fraction)
    return x


def _moved(x: list[float], step: list[float], fraction: float) -> list[float]:
    return [xi + fraction * si for xi, si in zip(x, step, strict=True)]


def _log_likelihood(x: list[float], target: list[list[float]]) -> float:
    """``Σ a_ij·ln σ(x_i - x_j)`` over ordered pairs, with the virtual draws."""
    return sum(
        target[i][j] * _log_sigmoid(x[i] - x[j])
        for i in range(len(x))
        for j in range(len(x))
        if target[i][j]
    )


def _sigmoid(z: float) -> float:
    """``1/(1 + e^-z)``, without overflow."""
    if z >= 0:
        return 1 / (1 + math.exp(-z))
    exp = math.exp(z)
    return exp / (1 + exp)


def _log_sigmoid(z: float) -> float:
    """``ln(1/(1 + e^-z))``, without overflow."""
    return min(z, 0.0) - math.log1p(math.exp(-abs(z)))


def _solve(matrix: list[list[float]], vector: list[float]) -> list[float]:
    """Solve a symmetric positive definite system by Gaussian elimination (no pivoting)."""
    size = len(vector)
    rows = [[*row, value] for row, value in zip(matrix, vector, strict=True)]
    for k in range(size):
        for i in range(k + 1, size):
            factor = rows[i][k] / rows[k][k]
            if factor:
                for j in range(k, size + 1):
                    rows[i][j] -= factor * rows[k][j]
    solution = [0.0] * size
    for k in reversed(range(size)):
        known = sum(rows[k][j] * solution[j] for j in range(k + 1, size))
        solution[k] = (rows[k][size] - known) / rows[k][k]
    return solution


def compute_standings(results: Iterable[GameResult], names: Sequence[str]) -> Standings:
    """Standings, crosstable and head-to-head statistics recomputed from per-game results.

    ``names`` lists every engine of the tournament; engines without games get a row too.
    Raises ValueError for a repeated name or a result naming an engine not in ``names``.
    """
    index = {name: i for i, name in enumerate(names)}
    if len(index) != len(names):
        raise ValueError(f"engine names are not distinct: {list(names)}")
    size = len(names)
    # wdl[a][b]: wins, draws, losses of a against b; penta[a][b]: pairs by a's half-points;
    # waiting: games of a pair id still without a partner (all with the same seating).
    wdl = [[[0, 0, 0] for _ in range(size)] for _ in range(size)]
    penta = [[[0] * 5 for _ in range(size)] for _ in range(size)]
    waiting: dict[tuple[int, int, int], list[GameResult]] = {}
    for game in results:
        a, b = _engine_index(index, game.first), _engine_index(index, game.second)
        outcome = _OUTCOME_INDEX[game.winner]
        wdl[a][b][outcome] += 1
        wdl[b][a][2 - outcome] += 1
        if game.pair is None:
            continue
        low, high = min(a, b), max(a, b)
        unpaired = waiting.setdefault((low, high, game.pair), [])
        if unpaired and unpaired[0].first == game.second:
            half_points = _half_points(game, names[low]) + _half_points(unpaired.pop(0), names[low])
            penta[low][high][half_points] += 1
            penta[high][low][4 - half_points] += 1
        else:
            unpaired.append(game)

    totals = [[sum(column) for column in zip(*wdl[a], strict=True)] for a in range(size)]

    def order_key(a: int) -> tuple[int, Fraction]:
        wins, draws, losses = totals[a]
        games = wins + draws + losses
        return 2 * wins + draws, Fraction(2 * wins + draws, 2 * games) if games else Fraction(-1)

    order = sorted(range(size), key=order_key, reverse=True)
    ratings = fit_ratings(
        [[sum(wdl[a][b]) for b in range(size)] for a in range(size)],
        [[wdl[a][b][0] + wdl[a][b][1] / 2 for b in range(size)] for a in range(size)],
    )
    rows: list[StandingRow] = []
    for position, a in enumerate(order):
        wins, draws, losses = totals[a]
        games = wins + draws + losses
        rating = ratings[a]
        rank = position + 1
        if rows and order_key(order[position - 1]) == order_key(a):
            rank = rows[-1].rank
        los = None
        if position + 1 < size:
            head_to_head = wdl[a][order[position + 1]]
            los = likelihood_of_superiority(head_to_head[0], head_to_head[2])
        rows.append(
            StandingRow(
                rank=rank,
                name=names[a],
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
        )

    crosstable = {
        names[a]: {
            names[b]: Record(wins=wdl[a][b][0], draws=wdl[a][b][1], losses=wdl[a][b][2])
            for b in order
            if b != a
        }
        for a in order
    }
    pairs = [
        _pair_stats(names[a], names[b], wdl[a][b], penta[a][b])
        for i, a in enumerate(order)
        for b in order[i + 1 :]
        if sum(wdl[a][b])
    ]
    return Standings(rows=rows, crosstable=crosstable, pairs=pairs)


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


class _Table(NamedTuple):
    """A titled table of text cells; ``right`` says which columns are right-aligned."""

    title: str
    note: str
    headers: list[str]
    right: list[bool]
    rows: list[list[str]]


def _elo_cells(
    elo: float | None, error: float | None, taken: float, available: float
) -> tuple[str, str]:
    """Elo and margin cells; ``taken`` of ``available`` points tell an infinite Elo's sign."""
    if elo is None:
        if available and taken == available:
            return "+inf", "-"
        return ("-inf" if available else "-"), "-"
    return f"{round(elo, 1) + 0.0:+.1f}", "inf" if error is None else f"{error:.1f}"


def _percent(value: float | None) -> str:
    return "-" if value is None else f"{100 * value:.1f}%"


def _standings_table(standings: Standings) -> _Table:
    rows = []
    for row in standings.rows:
        elo, error = _elo_cells(row.elo, row.elo_error, row.points, row.games)
        score = "-" if row.score_percent is None else f"{row.score_percent:.1f}%"
        cells = [str(row.rank), row.name, str(row.games), str(row.wins), str(row.draws)]
        cells += [str(row.losses), f"{row.points:.1f}", score, elo, error, _percent(row.los)]
        rows.append(cells)
    return _Table(
        title="Standings",
        note="Elo: maximum-likelihood Bradley–Terry rating over all games (a draw half a win, "
        "2 virtual draws per engine as in BayesElo), averaging 0, ± its 95% margin; "
        "LOS: likelihood of being stronger than the next engine, head to head.",
        headers=["Rank", "Engine", "Games", "W", "D", "L", "Points", "Score", "Elo", "±", "LOS"],
        right=[True, False] + [True] * 9,
        rows=rows,
    )


def _crosstable_table(standings: Standings) -> _Table:
    names = [row.name for row in standings.rows]
    rows = []
    for name in names:
        records = standings.crosstable[name]
        cells = ["-" if other == name else _wdl_text(records[other]) for other in names]
        rows.append([name, *cells])
    return _Table(
        title="Crosstable",
        note="Wins-draws-losses of the row's engine against the column's.",
        headers=["Engine", *names],
        right=[False] + [True] * len(names),
        rows=rows,
    )


def _wdl_text(record: Record | PairStats) -> str:
    return f"{record.wins}-{record.draws}-{record.losses}"


def _pairs_table(standings: Standings) -> _Table:
    rows = []
    for pair in standings.pairs:
        points = pair.wins + pair.draws / 2
        elo, error = _elo_cells(pair.elo, pair.elo_error, points, pair.games)
        taken = sum(k * count for k, count in enumerate(pair.pentanomial))
        penta_elo, penta_error = _elo_cells(
            pair.penta_elo, pair.penta_elo_error, taken, 4 * pair.pairs
        )
        cells = [pair.first, pair.second, str(pair.games)]
        cells += [_wdl_text(pair), elo, error, _percent(pair.los)]
        cells += [str(pair.pairs), "[" + ", ".join(map(str, pair.pentanomial)) + "]"]
        cells += [penta_elo, penta_error, _percent(pair.penta_los)]
        rows.append(cells)
    return _Table(
        title="Head to head",
        note="From the first engine's side. Ptnml(0-2): complete pairs of games by its pair "
        "score 0, ½, 1, 1½, 2 points; the pentanomial Elo, margin and LOS come from them.",
        headers=[
            *["Engine", "Opponent", "Games", "W-D-L", "Elo", "±", "LOS", "Pairs"],
            *["Ptnml(0-2)", "Elo (ptnml)", "±", "LOS (ptnml)"],
        ],
        right=[False, False, True, True, True, True, True, True, False, True, True, True],
        rows=rows,
    )


def _tables(standings: Standings) -> list[_Table]:
    return [_standings_table(standings), _crosstable_table(standings), _pairs_table(standings)]


def format_standings_text(standings: Standings) -> str:
    """Standings, crosstable and head-to-head statistics as fixed-width plain-text tables."""
    blocks = []
    for table in _tables(standings):
        lines = [table.title, table.note, ""]
        if table.rows:
            widths = [
                max(len(cell) for cell in column)
                for column in zip(table.headers, *table.rows, strict=True)
            ]
            for cells in [table.headers, ["-" * width for width in widths], *table.rows]:
                aligned = (
                    cell.rjust(width) if right else cell.ljust(width)
                    for cell, width, right in zip(cells, widths, table.right, strict=True)
                )
                lines.append("  ".join(aligned).rstrip())
        else:
            lines.append("(none)")
        blocks.append("\n".join(lines))
    return "\n\n".join(blocks) + "\n"


def format_standings_markdown(standings: Standings) -> str:
    """Standings, crosstable and head-to-head statistics as Markdown tables."""
    blocks = []
    for table in _tables(standings):
        lines = [f"## {table.title}", "", table.note, ""]
        if table.rows:
            rule = ["---:" if right else ":---" for right in table.right]
            for cells in [table.headers, rule, *table.rows]:
                escaped = (cell.replace("|", "\\|") for cell in cells)
                lines.append("| " + " | ".join(escaped) + " |")
        else:
            lines.append("(none)")
        blocks.append("\n".join(lines))
    return "\n\n".join(blocks) + "\n"


_ROWS = TypeAdapter(list[StandingRow])


def standings_json(standings: Standings) -> str:
    """The text of ``standings.json``: the table rows, a JSON list of objects."""
    return _ROWS.dump_json(standings.rows, indent=2).decode() + "\n"


def report_json(standings: Standings) -> str:
    """The text of ``report.json``: rows, crosstable and head-to-head statistics."""
    return standings.model_dump_json(indent=2) + "\n"
