"""Ratings, Elo, error margins and LOS against worked examples, edge cases and properties."""

import math
from collections.abc import Callable
from random import Random
from statistics import NormalDist

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tournaments.stats import (
    Z_95,
    Rating,
    elo_from_score,
    fit_ratings,
    likelihood_of_superiority,
    pentanomial_elo,
    wdl_elo,
)

counts = st.integers(min_value=0, max_value=500)


def logistic_elo(score: float) -> float:
    """Elo of a score from the logistic model written as an odds ratio: 400·log10(s/(1-s))."""
    return 400 * math.log10(score / (1 - score))


def test_z_is_the_95_percent_normal_quantile() -> None:
    assert pytest.approx(NormalDist().inv_cdf(0.975), abs=1e-12) == Z_95


@pytest.mark.parametrize(
    ("score", "expected"),
    [
        (0.5, 0.0),
        # odds 3:1 -> 400·log10(3) = 400 × 0.47712125 = 190.8485
        (0.75, 190.84850188786497),
        (0.25, -190.84850188786497),
        # odds 10:1 -> exactly 400
        (10 / 11, 400.0),
        # odds 3:2 -> 400·log10(1.5) = 400 × 0.17609126 = 70.4365
        (0.6, 70.43650362227249),
    ],
)
def test_elo_from_score(score: float, expected: float) -> None:
    assert elo_from_score(score) == pytest.approx(expected, abs=1e-9)


def test_elo_of_an_even_score_is_positive_zero() -> None:
    assert math.copysign(1, elo_from_score(0.5)) == 1


def test_elo_from_extreme_scores_is_infinite() -> None:
    assert elo_from_score(1.0) == math.inf
    assert elo_from_score(0.0) == -math.inf
    for bad in (-0.01, 1.01):
        with pytest.raises(ValueError):
            elo_from_score(bad)


def test_wdl_even_record() -> None:
    # W=30 D=40 L=30: s = (30 + 20)/100 = 0.5 -> 0 Elo.
    # per-game variance = (30·0.25 + 40·0 + 30·0.25)/100 = 0.15; se = √(0.15/100) = 0.0387298
    # δ = 1.959964 × 0.0387298 = 0.0759082; by symmetry the margin is elo(0.5 + δ)
    # = 400·log10(0.5759082/0.4240918) = 53.158
    estimate = wdl_elo(30, 40, 30)
    delta = 1.959963984540054 * math.sqrt(0.15 / 100)
    assert estimate.score == 0.5
    assert estimate.elo == 0.0
    assert estimate.elo_error == pytest.approx(logistic_elo(0.5 + delta), rel=1e-12)
    assert estimate.elo_error == pytest.approx(53.158, abs=1e-3)
    assert estimate.los == 0.5


def test_wdl_cutechess_example() -> None:
    # W=45 D=30 L=25, N=100: s = (45 + 15)/100 = 0.6; Elo = 400·log10(0.6/0.4) = 70.4365.
    # variance = 0.45·(1-0.6)² + 0.30·(0.5-0.6)² + 0.25·(0-0.6)² = 0.072 + 0.003 + 0.09 = 0.165
    # se = √(0.165/100) = 0.0406202; δ = 1.959964 × 0.0406202 = 0.0796141
    # elo(0.6796141) = 400·log10(2.121244) = 130.646; elo(0.5203859) = 400·log10(1.085025) = 14.184
    # margin = (130.646 - 14.184)/2 = 58.23 (cutechess's approximate z = 1.95716 prints 58.15).
    # LOS = ½(1 + erf(20/√140)) = ½(1 + erf(1.690309)) = 0.99159
    estimate = wdl_elo(45, 30, 25)
    delta = 1.959963984540054 * math.sqrt(0.165 / 100)
    expected_margin = (logistic_elo(0.6 + delta) - logistic_elo(0.6 - delta)) / 2
    assert estimate.score == pytest.approx(0.6)
    assert estimate.elo == pytest.approx(70.4365, abs=1e-4)
    assert estimate.elo_error == pytest.approx(expected_margin, rel=1e-12)
    assert estimate.elo_error == pytest.approx(58.23, abs=0.01)
    assert estimate.los == pytest.approx(0.5 * (1 + math.erf(20 / math.sqrt(140))), rel=1e-12)
    assert estimate.los == pytest.approx(0.99159, abs=1e-5)


def test_wdl_fastchess_reference_values() -> None:
    # fastchess's own test: W=136 L=96 D=111 -> Elo 40.70 ± 30.43.
    estimate = wdl_elo(136, 111, 96)
    assert estimate.elo == pytest.approx(40.70, abs=0.005)
    assert estimate.elo_error == pytest.approx(30.43, abs=0.005)


@pytest.mark.parametrize(
    ("wins", "losses", "expected"),
    [
        (10, 10, 0.5),
        (0, 0, None),
        # ½(1 + erf(2/√(2·2))) = ½(1 + erf(1)) = 0.9213504
        (2, 0, 0.9213503964748574),
        # ½(1 + erf(-8/√(2·32))) = ½(1 - erf(1)) = 0.0786496
        (12, 20, 0.07864960352514258),
    ],
)
def test_likelihood_of_superiority(wins: int, losses: int, expected: float | None) -> None:
    result = likelihood_of_superiority(wins, losses)
    if expected is None:
        assert result is None
    else:
        assert result == pytest.approx(expected, abs=1e-12)


def test_wdl_without_games_is_undefined() -> None:
    estimate = wdl_elo(0, 0, 0)
    assert (estimate.score, estimate.elo, estimate.elo_error, estimate.los) == (
        None,
        None,
        None,
        None,
    )


def test_wdl_perfect_and_zero_scores() -> None:
    perfect = wdl_elo(10, 0, 0)
    assert (perfect.score, perfect.elo, perfect.elo_error) == (1.0, None, None)
    assert perfect.los == pytest.approx(0.5 * (1 + math.erf(10 / math.sqrt(20))))
    nothing = wdl_elo(0, 0, 7)
    assert (nothing.score, nothing.elo, nothing.elo_error) == (0.0, None, None)
    assert nothing.los is not None and nothing.los < 0.01


def test_wdl_all_draws() -> None:
    estimate = wdl_elo(0, 12, 0)
    assert (estimate.score, estimate.elo, estimate.elo_error, estimate.los) == (
        0.5,
        0.0,
        0.0,
        None,
    )


def test_wdl_margin_unbounded_when_interval_reaches_a_bound() -> None:
    # W=9 L=1: s = 0.9, variance = 0.9·0.01 + 0.1·0.81 = 0.09, se = √(0.09/10) = 0.0949,
    # s + 1.96·se = 1.086 > 1: the upper end of the interval has no finite Elo.
    estimate = wdl_elo(9, 0, 1)
    assert estimate.elo == pytest.approx(400 * math.log10(9))
    assert estimate.elo_error is None


def test_negative_counts_are_rejected() -> None:
    with pytest.raises(ValueError):
        wdl_elo(-1, 0, 0)
    with pytest.raises(ValueError):
        likelihood_of_superiority(0, -1)
    with pytest.raises(ValueError):
        pentanomial_elo([0, 0, -1, 0, 0])
    with pytest.raises(ValueError):
        pentanomial_elo([1, 2, 3, 4])


def test_pentanomial_hand_example() -> None:
    # [LL, LD, DD+WL, WD, WW] = [1, 3, 10, 4, 2], 20 pairs.
    # Pair points: 0·1 + 0.5·3 + 1·10 + 1.5·4 + 2·2 = 21.5, mean 1.075, s = 0.5375.
    # Elo = 400·log10(0.5375/0.4625) = 400·log10(1.162162) = 400 × 0.0652673 = 26.107
    # Per-game pair values 0, .25, .5, .75, 1; variance over pairs:
    # (1·0.5375² + 3·0.2875² + 10·0.0375² + 4·0.2125² + 2·0.4625²)/20 = 1.159375/20 = 0.05796875
    # se = √(0.05796875/20) = 0.0538371; LOS = Φ(0.0375/0.0538371) = Φ(0.696545) = 0.75696
    estimate = pentanomial_elo([1, 3, 10, 4, 2])
    variance = (1 * 0.5375**2 + 3 * 0.2875**2 + 10 * 0.0375**2 + 4 * 0.2125**2 + 2 * 0.4625**2) / 20
    assert variance == pytest.approx(0.05796875)
    se = math.sqrt(variance / 20)
    delta = 1.959963984540054 * se
    assert estimate.score == pytest.approx(0.5375)
    assert estimate.elo == pytest.approx(logistic_elo(0.5375), rel=1e-12)
    assert estimate.elo == pytest.approx(26.107, abs=0.001)
    expected_margin = (logistic_elo(0.5375 + delta) - logistic_elo(0.5375 - delta)) / 2
    assert estimate.elo_error == pytest.approx(expected_margin, rel=1e-12)
    assert estimate.los == pytest.approx(NormalDist().cdf(0.0375 / se), rel=1e-9)
    assert estimate.los == pytest.approx(0.75696, abs=1e-5)


@pytest.mark.parametrize(
    ("counts", "elo", "error", "los"),
    [
        # fastchess's own tests (LL, LD, WL, DD, WD, WW) with WL and DD merged.
        ([34, 54, 31 + 32, 64, 75], 55.58, 27.65, 1.0),
        ([332, 433, 457 + 41, 333, 334], -8.64, 10.33, 0.0505),
        ([7895, 8757, 5485 + 200, 568, 9999], -21.04, 2.95, 0.0),
    ],
)
def test_pentanomial_fastchess_reference_values(
    counts: list[int], elo: float, error: float, los: float
) -> None:
    estimate = pentanomial_elo(counts)
    assert estimate.elo == pytest.approx(elo, abs=0.005)
    assert estimate.elo_error == pytest.approx(error, abs=0.005)
    assert estimate.los == pytest.approx(los, abs=0.00005)


def test_pentanomial_edge_cases() -> None:
    empty = pentanomial_elo([0, 0, 0, 0, 0])
    assert (empty.score, empty.elo, empty.elo_error, empty.los) == (None, None, None, None)
    all_won = pentanomial_elo([0, 0, 0, 0, 3])
    assert (all_won.score, all_won.elo, all_won.elo_error, all_won.los) == (1.0, None, None, 1.0)
    all_lost = pentanomial_elo([2, 0, 0, 0, 0])
    assert (all_lost.score, all_lost.elo, all_lost.elo_error, all_lost.los) == (
        0.0,
        None,
        None,
        0.0,
    )
    all_even = pentanomial_elo([0, 0, 4, 0, 0])
    assert (all_even.elo, all_even.elo_error, all_even.los) == (0.0, 0.0, None)
    # Every pair 1½ points: s = 0.75 with zero variance.
    all_wd = pentanomial_elo([0, 0, 0, 5, 0])
    assert all_wd.elo == pytest.approx(400 * math.log10(3))
    assert (all_wd.elo_error, all_wd.los) == (0.0, 1.0)


@given(counts, counts, counts)
def test_swapping_wins_and_losses_negates_elo(wins: int, draws: int, losses: int) -> None:
    forward, backward = wdl_elo(wins, draws, losses), wdl_elo(losses, draws, wins)
    if forward.elo is None:
        assert backward.elo is None
    else:
        assert backward.elo == pytest.approx(-forward.elo, abs=1e-9)
    if forward.elo_error is None:
        assert backward.elo_error is None
    else:
        assert backward.elo_error == pytest.approx(forward.elo_error, rel=1e-9)
    if forward.los is None:
        assert backward.los is None
    else:
        assert backward.los == pytest.approx(1 - forward.los, abs=1e-12)


@given(counts, counts, counts)
def test_one_more_win_raises_score_elo_and_los(wins: int, draws: int, losses: int) -> None:
    before, after = wdl_elo(wins, draws, losses), wdl_elo(wins + 1, draws, losses)
    assert after.score is not None
    if before.score is not None:
        assert after.score > before.score or after.score == before.score == 1
    if before.elo is not None and after.elo is not None:
        assert after.elo > before.elo
    assert after.los is not None
    assert before.los is None or after.los >= before.los


@given(counts, counts, counts)
def test_margin_brackets_the_score_interval(wins: int, draws: int, losses: int) -> None:
    estimate = wdl_elo(wins, draws, losses)
    if estimate.elo is None or estimate.elo_error is None:
        return
    games = wins + draws + losses
    score = (wins + draws / 2) / games
    variance = (wins * (1 - score) ** 2 + draws * (0.5 - score) ** 2 + losses * score**2) / games
    delta = Z_95 * math.sqrt(variance / games)
    assert score - delta > 0 and score + delta < 1
    low, high = logistic_elo(score - delta), logistic_elo(score + delta)
    assert estimate.elo_error == pytest.approx((high - low) / 2, rel=1e-9, abs=1e-9)
    assert low - 1e-9 <= estimate.elo <= high + 1e-9


@given(st.lists(counts, min_size=5, max_size=5))
def test_reversed_pentanomial_negates_elo(penta: list[int]) -> None:
    forward, backward = pentanomial_elo(penta), pentanomial_elo(penta[::-1])
    if forward.elo is None:
        assert backward.elo is None
    else:
        assert backward.elo == pytest.approx(-forward.elo, abs=1e-9)
    if forward.los is None:
        assert backward.los is None
    else:
        assert backward.los == pytest.approx(1 - forward.los, abs=1e-9)


@given(st.lists(st.tuples(st.sampled_from([0.0, 0.5, 1.0]), st.sampled_from([0.0, 0.5, 1.0]))))
def test_pentanomial_score_equals_the_score_of_its_games(pairs: list[tuple[float, float]]) -> None:
    penta = [0] * 5
    for first, second in pairs:
        penta[round(2 * (first + second))] += 1
    games = [score for pair in pairs for score in pair]
    trinomial = wdl_elo(games.count(1.0), games.count(0.5), games.count(0.0))
    pentanomial = pentanomial_elo(penta)
    if not pairs:
        assert trinomial.score is None and pentanomial.score is None
    else:
        assert pentanomial.score == pytest.approx(sum(games) / len(games), abs=1e-12)
        assert trinomial.score == pytest.approx(sum(games) / len(games), abs=1e-12)


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
