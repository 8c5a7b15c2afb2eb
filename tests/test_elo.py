"""Elo of scores, W-D-L records and pentanomials, margins, LOS: worked examples and properties."""

import math
from collections.abc import Callable
from statistics import NormalDist

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tournaments.elo import (
    Z_95,
    elo_from_score,
    likelihood_of_superiority,
    pentanomial_elo,
    wdl_elo,
    without_spread,
)

counts = st.integers(min_value=0, max_value=500)


def logistic_elo(score: float) -> float:
    """Elo of a score from the logistic model written as an odds ratio: 400·log10(s/(1-s))."""
    return 400 * math.log10(score / (1 - score))


def assert_mirrored(
    value: float | None,
    mirrored: float | None,
    expected: Callable[[float], float],
    **tolerance: float,
) -> None:
    """``mirrored`` is None where ``value`` is, and about ``expected(value)`` elsewhere."""
    if value is None:
        assert mirrored is None
    else:
        assert mirrored == pytest.approx(expected(value), **tolerance)


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
        with pytest.raises(ValueError, match="not between 0 and 1"):
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
    # Every game the same result: variance 0, so no margin (not ± 0.0) and no LOS.
    estimate = wdl_elo(0, 12, 0)
    assert (estimate.score, estimate.elo, estimate.elo_error, estimate.los) == (
        0.5,
        0.0,
        None,
        None,
    )


@pytest.mark.parametrize(
    ("counts", "expected"),
    [
        ((0, 0, 0), False),
        ((0, 3, 0), True),
        ((1,), True),
        ((0, 1, 0, 0, 0), True),
        ((0, 1, 0, 0, 1), False),
        ((5, 0, 1), False),
    ],
)
def test_without_spread(counts: tuple[int, ...], expected: bool) -> None:
    assert without_spread(counts) is expected


def test_one_pair_claims_no_margin_and_no_los() -> None:
    # One pair drawn and lost: s = 0.25, Elo -190.85; fastchess prints ± 0.00 and LOS 0.00%.
    lost = pentanomial_elo([0, 1, 0, 0, 0])
    assert lost.elo == pytest.approx(-400 * math.log10(3))
    assert (lost.elo_error, lost.los) == (None, None)
    # Its two games one by one (0-1-1) have a spread: the interval reaches 0, margin unbounded.
    games = wdl_elo(0, 1, 1)
    assert games.elo == pytest.approx(-400 * math.log10(3))
    assert games.elo_error is None
    assert games.los == pytest.approx(0.5 * (1 + math.erf(-1 / math.sqrt(2))))


def test_two_different_pairs_have_figures() -> None:
    # [DD+WL, WD]: pair scores 0.5 and 0.75 per game, s = 0.625, variance 0.015625 / 2 pairs.
    estimate = pentanomial_elo([0, 0, 1, 1, 0])
    se = math.sqrt(0.015625 / 2)
    delta = Z_95 * se
    expected = (logistic_elo(0.625 + delta) - logistic_elo(0.625 - delta)) / 2
    assert estimate.elo_error == pytest.approx(expected, rel=1e-12)
    assert estimate.los == pytest.approx(NormalDist().cdf(0.125 / se), rel=1e-9)


def test_wdl_margin_unbounded_when_interval_reaches_a_bound() -> None:
    # W=9 L=1: s = 0.9, variance = 0.9·0.01 + 0.1·0.81 = 0.09, se = √(0.09/10) = 0.0949,
    # s + 1.96·se = 1.086 > 1: the upper end of the interval has no finite Elo.
    estimate = wdl_elo(9, 0, 1)
    assert estimate.elo == pytest.approx(400 * math.log10(9))
    assert estimate.elo_error is None


def test_negative_counts_are_rejected() -> None:
    with pytest.raises(ValueError, match="negative count"):
        wdl_elo(-1, 0, 0)
    with pytest.raises(ValueError, match="negative count"):
        likelihood_of_superiority(0, -1)
    with pytest.raises(ValueError, match="negative count"):
        pentanomial_elo([0, 0, -1, 0, 0])
    with pytest.raises(ValueError, match="5 counts, not 4"):
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
    # Every pair the same score: variance 0, so neither a margin nor a LOS (not 0% or 100%).
    all_won = pentanomial_elo([0, 0, 0, 0, 3])
    assert (all_won.score, all_won.elo, all_won.elo_error, all_won.los) == (1.0, None, None, None)
    all_lost = pentanomial_elo([2, 0, 0, 0, 0])
    assert (all_lost.score, all_lost.elo, all_lost.elo_error, all_lost.los) == (
        0.0,
        None,
        None,
        None,
    )
    all_even = pentanomial_elo([0, 0, 4, 0, 0])
    assert (all_even.elo, all_even.elo_error, all_even.los) == (0.0, None, None)
    # Every pair 1½ points: s = 0.75 with zero variance.
    all_wd = pentanomial_elo([0, 0, 0, 5, 0])
    assert all_wd.elo == pytest.approx(400 * math.log10(3))
    assert (all_wd.elo_error, all_wd.los) == (None, None)


@given(counts, counts, counts)
def test_swapping_wins_and_losses_negates_elo(wins: int, draws: int, losses: int) -> None:
    forward, backward = wdl_elo(wins, draws, losses), wdl_elo(losses, draws, wins)
    assert_mirrored(forward.elo, backward.elo, lambda elo: -elo, abs=1e-9)
    assert_mirrored(forward.elo_error, backward.elo_error, lambda error: error, rel=1e-9)
    assert_mirrored(forward.los, backward.los, lambda los: 1 - los, abs=1e-12)


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
    assert_mirrored(forward.elo, backward.elo, lambda elo: -elo, abs=1e-9)
    assert_mirrored(forward.los, backward.los, lambda los: 1 - los, abs=1e-9)


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


@given(st.lists(st.integers(min_value=0, max_value=50), min_size=5, max_size=5))
def test_margin_and_pentanomial_los_exist_exactly_with_spread(penta: list[int]) -> None:
    estimate = pentanomial_elo(penta)
    if without_spread(penta) or not sum(penta):
        assert (estimate.elo_error, estimate.los) == (None, None)
    else:
        assert estimate.los is not None
        assert estimate.elo is None or estimate.elo_error is None or estimate.elo_error > 0
    games = wdl_elo(penta[0], penta[1], penta[2])
    if without_spread(penta[:3]):
        assert games.elo_error is None
    elif games.elo_error is not None:
        assert games.elo_error > 0
