"""The rating fit and its margins against worked examples, a direct maximisation and properties."""

import math
from collections.abc import Callable
from random import Random

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tournaments.elo import Z_95
from tournaments.ratings import Rating, fit_ratings

NATURAL = 400 / math.log(10)
"""Elo per unit of the natural logarithm of the odds: 173.7178."""


def expected_score(rating: float, opponent: float) -> float:
    return 1 / (1 + 10 ** ((opponent - rating) / 400))


def virtual_draws(games: list[list[int]], i: int, j: int) -> float:
    """BayesElo's prior 2: n_ij/N_i + n_ij/N_j virtual draws between i and j."""
    count = games[i][j]
    return count / sum(games[i]) + count / sum(games[j]) if count else 0.0


def residuals(
    games: list[list[int]], points: list[list[float]], ratings: list[Rating | None]
) -> list[float]:
    """Points (real and virtual) minus expected points, per engine with games."""
    result = []
    for i, rating in enumerate(ratings):
        if rating is None:
            continue
        total = 0.0
        for j, other in enumerate(ratings):
            if games[i][j]:
                assert other is not None
                virtual = virtual_draws(games, i, j)
                total += points[i][j] + virtual / 2
                total -= (games[i][j] + virtual) * expected_score(rating.elo, other.elo)
        result.append(total)
    return result


def curvature_margin(games: list[list[int]], ratings: list[Rating | None], i: int) -> float:
    """1.96·(400/ln 10)/√(Σ m_ij·P·(1 - P)), written out from the ratings."""
    rating = ratings[i]
    assert rating is not None
    information = 0.0
    for j, other in enumerate(ratings):
        if games[i][j]:
            assert other is not None
            p = expected_score(rating.elo, other.elo)
            information += (games[i][j] + virtual_draws(games, i, j)) * p * (1 - p)
    return Z_95 * NATURAL / math.sqrt(information)


def two_engines(wins: int, draws: int, losses: int) -> tuple[list[list[int]], list[list[float]]]:
    games = wins + draws + losses
    points = wins + draws / 2
    return [[0, games], [games, 0]], [[0.0, points], [games - points, 0.0]]


def golden_section_maximum(function: Callable[[float], float], low: float, high: float) -> float:
    ratio = (math.sqrt(5) - 1) / 2
    while high - low > 1e-9:
        left, right = high - ratio * (high - low), low + ratio * (high - low)
        if function(left) < function(right):
            low = left
        else:
            high = right
    return (low + high) / 2


def test_two_engines_worked_example() -> None:
    # W-D-L 6-3-1 plus 2 virtual draws: 8.5 points of 12, odds 8.5:3.5.
    # Elo apart: 400·log10(8.5/3.5) = 400 × 0.3853509 = 154.140; each engine ±77.070.
    # Curvature: 12 × (8.5/12) × (3.5/12) = 2.479167; σ = 173.7178/√2.479167 = 110.329;
    # margin 1.959964 × 110.329 = 216.24.
    first, second = fit_ratings(*two_engines(6, 3, 1))
    assert first is not None and second is not None
    assert first.elo == pytest.approx(200 * math.log10(8.5 / 3.5), abs=1e-9)
    assert first.elo == pytest.approx(77.070, abs=1e-3)
    assert second.elo == pytest.approx(-first.elo, abs=1e-9)
    margin = Z_95 * NATURAL / math.sqrt(12 * (8.5 / 12) * (3.5 / 12))
    assert first.elo_error == pytest.approx(margin, rel=1e-9)
    assert second.elo_error == pytest.approx(margin, rel=1e-9)
    assert first.elo_error == pytest.approx(216.24, abs=0.005)


@pytest.mark.parametrize(
    ("wins", "draws", "losses"),
    [(6, 3, 1), (0, 0, 1), (5, 0, 0), (0, 4, 0), (30, 40, 30), (45, 30, 25), (136, 111, 96)],
)
def test_two_engines_match_a_direct_maximisation(wins: int, draws: int, losses: int) -> None:
    # The log-likelihood of the difference d with the 2 virtual draws, maximised numerically:
    # (W + D/2 + 1)·ln P(d) + (L + D/2 + 1)·ln P(-d).
    taken, given_up = wins + draws / 2 + 1, losses + draws / 2 + 1

    def log_likelihood(difference: float) -> float:
        p = expected_score(difference, 0)
        return taken * math.log(p) + given_up * math.log(1 - p)

    difference = golden_section_maximum(log_likelihood, -3000, 3000)
    first, second = fit_ratings(*two_engines(wins, draws, losses))
    assert first is not None and second is not None
    assert first.elo - second.elo == pytest.approx(difference, abs=1e-4)
    assert first.elo - second.elo == pytest.approx(400 * math.log10(taken / given_up), abs=1e-9)
    assert first.elo + second.elo == pytest.approx(0, abs=1e-9)
    # The curvature of that function at its maximum, in Elo: m·p·(1-p)/173.7178².
    games = wins + draws + losses + 2
    p = taken / games
    assert first.elo_error == pytest.approx(Z_95 * NATURAL / math.sqrt(games * p * (1 - p)))


def test_three_engines_one_lost_every_game() -> None:
    # A and B: 2-2-2; A and C: 4-0-0; B and C: 4-0-0. A and B played 10 games, C 8.
    # Virtual draws: A-B 6/10 + 6/10 = 1.2, A-C and B-C 4/10 + 4/8 = 0.9 each.
    # By symmetry A and B share a rating; C's likelihood equation: its 0.45 + 0.45 virtual
    # points = (4.9 + 4.9)·P(C - A), so P = 0.9/9.8 and A - C = 400·log10(8.9/0.9) = 398.06.
    # With the mean at 0: A = B = 398.06/3 = +132.69, C = -265.37.
    games = [[0, 6, 4], [6, 0, 4], [4, 4, 0]]
    points = [[0.0, 3.0, 4.0], [3.0, 0.0, 4.0], [0.0, 0.0, 0.0]]
    a, b, c = fit_ratings(games, points)
    assert a is not None and b is not None and c is not None
    gap = 400 * math.log10(8.9 / 0.9)
    assert (a.elo, b.elo, c.elo) == pytest.approx((gap / 3, gap / 3, -2 * gap / 3), abs=1e-9)
    assert c.elo == pytest.approx(-265.37, abs=0.005)
    # Margins: C's curvature 2 × 4.9 × (0.9/9.8)(8.9/9.8) = 0.817347 -> ±376.61;
    # A's 7.2 × ¼ + 4.9 × (0.9/9.8)(8.9/9.8) = 2.208673 -> ±229.10.
    p = 0.9 / 9.8
    assert c.elo_error == pytest.approx(Z_95 * NATURAL / math.sqrt(9.8 * p * (1 - p)))
    assert a.elo_error == pytest.approx(Z_95 * NATURAL / math.sqrt(1.8 + 4.9 * p * (1 - p)))
    assert b.elo_error == pytest.approx(a.elo_error)
    assert (round(c.elo_error, 2), round(a.elo_error, 2)) == (376.61, 229.10)
    assert max(abs(r) for r in residuals(games, points, [a, b, c])) < 1e-9


@pytest.mark.parametrize("games", [1, 1000, 10**6])
def test_a_perfect_sweep_converges(games: int) -> None:
    # games + 1 points of games + 2: 400·log10(games + 1) Elo apart.
    first, second = fit_ratings([[0, games], [games, 0]], [[0, games], [0, 0]])
    assert first is not None and second is not None
    assert first.elo == pytest.approx(200 * math.log10(games + 1), abs=1e-6)
    assert second.elo == pytest.approx(-first.elo, abs=1e-9)
    assert math.isfinite(first.elo_error) and first.elo_error > 0


def test_a_sweep_down_a_ladder_converges() -> None:
    # A wins all 50 games against B and C, B all 50 against C: finite, ordered, B in the
    # middle by symmetry, and the likelihood equations hold.
    games = [[0, 50, 50], [50, 0, 50], [50, 50, 0]]
    points = [[0.0, 50.0, 50.0], [0.0, 0.0, 50.0], [0.0, 0.0, 0.0]]
    ratings = fit_ratings(games, points)
    a, b, c = (rating.elo for rating in ratings if rating is not None)
    assert a > b > c
    assert b == pytest.approx(0, abs=1e-9)
    assert a == pytest.approx(-c, rel=1e-12)
    assert max(abs(r) for r in residuals(games, points, ratings)) < 1e-9
    assert all(rating is not None and math.isfinite(rating.elo_error) for rating in ratings)


def test_a_lopsided_schedule_converges() -> None:
    # Tens of thousands of games on some pairs and one or a few on others: Newton steps
    # from equal ratings must be shortened here, and the fit still solves its equations.
    games = [[0, 69464, 46767, 0], [69464, 0, 230, 1], [46767, 230, 0, 194128], [0, 1, 194128, 0]]
    points = [
        [0.0, 69462.0, 0.0, 0.0],
        [2.0, 0.0, 0.0, 1.0],
        [46767.0, 230.0, 0.0, 194128.0],
        [0.0, 0.0, 0.0, 0.0],
    ]
    ratings = fit_ratings(games, points)
    assert max(abs(r) for r in residuals(games, points, ratings)) < 1e-6
    assert sum(rating.elo for rating in ratings if rating is not None) == pytest.approx(0, abs=1e-6)


def test_unlinked_groups_each_average_zero() -> None:
    # A beat B; C and D drew; E never played.
    games = [[0, 1, 0, 0, 0], [1, 0, 0, 0, 0], [0, 0, 0, 1, 0], [0, 0, 1, 0, 0], [0] * 5]
    points = [
        [0.0, 1.0, 0.0, 0.0, 0.0],
        [0.0] * 5,
        [0.0, 0.0, 0.0, 0.5, 0.0],
        [0.0, 0.0, 0.5, 0.0, 0.0],
        [0.0] * 5,
    ]
    a, b, c, d, e = fit_ratings(games, points)
    assert a is not None and b is not None and c is not None and d is not None
    assert (a.elo, b.elo) == pytest.approx((200 * math.log10(2), -200 * math.log10(2)))
    assert (c.elo, d.elo) == (0.0, 0.0)
    assert e is None


def test_inconsistent_matrices_are_rejected() -> None:
    with pytest.raises(ValueError, match="square"):
        fit_ratings([[0, 1]], [[0, 1]])
    with pytest.raises(ValueError, match="inconsistent"):
        fit_ratings([[0, 1], [2, 0]], [[0, 1], [1, 0]])
    with pytest.raises(ValueError, match="inconsistent"):
        fit_ratings([[0, 2], [2, 0]], [[0, 2], [1, 0]])
    with pytest.raises(ValueError, match="inconsistent"):
        fit_ratings([[1]], [[0.5]])


@st.composite
def schedules(draw: st.DrawFn, balanced: bool = False) -> tuple[list[list[int]], list[list[float]]]:
    """Games and points matrices; ``balanced``: every two engines play the same games."""
    size = draw(st.integers(min_value=1, max_value=5))
    per_pair = draw(st.integers(min_value=1, max_value=4))
    games = [[0] * size for _ in range(size)]
    points = [[0.0] * size for _ in range(size)]
    for i in range(size):
        for j in range(i + 1, size):
            count = per_pair if balanced else draw(st.integers(min_value=0, max_value=6))
            wins = draw(st.integers(min_value=0, max_value=count))
            draws = draw(st.integers(min_value=0, max_value=count - wins))
            games[i][j] = games[j][i] = count
            points[i][j] = wins + draws / 2
            points[j][i] = count - points[i][j]
    return games, points


@given(schedules())
def test_fit_solves_the_likelihood_equations(
    schedule: tuple[list[list[int]], list[list[float]]],
) -> None:
    games, points = schedule
    ratings = fit_ratings(games, points)
    for row, rating in zip(games, ratings, strict=True):
        assert (rating is None) == (sum(row) == 0)
    assert all(abs(r) < 1e-7 for r in residuals(games, points, ratings))
    elos = [rating.elo for rating in ratings if rating is not None]
    assert all(math.isfinite(elo) for elo in elos)
    assert sum(elos) == pytest.approx(0, abs=1e-6)
    for i, rating in enumerate(ratings):
        if rating is not None:
            assert rating.elo_error == pytest.approx(curvature_margin(games, ratings, i))


@given(schedules(), st.randoms())
def test_fit_is_symmetric(
    schedule: tuple[list[list[int]], list[list[float]]], random: Random
) -> None:
    games, points = schedule
    ratings = fit_ratings(games, points)
    reversed_points = [[points[j][i] for j in range(len(games))] for i in range(len(games))]
    for rating, mirrored in zip(ratings, fit_ratings(games, reversed_points), strict=True):
        if rating is None:
            assert mirrored is None
        else:
            assert mirrored is not None
            assert mirrored.elo == pytest.approx(-rating.elo, abs=1e-6)
            assert mirrored.elo_error == pytest.approx(rating.elo_error, rel=1e-6)
    order = list(range(len(games)))
    random.shuffle(order)
    shuffled = fit_ratings(
        [[games[i][j] for j in order] for i in order],
        [[points[i][j] for j in order] for i in order],
    )
    for position, i in enumerate(order):
        rating, moved = ratings[i], shuffled[position]
        if rating is None:
            assert moved is None
        else:
            assert moved is not None
            assert moved.elo == pytest.approx(rating.elo, abs=1e-6)
            assert moved.elo_error == pytest.approx(rating.elo_error, rel=1e-6)


@given(schedules(balanced=True))
def test_balanced_round_robin_ratings_follow_the_points(
    schedule: tuple[list[list[int]], list[list[float]]],
) -> None:
    games, points = schedule
    totals = [sum(row) for row in points]
    elos = [rating.elo if rating else math.nan for rating in fit_ratings(games, points)]
    for i in range(len(games)):
        for j in range(len(games)):
            if i == j:
                continue
            if totals[i] > totals[j]:
                assert elos[i] > elos[j] + 1e-6
            elif totals[i] == totals[j]:
                assert elos[i] == pytest.approx(elos[j], abs=1e-6)
