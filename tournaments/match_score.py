"""A match played to a score: ``--first-to POINTS`` with ``--points WIN,DRAW,LOSS``.

Games are counted in complete pairs, in pair order (as an SPRT counts them): after pair
``i`` the tracker counts pair ``i + 1`` once both of its games have records (the last game
of an odd number of games is a pair of its own). At the end of the first pair after which
an engine has ``first_to`` points the match is decided: the engine with more points wins,
equal points draw it. From then on no new pair starts; games already started finish and
are kept, but not counted. A void game counts nothing; a forfeit counts as a win and a
loss. If the games run out first, no one reached the score.

``match-result.json`` (:class:`MatchResult`) in the run folder says how the match ended.
"""

import math
from collections.abc import Sequence
from enum import StrEnum
from pathlib import Path
from typing import Final, Literal, Self

from pydantic import BaseModel, ConfigDict, Field, model_validator

from banqi_common.atomic import write_atomic
from referee.record import GameRecord

from .pair_count import PairCounter
from .pairs import ScheduledGame

RESULT_FILE: Final = "match-result.json"
DEFAULT_POINTS: Final = (3.0, 1.0, 0.0)


class PointsScheme(BaseModel):
    """Points for a win, a draw and a loss: finite, a win above a loss, a draw between."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    win: float = Field(allow_inf_nan=False)
    draw: float = Field(allow_inf_nan=False)
    loss: float = Field(allow_inf_nan=False)

    @model_validator(mode="after")
    def _check(self) -> Self:
        if not self.win > self.loss:
            raise ValueError("a win must be worth more than a loss")
        if not self.loss <= self.draw <= self.win:
            raise ValueError("a draw must be worth between a loss and a win")
        return self

    def describe(self) -> str:
        """``win 3, draw 1, loss 0``."""
        return f"win {self.win:g}, draw {self.draw:g}, loss {self.loss:g}"


class MatchScore(BaseModel):
    """The score a match is played to, and how games score."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    first_to: float = Field(gt=0, allow_inf_nan=False)
    points: PointsScheme = PointsScheme(
        win=DEFAULT_POINTS[0], draw=DEFAULT_POINTS[1], loss=DEFAULT_POINTS[2]
    )

    def describe(self) -> str:
        """``match to 5 points (win 3, draw 1, loss 0)``."""
        return f"match to {self.first_to:g} points ({self.points.describe()})"


def parse_points(text: str) -> PointsScheme:
    """``W,D,L`` as a points scheme; ValueError saying what is wrong."""
    parts = [part.strip() for part in text.split(",")]
    if len(parts) != 3:
        raise ValueError(f"{text!r} is not three numbers WIN,DRAW,LOSS (such as 3,1,0)")
    try:
        values = [float(part) for part in parts]
    except ValueError:
        raise ValueError(f"{text!r} is not three numbers WIN,DRAW,LOSS (such as 3,1,0)") from None
    if not all(math.isfinite(value) for value in values):
        raise ValueError(f"{text!r}: the points must be finite numbers")
    win, draw, loss = values
    if not win > loss:
        raise ValueError(f"{text!r}: a win must be worth more than a loss")
    if not loss <= draw <= win:
        raise ValueError(f"{text!r}: a draw must be worth between a loss and a win")
    return PointsScheme(win=win, draw=draw, loss=loss)


class MatchVerdict(StrEnum):
    """How a match to a score ended (or stands)."""

    WON = "won"
    """An engine reached the score at the end of a pair, ahead of the other."""
    DRAWN = "drawn"
    """Both reached it at the end of the same pair, level."""
    UNDECIDED = "undecided"
    """The games ran out before anyone reached the score."""
    IN_PROGRESS = "in progress"
    """Neither decided nor out of games: the run was stopped before its end."""


class MatchResult(BaseModel):
    """What ``match-result.json`` holds."""

    model_config = ConfigDict(extra="forbid")

    format: Literal["banqi-match-result/1"] = "banqi-match-result/1"
    score: MatchScore
    engines: tuple[str, str]
    points: tuple[float, float] = Field(description="Each engine's points in counted games.")
    games: int = Field(description="Games counted: every game of the complete pairs counted.")
    max_games: int
    outcome: MatchVerdict
    winner: str | None = Field(description="The engine that won the match, if one did.")
    summary: str


class ScoreTracker(PairCounter):
    """A match to a score as the records come: complete pairs counted in order until an
    engine reaches the score."""

    def __init__(
        self, score: MatchScore, games: list[ScheduledGame], names: tuple[str, str]
    ) -> None:
        super().__init__(games)
        self.score = score
        self.names = names
        self.points = [0.0, 0.0]

    @property
    def decided(self) -> bool:
        """Whether an engine has reached the score at the end of a pair."""
        return max(self.points) >= self.score.first_to

    def count_pair(self, pair: Sequence[GameRecord]) -> None:
        """Add each engine's points in the pair's games."""
        for record in pair:
            for engine in (0, 1):
                self.points[engine] += self.game_points(record, engine)

    def game_points(self, record: GameRecord, engine: int) -> float:
        """``engine``'s points for one game by the scheme; a void game counts nothing."""
        if record.void:
            return 0.0
        scheme = self.score.points
        if record.winner is None:
            return scheme.draw
        return scheme.win if record.winner == engine else scheme.loss

    def result(self) -> MatchResult:
        """The match as counted so far."""
        a, b = self.points
        games = self.counted_games
        head = self.score.describe()
        winner: str | None = None
        if self.decided:
            if a == b:
                outcome = MatchVerdict.DRAWN
                summary = f"{head}: drawn {a:g}-{b:g} after {games} games"
            else:
                outcome = MatchVerdict.WON
                lead = 0 if a > b else 1
                winner = self.names[lead]
                high, low = self.points[lead], self.points[1 - lead]
                summary = f"{head}: {winner} wins {high:g}-{low:g} after {games} games"
        else:
            if a == b:
                standing = f"level {a:g}-{b:g}"
            else:
                lead = 0 if a > b else 1
                high, low = self.points[lead], self.points[1 - lead]
                standing = f"{self.names[lead]} leads {high:g}-{low:g}"
            if games >= self.total:
                outcome = MatchVerdict.UNDECIDED
                summary = (
                    f"{head}: no one reached {self.score.first_to:g} points in {games} games: "
                    + standing
                )
            else:
                outcome = MatchVerdict.IN_PROGRESS
                summary = f"{head}: not finished after {games} games: {standing}"
        return MatchResult(
            score=self.score,
            engines=self.names,
            points=(a, b),
            games=games,
            max_games=self.total,
            outcome=outcome,
            winner=winner,
            summary=summary,
        )


def save_result(out: Path, result: MatchResult) -> None:
    """Write ``match-result.json`` atomically."""
    write_atomic(out / RESULT_FILE, result.model_dump_json(indent=2) + "\n")
