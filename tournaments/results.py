"""Statistics data: per-game results in; standings rows, records and head-to-head figures out.

:func:`tournaments.standings.compute_standings` turns the one into the other.
"""

from typing import Literal, Self

from pydantic import BaseModel, ConfigDict, Field, model_validator

_FROZEN = ConfigDict(frozen=True, extra="forbid")


class ScoredGame(BaseModel):
    """One finished game: the players in seat order, the winner, and the pair it belongs to."""

    model_config = _FROZEN

    first: str = Field(description="Engine in the first seat (it moves first).")
    second: str = Field(description="Engine in the second seat.")
    winner: Literal[0, 1] | None = Field(
        description="0: first won, 1: second won, None: draw (or void)."
    )
    pair: int | None = Field(default=None, description="Id shared by the two games of a pair.")
    void: bool = Field(
        default=False, description="Both engines failed: no result, no points, not rated."
    )

    @model_validator(mode="after")
    def _check(self) -> Self:
        if self.first == self.second:
            raise ValueError(f"engine {self.first!r} cannot play itself")
        if self.void and self.winner is not None:
            raise ValueError("a void game has no winner")
        return self


class Record(BaseModel):
    """Wins, draws, losses and void games of one engine against one opponent."""

    model_config = _FROZEN

    wins: int = Field(default=0, ge=0)
    draws: int = Field(default=0, ge=0)
    losses: int = Field(default=0, ge=0)
    void: int = Field(default=0, ge=0, description="Games without a result (both failed).")

    @property
    def games(self) -> int:
        """Number of games, void ones included."""
        return self.wins + self.draws + self.losses + self.void

    @property
    def points(self) -> float:
        """Points: 1 a win, ½ a draw."""
        return self.wins + self.draws / 2


class PairStats(BaseModel):
    """Head-to-head statistics of two engines, from the side of ``first``."""

    model_config = _FROZEN

    first: str = Field(
        description="The engine the figures are for (in the standings, the higher-ranked one)."
    )
    second: str = Field(description="Its opponent.")
    games: int = Field(description="Games between the two, void ones included.")
    wins: int
    draws: int
    losses: int
    void: int = Field(description="Void games: in no W-D-L, Elo, LOS or pair.")
    elo: float | None = Field(description="Trinomial Elo of first against second.")
    elo_error: float | None = Field(description="Trinomial 95% error margin.")
    los: float | None = Field(description="Trinomial likelihood that first is stronger.")
    pairs: int = Field(description="Complete pairs of games (seats swapped, neither void).")
    pentanomial: tuple[int, int, int, int, int] = Field(
        description="Pairs by first's pair score 0, ½, 1, 1½, 2: [LL, LD, DD+WL, WD, WW]."
    )
    penta_elo: float | None = Field(description="Pentanomial Elo of first against second.")
    penta_elo_error: float | None = Field(description="Pentanomial 95% error margin.")
    penta_los: float | None = Field(description="Pentanomial likelihood that first is stronger.")


class StandingRow(BaseModel):
    """One engine's line in the standings."""

    model_config = _FROZEN

    rank: int = Field(
        description="1 for the first row; rows equal in points, points among the engines "
        "tied on points, and rating share it."
    )
    name: str
    games: int = Field(description="Games played, void ones included.")
    wins: int
    draws: int
    losses: int
    void: int = Field(description="Void games (both engines failed): no points, not rated.")
    points: float = Field(description="1 a win, ½ a draw.")
    score_percent: float | None = Field(
        description="100·points/(games - void); None without such games."
    )
    elo: float | None = Field(
        description="Maximum-likelihood rating over all games that are not void, the engines "
        "with such games averaging 0; None without them."
    )
    elo_error: float | None = Field(
        description="95% error margin of the rating; None without games that are not void."
    )
    los: float | None = Field(
        description="Likelihood of being stronger than the next row's engine (head to head)."
    )


class Standings(BaseModel):
    """The standings of a tournament, its crosstable and head-to-head statistics."""

    model_config = _FROZEN

    rows: list[StandingRow] = Field(
        description="Sorted by points, then points in the games among the engines tied on "
        "points, then rating, then the tournament's engine order."
    )
    crosstable: dict[str, dict[str, Record]] = Field(
        description="crosstable[a][b]: a's record against b, every two engines, table order."
    )
    pairs: list[PairStats] = Field(description="Every two engines that met, in table order.")
