"""Elo differences from game results: Elo of a score, trinomial and pentanomial Elo, LOS.

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
    ``+inf``). Error margin: the Elo is undefined, the 95% interval of the score reaches 0 or
    1 (an unbounded margin; the reports show ``inf``), or the sample has no spread (see
    below; the reports show ``n/a``). LOS: no decisive game (trinomial), or no pairs or no
    spread (pentanomial).

Samples without spread (:func:`without_spread`)
    When every game (trinomial) or every pair (pentanomial) scored the same, the sample
    variance is 0 and the normal approximation would claim a margin of ``± 0`` and a
    pentanomial LOS of exactly 0 or 1, as fastchess prints them (one pair won 1½-½ is
    ``+190.8 ± 0.0, LOS 100%``). Such a sample says nothing about its own spread, so the
    margin and the pentanomial LOS are left undefined instead; the Elo of the score is kept.
    Samples with any spread give exactly the figures of the formulas above. (fishtest instead
    puts 0.001 into every empty cell, which after one pair drawn and lost still claims
    ``-189.7 ± 56.0`` and a LOS of 0.0%.)
    The trinomial LOS needs no variance estimate (it tests the decisive games against an
    even split) and stays defined: after 2 wins and nothing else it is 92.1%.
"""

import math
from collections.abc import Sequence

from pydantic import BaseModel, ConfigDict, Field

Z_95 = 1.959963984540054
"""Φ⁻¹(0.975): the two-sided 95% quantile of the standard normal distribution."""


class EloEstimate(BaseModel):
    """An Elo difference with its 95% error margin and likelihood of superiority."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    score: float | None = Field(description="Mean score per game, 0 to 1; None without games.")
    elo: float | None = Field(description="Elo difference; None if undefined or infinite.")
    elo_error: float | None = Field(
        description="95% error margin; None if undefined (also without spread) or infinite."
    )
    los: float | None = Field(description="Likelihood of superiority, 0 to 1; None if undefined.")


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


def without_spread(counts: Sequence[int]) -> bool:
    """Whether a sample (games by result, or pairs by score) is not empty and all in one
    category: its variance is 0, so its margin and pentanomial LOS are undefined."""
    _check_counts(*counts)
    return max(counts, default=0) == sum(counts) > 0


def wdl_elo(wins: int, draws: int, losses: int) -> EloEstimate:
    """Trinomial Elo, 95% error margin and LOS of a W-D-L record."""
    _check_counts(wins, draws, losses)
    games = wins + draws + losses
    if games == 0:
        return EloEstimate(score=None, elo=None, elo_error=None, los=None)
    score = (2 * wins + draws) / (2 * games)
    variance = (wins * (1 - score) ** 2 + draws * (0.5 - score) ** 2 + losses * score**2) / games
    elo, error = _elo_and_margin(score, math.sqrt(variance / games))
    if without_spread((losses, draws, wins)):
        error = None
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
    if without_spread(counts):
        return EloEstimate(score=score, elo=elo, elo_error=None, los=None)
    los = 0.5 * (1 + math.erf((score - 0.5) / (math.sqrt(2) * stdev)))
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
