"""Statistics data: per-game results in; standings rows, records and head-to-head figures out.

:func:`tournaments.standings.compute_standings` turns the one into the other.
"""

from typing import Literal, Self

from pydantic import BaseModel, ConfigDict, Field, model_validator

_FROZEN = ConfigDict(frozen=True, extra="forbid")


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
