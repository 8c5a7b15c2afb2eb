"""The sequential probability ratio test of a new engine against a base one, over pairs of
games: the generalized SPRT (GSPRT) on the pentanomial counts that fishtest and fastchess run.

Data
    A pair of games (one deal, seats swapped) scores ``a = 0, ¼, ½, ¾, 1`` for the new engine
    (its half-points / 4); the counts ``[LL, LD, DD+WL, WD, WW]`` give the empirical
    distribution ``p̂``. A cell without pairs counts ``0.001`` (fishtest's and fastchess's
    regularisation), and ``N`` is the sum of the counts so regularised. The functions take any
    odd number ``k ≥ 3`` of counts, outcomes ``a_i = i/(k-1)``: 3 for games one by one
    ``[L, D, W]``, 5 for pairs.

Hypotheses ``H0: elo = elo0`` against ``H1: elo = elo1``, in one of two Elo models
    normalized (the default of fastchess, ``-sprt ... model=normalized``, and of fishtest's
    tests): normalized Elo ``nElo = (μ - ½)/σ_game · 800/ln 10``, where ``σ_game`` is the
    standard deviation of one game's score; a pair's is ``σ_pair = σ_game/√2``, so a
    hypothesis is the t-value ``t = (μ - ½)/σ_pair = √2 · nElo · ln 10/800`` (in general
    ``√g · nElo · ln 10/800`` for samples of ``g = (k-1)/2`` games).
    logistic: the expected score ``μ = 1/(1 + 10^(-elo/400))``.

Log-likelihood ratio (Michel Van den Bergh, "Comments on Normalized Elo", section 4.1, and
"Support of the MLE for multinomial distributions", proposition 1.1)
    ``LLR = N · Σ_i p̂_i · ln(p1_i / p0_i)``, where ``p_j`` is the distribution of maximum
    likelihood for the data among those that satisfy ``H_j``:

    - mean ``s`` (logistic): ``p_i = p̂_i / (1 + x(a_i - s))``, ``x`` the root of the secular
      equation ``Σ p̂_i φ_i / (1 + xφ_i) = 0`` with ``φ_i = a_i - s``;
    - t-value ``t`` (normalized): from the uniform distribution, repeat until it no longer
      changes: with ``μ`` and ``σ`` of the current ``p``,
      ``φ_i = a_i - ½ - t·σ·(1 + ((a_i - μ)/σ)²)/2`` and ``p_i = p̂_i / (1 + xφ_i)``, ``x``
      the root of the same secular equation.

    The root lies in ``(-1/max φ, -1/min φ)``, where the left side falls from ``+∞`` to
    ``-∞``; it is found by Newton steps kept inside a shrinking bracket.

Bounds (Wald)
    ``a = ln(β/(1-α))``, ``b = ln((1-β)/α)``: the test accepts H1 once ``LLR ≥ b`` and H0 once
    ``LLR ≤ a`` (±2.944 for ``α = β = 0.05``).

Normalized Elo of pairs (fastchess's ``EloPentanomial``)
    ``nElo = (s - ½)/√(2σ²) · 800/ln 10`` with ``s`` the mean pair score / 2 and ``σ²`` its
    variance over the pairs (:func:`tournaments.elo.pentanomial_elo` has the same ``s`` and
    ``σ²``); its 95% margin is ``z · 800/ln 10 / √(2P)`` over ``P`` pairs. Both are undefined
    (None) without pairs or, as for the other Elo figures (:mod:`tournaments.elo`), when every
    pair scored the same.

Data
    :class:`SprtTest` is a test's hypotheses and error rates; :class:`SprtStatus` a test as
    counted so far (what ``sprt.json`` holds), with a :class:`SprtPoint` per pair for the chart.
"""

import math
from collections.abc import Sequence
from enum import StrEnum
from typing import Final, Literal, Self

from pydantic import BaseModel, ConfigDict, Field, model_validator

from .elo import Z_95, without_spread

NELO_PER_T: Final = 800 / math.log(10)
"""Normalized Elo per unit of t-value of one game: 347.4355855226015."""
EMPTY_CELL: Final = 1e-3
"""What a count of 0 counts in the likelihood ratio."""
MAX_ELO: Final = 200.0
"""The largest hypothesis (either sign), in normalized or logistic Elo (200 nElo is a t-value
of 0.81 a pair): engines further apart need no sequential test, and much further the
distribution of maximum likelihood is out of reach of the iteration."""
_MAX_ITERATIONS: Final = 200
_ROOT_TOLERANCE: Final = 1e-13
"""Relative change of the secular equation's root at which it is taken."""
_FIT_TOLERANCE: Final = 1e-11
"""Largest change of a probability at which the t-value fit is taken."""


class EloModel(StrEnum):
    """The scale the hypotheses are given in."""

    NORMALIZED = "normalized"
    LOGISTIC = "logistic"

    @property
    def unit(self) -> str:
        """What the reports call an Elo of this model."""
        return "nElo" if self is EloModel.NORMALIZED else "Elo"


class Verdict(StrEnum):
    """How a test ended."""

    H1 = "H1"
    H0 = "H0"
    INCONCLUSIVE = "inconclusive"


class SprtTest(BaseModel):
    """The hypotheses and error rates of a test."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    model: EloModel = EloModel.NORMALIZED
    elo0: float = Field(default=0.0, ge=-MAX_ELO, le=MAX_ELO, description="H0: elo = elo0.")
    elo1: float = Field(default=5.0, ge=-MAX_ELO, le=MAX_ELO, description="H1: elo = elo1.")
    alpha: float = Field(default=0.05, gt=0, lt=1, description="Type I error: H1 at elo0.")
    beta: float = Field(default=0.05, gt=0, lt=1, description="Type II error: H0 at elo1.")

    @model_validator(mode="after")
    def _check(self) -> Self:
        if self.elo0 >= self.elo1:
            raise ValueError(f"elo0 ({self.elo0:g}) must be less than elo1 ({self.elo1:g})")
        if self.alpha + self.beta >= 1:
            raise ValueError(f"alpha + beta ({self.alpha:g} + {self.beta:g}) must be below 1")
        return self

    @property
    def lower_bound(self) -> float:
        """``ln(β/(1-α))``: at or below it, H0 is accepted."""
        return math.log(self.beta / (1 - self.alpha))

    @property
    def upper_bound(self) -> float:
        """``ln((1-β)/α)``: at or above it, H1 is accepted."""
        return math.log((1 - self.beta) / self.alpha)

    def llr(self, counts: Sequence[int]) -> float:
        """The log-likelihood ratio of H1 against H0 for these counts."""
        return log_likelihood_ratio(counts, self.elo0, self.elo1, self.model)

    def verdict(self, llr: float) -> Verdict | None:
        """H1 or H0 once the LLR has reached a bound; None while it is between them."""
        if llr >= self.upper_bound:
            return Verdict.H1
        if llr <= self.lower_bound:
            return Verdict.H0
        return None


class SprtPoint(BaseModel):
    """The test after one more pair: for the chart."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    games: int = Field(description="Games counted so far.")
    llr: float
    elo: float | None = Field(description="Elo estimate in the test's model (nElo if normalized).")
    elo_error: float | None = Field(description="Its 95% margin.")


class SprtStatus(BaseModel):
    """What ``sprt.json`` holds: the test, the pairs counted so far and the verdict."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    format: Literal["banqi-sprt/1"] = "banqi-sprt/1"
    new: str = Field(description="The engine under test, by name.")
    base: str = Field(description="The engine it is tested against, by name.")
    test: SprtTest = Field(description="The hypotheses, error rates and Elo model.")
    lower_bound: float = Field(description="ln(beta/(1-alpha)): H0 at or below it.")
    upper_bound: float = Field(description="ln((1-beta)/alpha): H1 at or above it.")
    max_games: int = Field(description="Games after which the test stops undecided.")
    games: int = Field(description="Games of the pairs counted.")
    pairs: int = Field(description="Pairs counted, void ones included.")
    wins: int = Field(description="The new engine's wins in the games counted.")
    draws: int
    losses: int
    void: int
    pentanomial: tuple[int, int, int, int, int] = Field(
        description="Pairs by the new engine's score 0, ½, 1, 1½, 2: [LL, LD, DD+WL, WD, WW]."
    )
    llr: float
    elo: float | None = Field(description="Pentanomial (logistic) Elo of new against base.")
    elo_error: float | None = Field(description="Its 95% margin.")
    nelo: float | None = Field(description="Normalized Elo of the pairs.")
    nelo_error: float | None = Field(description="Its 95% margin.")
    verdict: Verdict | None = Field(description="None while the test runs.")
    history: list[SprtPoint] = Field(description="The test after each pair counted, in order.")


def log_likelihood_ratio(
    counts: Sequence[int], elo0: float, elo1: float, model: EloModel = EloModel.NORMALIZED
) -> float:
    """The generalized log-likelihood ratio of ``elo = elo1`` against ``elo = elo0``, as the
    module says; 0 without any count."""
    if len(counts) < 3 or len(counts) % 2 == 0:
        raise ValueError(f"counts of 3, 5, 7, ... outcomes, not {len(counts)}")
    if any(count < 0 for count in counts):
        raise ValueError(f"negative count in {list(counts)}")
    if not sum(counts):
        return 0.0
    weights = [count or EMPTY_CELL for count in counts]
    total = sum(weights)
    observed = [weight / total for weight in weights]
    scores = [i / (len(counts) - 1) for i in range(len(counts))]
    if model is EloModel.NORMALIZED:
        scale = math.sqrt((len(counts) - 1) / 2) / NELO_PER_T
        fit0, fit1 = (_fit_t_value(scores, observed, elo * scale) for elo in (elo0, elo1))
    else:
        fit0, fit1 = (_fit_mean(scores, observed, _logistic_score(elo)) for elo in (elo0, elo1))
    return total * sum(
        p * (math.log(q1) - math.log(q0)) for p, q0, q1 in zip(observed, fit0, fit1, strict=True)
    )


def normalized_elo(counts: Sequence[int]) -> tuple[float | None, float | None]:
    """Normalized Elo of pair counts ``[LL, LD, DD+WL, WD, WW]`` and its 95% margin."""
    if len(counts) != 5:
        raise ValueError(f"a pentanomial has 5 counts, not {len(counts)}")
    pairs = sum(counts)
    if not pairs or without_spread(counts):
        return None, None
    score = sum(k * count for k, count in enumerate(counts)) / (4 * pairs)
    variance = sum(count * (k / 4 - score) ** 2 for k, count in enumerate(counts)) / pairs
    nelo = (score - 0.5) / math.sqrt(2 * variance) * NELO_PER_T + 0.0
    return nelo, Z_95 * NELO_PER_T / math.sqrt(2 * pairs)


def _logistic_score(elo: float) -> float:
    return 1 / (1 + 10 ** (-elo / 400))


def _fit_mean(scores: list[float], observed: list[float], mean: float) -> list[float]:
    """The distribution of maximum likelihood with this mean."""
    phi = [a - mean for a in scores]
    x = _secular_root(observed, phi)
    return [p / (1 + x * f) for p, f in zip(observed, phi, strict=True)]


def _fit_t_value(scores: list[float], observed: list[float], t: float) -> list[float]:
    """The distribution of maximum likelihood with ``(μ - ½)/σ = t``."""
    fitted = [1 / len(scores)] * len(scores)
    for _ in range(_MAX_ITERATIONS):
        mean = sum(p * a for p, a in zip(fitted, scores, strict=True))
        sigma = math.sqrt(sum(p * (a - mean) ** 2 for p, a in zip(fitted, scores, strict=True)))
        phi = [a - 0.5 - t * sigma * (1 + ((a - mean) / sigma) ** 2) / 2 for a in scores]
        x = _secular_root(observed, phi)
        previous, fitted = fitted, [p / (1 + x * f) for p, f in zip(observed, phi, strict=True)]
        if max(abs(new - old) for new, old in zip(fitted, previous, strict=True)) < _FIT_TOLERANCE:
            break
    return fitted


def _secular_root(weights: list[float], phi: list[float]) -> float:
    """The root ``x`` of ``Σ w_i φ_i / (1 + xφ_i) = 0`` in ``(-1/max φ, -1/min φ)``."""
    low_phi, high_phi = min(phi), max(phi)
    if not low_phi < 0 < high_phi:
        raise ValueError("the hypothesis is out of reach of the data")

    def value_and_slope(x: float) -> tuple[float, float]:
        terms = [f / (1 + x * f) for f in phi]
        return (
            sum(w * term for w, term in zip(weights, terms, strict=True)),
            -sum(w * term * term for w, term in zip(weights, terms, strict=True)),
        )

    low, high = -1 / high_phi, -1 / low_phi  # the value is +inf at low, -inf at high
    x = 0.0
    for _ in range(_MAX_ITERATIONS):
        value, slope = value_and_slope(x)
        if value == 0:
            return x
        if value > 0:
            low = x
        else:
            high = x
        step = x - value / slope
        following = step if low < step < high else (low + high) / 2
        if abs(following - x) <= _ROOT_TOLERANCE * max(1.0, abs(x)):
            return following
        x = following
    return x
