"""The SPRT's statistics: the log-likelihood ratio against published figures and against an
independent computation, its symmetries, the bounds, verdicts and the normalized Elo."""

import itertools
import math
import re
from collections.abc import Callable

import pytest
from hypothesis import given
from hypothesis import strategies as st
from pydantic import ValidationError

from tournaments.elo import Z_95
from tournaments.sprt import (
    MAX_ELO,
    NELO_PER_T,
    EloModel,
    SprtTest,
    Verdict,
    log_likelihood_ratio,
    normalized_elo,
)
from tournaments.sprt_chart import estimate_text

NORMALIZED, LOGISTIC = EloModel.NORMALIZED, EloModel.LOGISTIC


def fastchess_pentanomial(ll: int, ld: int, wl: int, dd: int, wd: int, ww: int) -> list[int]:
    """fastchess's ``Stats(ll, ld, wl, dd, wd, ww)`` as counts [LL, LD, DD+WL, WD, WW]."""
    return [ll, ld, wl + dd, wd, ww]


def fastchess_trinomial(wins: int, losses: int, draws: int) -> list[int]:
    """fastchess's ``Stats(wins, losses, draws)`` as counts [L, D, W]."""
    return [losses, draws, wins]


# Published in fastchess's tests, app/tests/sprt_test.cpp (github.com/Disservin/fastchess):
# the counts, elo0, elo1 and model of each case and the LLR it checks, to 1%
# (doctest::Approx(...).epsilon(0.01)). Its cases whose pairs (or games) all fall in one
# cell are left out: there the regularised cells (0.001) make the distributions of maximum
# likelihood sit within 1e-7 of a pole of the secular equation, which fastchess solves to
# 1e-7 only, and its two versions of those cases disagree with each other (104 or 5,550
# pairs won twice for the same 2.94); the exact value for such data is checked below.
FASTCHESS_CASES = [
    ("normalized pentanomial 1", fastchess_pentanomial(365, 16618, 36029, 200, 16974, 390),
     0, 2, NORMALIZED, 2.25),
    ("normalized pentanomial 2", fastchess_pentanomial(127, 4883, 10311, 401, 5150, 104),
     -1.75, 0.25, NORMALIZED, 3.01),
    ("logistic pentanomial 1", fastchess_pentanomial(223, 9863, 20279, 1000, 10037, 246),
     0.5, 2.5, LOGISTIC, -3.07),
    ("logistic pentanomial 2", fastchess_pentanomial(871, 26175, 55003, 980, 26678, 821),
     0, 2, LOGISTIC, -4.98),
    ("normalized trinomial 1", fastchess_trinomial(36433, 36027, 68692), 0, 2, NORMALIZED, 0.92),
    ("normalized trinomial 2", fastchess_trinomial(10871, 10650, 20431),
     -1.75, 0.25, NORMALIZED, 2.30),
    ("logistic trinomial 1", fastchess_trinomial(21404, 21184, 40708),
     0.5, 2.5, LOGISTIC, -1.57),
    ("logistic trinomial 2", fastchess_trinomial(57433, 57030, 106593),
     0, 2, LOGISTIC, -2.59),
]  # fmt: skip


@pytest.mark.parametrize(
    ("counts", "elo0", "elo1", "model", "published"),
    [case[1:] for case in FASTCHESS_CASES],
    ids=[case[0] for case in FASTCHESS_CASES],
)
def test_the_llr_is_fastchess_s(
    counts: list[int], elo0: float, elo1: float, model: EloModel, published: float
) -> None:
    assert log_likelihood_ratio(counts, elo0, elo1, model) == pytest.approx(published, rel=0.01)


def fishtest_approximation(counts: list[int], nelo0: float, nelo1: float) -> float:
    """fishtest's ``LLR_normalized_alt`` (Van den Bergh, "Comments on Normalized Elo",
    section 4.2), written out from its formula: ``N/2 · ln((1 + (t - t0)²)/(1 + (t - t1)²))``
    per game, with the t-values of the data and the hypotheses."""
    weights = [count or 1e-3 for count in counts]
    pairs = sum(weights)
    mean = sum(k / 4 * w for k, w in enumerate(weights)) / pairs
    variance = sum((k / 4 - mean) ** 2 * w for k, w in enumerate(weights)) / pairs
    t = (mean - 0.5) / math.sqrt(2 * variance)
    t0, t1 = nelo0 / NELO_PER_T, nelo1 / NELO_PER_T
    return pairs * math.log((1 + (t - t0) ** 2) / (1 + (t - t1) ** 2))


@pytest.mark.parametrize(
    ("counts", "elo0", "elo1"),
    [
        ([365, 16618, 36229, 16974, 390], 0, 2),
        ([100, 900, 2000, 1000, 120], 0, 5),
        ([1187, 7410, 13475, 7378, 1164], -3, 1),  # from fishtest's stat_util.py
        ([39, 2226, 31451, 2412, 40], 0.764, 3.439),  # from fishtest's stat_util.py
    ],
)
def test_large_samples_agree_with_fishtest_s_approximation(
    counts: list[int], elo0: float, elo1: float
) -> None:
    exact = log_likelihood_ratio(counts, elo0, elo1)
    assert exact == pytest.approx(fishtest_approximation(counts, elo0, elo1), rel=2e-3)


def golden_maximum(function: Callable[[float], float], low: float, high: float) -> float:
    """The largest value of a unimodal function on ``(low, high)``, by golden sections."""
    ratio = (math.sqrt(5) - 1) / 2
    for _ in range(200):
        left, right = high - ratio * (high - low), low + ratio * (high - low)
        if function(left) < function(right):
            low = left
        else:
            high = right
    return function((low + high) / 2)


def direct_trinomial_llr(counts: list[int], elo0: float, elo1: float, model: EloModel) -> float:
    """The LLR of ``[L, D, W]`` counts as the difference of two maximum log-likelihoods, each
    over the distributions ``(l, d, w)`` that satisfy its hypothesis, found by golden sections
    along that curve (nothing shared with the module but the formulas of the hypotheses).

    With ``m = μ - ½ = (w - l)/2``: a mean ``μ`` (logistic) fixes ``m`` and leaves ``w`` free;
    a t-value ``t = m/σ ≠ 0`` (normalized) gives ``w + l = 4m²(1 + 1/t²)``, so ``m`` is the
    free parameter (``t = 0``: ``w = l``, free)."""
    weights = [count or 1e-3 for count in counts]

    def log_likelihood(loss: float, win: float) -> float:
        draw = 1 - loss - win
        return sum(n * math.log(p) for n, p in zip(weights, (loss, draw, win), strict=True))

    def best(elo: float) -> float:
        if model is EloModel.LOGISTIC:
            m = 1 / (1 + 10 ** (-elo / 400)) - 0.5
            return golden_maximum(
                lambda w: log_likelihood(w - 2 * m, w), max(0, 2 * m), (1 + 2 * m) / 2
            )
        t = elo / NELO_PER_T
        if t == 0:
            return golden_maximum(lambda w: log_likelihood(w, w), 0, 0.5)
        scale = 2 * (1 + 1 / t**2)
        edges = sorted(math.copysign(e, t) for e in (1 / scale, 1 / math.sqrt(2 * scale)))
        return golden_maximum(
            lambda m: log_likelihood(scale * m * m - m, scale * m * m + m), *edges
        )

    return best(elo1) - best(elo0)


@pytest.mark.parametrize("model", list(EloModel))
@pytest.mark.parametrize(
    ("counts", "elo0", "elo1"),
    [
        ([30, 50, 40], 0, 5),
        ([12, 3, 20], -10, 30),
        ([200, 90, 150], -20, 0),
        ([0, 0, 4250], 0, 10),  # every game won: fastchess's degenerate case
        ([0, 16700, 0], 0, 5),  # every game drawn: the other version of it
        ([3, 0, 0], -50, 50),
    ],
)
def test_the_llr_is_the_ratio_of_the_constrained_maximum_likelihoods(
    counts: list[int], elo0: float, elo1: float, model: EloModel
) -> None:
    direct = direct_trinomial_llr(counts, elo0, elo1, model)
    assert log_likelihood_ratio(counts, elo0, elo1, model) == pytest.approx(
        direct, rel=1e-7, abs=1e-9
    )


counts_5 = st.lists(st.integers(0, 400), min_size=5, max_size=5)
elos = st.floats(-MAX_ELO, MAX_ELO)
any_llr = given(counts=counts_5, elo0=elos, elo1=elos, model=st.sampled_from(list(EloModel)))
"""Pair counts, two Elo hypotheses and a model, any of them."""


@any_llr
def test_swapping_the_hypotheses_negates_the_llr(
    counts: list[int], elo0: float, elo1: float, model: EloModel
) -> None:
    forward = log_likelihood_ratio(counts, elo0, elo1, model)
    assert math.isfinite(forward)
    backward = log_likelihood_ratio(counts, elo1, elo0, model)
    assert forward == pytest.approx(-backward, rel=1e-9, abs=1e-9)


@any_llr
def test_the_other_engine_s_side_mirrors_the_llr(
    counts: list[int], elo0: float, elo1: float, model: EloModel
) -> None:
    """The base engine's counts are the new one's reversed; its Elo differences negated."""
    mine = log_likelihood_ratio(counts, elo0, elo1, model)
    theirs = log_likelihood_ratio(counts[::-1], -elo0, -elo1, model)
    assert mine == pytest.approx(theirs, rel=1e-7, abs=1e-7)


def test_without_pairs_the_llr_is_0_and_bad_counts_are_refused() -> None:
    assert log_likelihood_ratio([0, 0, 0, 0, 0], 0, 5) == 0
    with pytest.raises(ValueError, match="not 4"):
        log_likelihood_ratio([1, 2, 3, 4], 0, 5)
    with pytest.raises(ValueError, match="negative"):
        log_likelihood_ratio([1, -2, 3, 4, 5], 0, 5)


def test_pairs_won_push_the_llr_towards_h1_and_even_pairs_towards_h0() -> None:
    won = [log_likelihood_ratio([0, 0, 0, 0, n], 0, 5) for n in range(1, 30)]
    even = [log_likelihood_ratio([0, 0, n, 0, 0], 0, 50) for n in range(1, 30)]
    assert all(a < b for a, b in itertools.pairwise(won))
    assert all(a > b for a, b in itertools.pairwise(even))
    assert won[0] > 0 > even[0]


def test_the_bounds_are_wald_s() -> None:
    default = SprtTest()
    assert (default.model, default.elo0, default.elo1) == (NORMALIZED, 0, 5)
    assert (default.alpha, default.beta) == (0.05, 0.05)
    assert default.lower_bound == pytest.approx(-2.944439, abs=1e-6)
    assert default.upper_bound == pytest.approx(2.944439, abs=1e-6)
    lopsided = SprtTest(alpha=0.05, beta=0.1)
    assert lopsided.lower_bound == pytest.approx(math.log(0.1 / 0.95))
    assert lopsided.upper_bound == pytest.approx(math.log(0.9 / 0.05))


def test_the_verdict_is_given_at_a_bound_and_not_before() -> None:
    test = SprtTest()
    assert test.verdict(test.upper_bound) is Verdict.H1
    assert test.verdict(test.lower_bound) is Verdict.H0
    assert test.verdict(2.94) is None
    assert test.verdict(-2.94) is None
    assert test.llr([0, 0, 0, 0, 3]) == log_likelihood_ratio([0, 0, 0, 0, 3], 0, 5)


@pytest.mark.parametrize(
    ("fields", "message"),
    [
        ({"elo0": 5, "elo1": 5}, "elo0 (5) must be less than elo1 (5)"),
        ({"alpha": 0.6, "beta": 0.5}, "alpha + beta (0.6 + 0.5) must be below 1"),
        ({"alpha": 0}, "greater than 0"),
        ({"elo1": 500}, "less than or equal to 200"),
    ],
)
def test_impossible_tests_are_refused(fields: dict[str, float], message: str) -> None:
    with pytest.raises(ValidationError, match=re.escape(message)):
        SprtTest(**fields)


def test_normalized_elo_is_fastchess_s_formula() -> None:
    # 5 pairs: mean score (1 + 4 + 3 + 4)/20 = 0.6, variance 0.325/5 = 0.065
    nelo, margin = normalized_elo([0, 1, 2, 1, 1])
    assert nelo == pytest.approx(0.1 / math.sqrt(0.13) * 800 / math.log(10))
    assert nelo == pytest.approx(96.3613, abs=1e-4)
    assert margin == pytest.approx(Z_95 * 800 / math.log(10) / math.sqrt(10))
    assert normalized_elo([0, 0, 0, 0, 0]) == (None, None)
    assert normalized_elo([0, 0, 3, 0, 0]) == (None, None)


def test_estimates_are_written_as_the_reports_write_them() -> None:
    assert estimate_text(12.34, 5.67, (1, 2, 3, 2, 1)) == "+12.3 ± 5.7"
    assert estimate_text(None, None, (0, 0, 0, 0, 3)) == "+inf"
    assert estimate_text(None, None, (2, 0, 0, 0, 0)) == "-inf"
    assert estimate_text(None, None, (0, 0, 0, 0, 0)) == "n/a"
    assert estimate_text(0.0, None, (0, 0, 4, 0, 0)) == "+0.0 ± n/a"
    assert estimate_text(986.7, None, (0, 0, 1, 0, 146)) == "+986.7 ± inf"
