"""Engine ratings: a maximum-likelihood Bradley–Terry fit over all games, with BayesElo's prior.

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

Undefined values
    A rating and its margin are ``None`` only for an engine without games (the standings
    leave void games out). The virtual draws keep every margin finite and above 0, so the
    ratings need no small-sample rule like the head-to-head figures' (:mod:`tournaments.elo`).
"""

import math
from collections.abc import Sequence
from typing import NamedTuple

from .elo import Z_95

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
            weight[i][j] * _sigmoid(x[i] - x[j]) * _sigmoid(x[j] - x[i])
            for j in members
            if weight[i][j]
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
    opponents = [[j for j in range(size) if weight[i][j]] for i in range(size)]
    x = [0.0] * size
    for _ in range(_MAX_NEWTON_STEPS):
        value = _log_likelihood(x, target)
        odds = [{j: _sigmoid(x[i] - x[j]) for j in opponents[i]} for i in range(size)]
        gradient = [
            sum(target[i][j] - weight[i][j] * odds[i][j] for j in opponents[i]) for i in range(size)
        ]
        system = [[float(group[i] == group[j]) for j in range(size)] for i in range(size)]
        for i in range(size):
            for j in opponents[i]:
                curvature = weight[i][j] * odds[i][j] * odds[j][i]
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
                pivot_row, row = rows[k], rows[i]
                row[k:] = [a - factor * b for a, b in zip(row[k:], pivot_row[k:], strict=True)]
    solution = [0.0] * size
    for k in reversed(range(size)):
        known = sum(rows[k][j] * solution[j] for j in range(k + 1, size))
        solution[k] = (rows[k][size] - known) / rows[k][k]
    return solution
