"""Tournament statistics: Elo from scores, pentanomial pair statistics, standings, reports.

Every figure is recomputed from the per-game results (:class:`GameResult`).

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
    Elo: no games, or a score of 0 or 1 (the reports show ``-inf`` and ``+inf``).
    Error margin: the Elo is undefined, or the 95% interval of the score reaches 0 or 1
    (an unbounded margin; the reports show ``inf``). LOS: no decisive game (trinomial),
    or no pairs or every pair scored exactly 1 point (pentanomial; with zero variance and
    another score the pentanomial LOS is 0 or 1).

Standings
    An engine's rating is the Elo of its score against all its opponents pooled, with the
    trinomial error margin: its Elo relative to the average of the opponents it met, as in
    the tables cutechess-cli prints for tournaments of more than two players. In a complete
    round robin each engine meets the whole field but itself, so the ratings compare the
    engines with the field; with an unbalanced schedule they are as comparable as the
    opponents are. Rows are sorted by points, then Elo (equivalently the score), then the
    order of ``names``; rows equal in points and score share a rank. A row's ``los`` is the
    likelihood that its engine is stronger than the engine of the next row, from the
    head-to-head wins and losses of the two (trinomial formula); the last row has none.

Pairs of games
    Two games with the same ``pair`` id between the same two engines, with the seats
    swapped, form a pair; in the order given, each game pairs with the earliest unpaired
    game of its id and engines that has the other seating. A game without a pair id, or
    left without a partner, counts in W-D-L but not in the pentanomial counts.

JSON
    ``standings.json`` is :func:`standings_json`, the list of table rows; ``report.json``
    is :func:`report_json`, the whole :class:`Standings` (rows, crosstable and pairs).
"""

import math
from collections.abc import Iterable, Sequence
from fractions import Fraction
from typing import Literal, NamedTuple, Self

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, model_validator

Z_95 = 1.959963984540054
"""Φ⁻¹(0.975): the two-sided 95% quantile of the standard normal distribution."""

_FROZEN = ConfigDict(frozen=True, extra="forbid")
_OUTCOME_INDEX = {0: 0, None: 1, 1: 2}
"""Index in a [wins, draws, losses] list of a game's result for its first seat."""


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


class EloEstimate(BaseModel):
    """An Elo difference with its 95% error margin and likelihood of superiority."""

    model_config = _FROZEN

    score: float | None = Field(description="Mean score per game, 0 to 1; None without games.")
    elo: float | None = Field(description="Elo difference; None if undefined or infinite.")
    elo_error: float | None = Field(description="95% error margin; None if undefined or infinite.")
    los: float | None = Field(description="Likelihood of superiority, 0 to 1; None if undefined.")


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
    elo: float | None = Field(description="Elo against the average opponent met.")
    elo_error: float | None = Field(description="95% error margin of the Elo.")
    los: float | None = Field(
        description="Likelihood of being stronger than the next row's engine (head to head)."
    )


class Standings(BaseModel):
    """The standings of a tournament, its crosstable and head-to-head statistics."""

    model_config = _FROZEN

    rows: list[StandingRow] = Field(description="Sorted by points, then Elo.")
    crosstable: dict[str, dict[str, Record]] = Field(
        description="crosstable[a][b]: a's record against b, every two engines, table order."
    )
    pairs: list[PairStats] = Field(description="Every two engines that met, in table order.")


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


def wdl_elo(wins: int, draws: int, losses: int) -> EloEstimate:
    """Trinomial Elo, 95% error margin and LOS of a W-D-L record."""
    _check_counts(wins, draws, losses)
    games = wins + draws + losses
    if games == 0:
        return EloEstimate(score=None, elo=None, elo_error=None, los=None)
    score = (2 * wins + draws) / (2 * games)
    variance = (wins * (1 - score) ** 2 + draws * (0.5 - score) ** 2 + losses * score**2) / games
    elo, error = _elo_and_margin(score, math.sqrt(variance / games))
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
    if stdev > 0:
        los: float | None = 0.5 * (1 + math.erf((score - 0.5) / (math.sqrt(2) * stdev)))
    else:
        los = None if score == 0.5 else float(score > 0.5)
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


def compute_standings(results: Iterable[GameResult], names: Sequence[str]) -> Standings:
    """Standings, crosstable and head-to-head statistics recomputed from per-game results.

    ``names`` lists every engine of the tournament; engines without games get a row too.
    Raises ValueError for a repeated name or a result naming an engine not in ``names``.
    """
    index = {name: i for i, name in enumerate(names)}
    if len(index) != len(names):
        raise ValueError(f"engine names are not distinct: {list(names)}")
    size = len(names)
    # wdl[a][b]: wins, draws, losses of a against b; penta[a][b]: pairs by a's half-points;
    # waiting: games of a pair id still without a partner (all with the same seating).
    wdl = [[[0, 0, 0] for _ in range(size)] for _ in range(size)]
    penta = [[[0] * 5 for _ in range(size)] for _ in range(size)]
    waiting: dict[tuple[int, int, int], list[GameResult]] = {}
    for game in results:
        a, b = _engine_index(index, game.first), _engine_index(index, game.second)
        outcome = _OUTCOME_INDEX[game.winner]
        wdl[a][b][outcome] += 1
        wdl[b][a][2 - outcome] += 1
        if game.pair is None:
            continue
        low, high = min(a, b), max(a, b)
        unpaired = waiting.setdefault((low, high, game.pair), [])
        if unpaired and unpaired[0].first == game.second:
            half_points = _half_points(game, names[low]) + _half_points(unpaired.pop(0), names[low])
            penta[low][high][half_points] += 1
            penta[high][low][4 - half_points] += 1
        else:
            unpaired.append(game)

    totals = [[sum(column) for column in zip(*wdl[a], strict=True)] for a in range(size)]

    def order_key(a: int) -> tuple[int, Fraction]:
        wins, draws, losses = totals[a]
        games = wins + draws + losses
        return 2 * wins + draws, Fraction(2 * wins + draws, 2 * games) if games else Fraction(-1)

    order = sorted(range(size), key=order_key, reverse=True)
    rows: list[StandingRow] = []
    for position, a in enumerate(order):
        wins, draws, losses = totals[a]
        games = wins + draws + losses
        estimate = wdl_elo(wins, draws, losses)
        rank = position + 1
        if rows and order_key(order[position - 1]) == order_key(a):
            rank = rows[-1].rank
        los = None
        if position + 1 < size:
            head_to_head = wdl[a][order[position + 1]]
            los = likelihood_of_superiority(head_to_head[0], head_to_head[2])
        rows.append(
            StandingRow(
                rank=rank,
                name=names[a],
                games=games,
                wins=wins,
                draws=draws,
                losses=losses,
                points=wins + draws / 2,
                score_percent=None if estimate.score is None else 100 * estimate.score,
                elo=estimate.elo,
                elo_error=estimate.elo_error,
                los=los,
            )
        )

    crosstable = {
        names[a]: {
            names[b]: Record(wins=wdl[a][b][0], draws=wdl[a][b][1], losses=wdl[a][b][2])
            for b in order
            if b != a
        }
        for a in order
    }
    pairs = [
        _pair_stats(names[a], names[b], wdl[a][b], penta[a][b])
        for i, a in enumerate(order)
        for b in order[i + 1 :]
        if sum(wdl[a][b])
    ]
    return Standings(rows=rows, crosstable=crosstable, pairs=pairs)


def _engine_index(index: dict[str, int], name: str) -> int:
    try:
        return index[name]
    except KeyError:
        raise ValueError(f"engine {name!r} is not in the tournament") from None


def _half_points(game: GameResult, name: str) -> int:
    """Half-points ``name`` took in ``game``: 2 a win, 1 a draw, 0 a loss."""
    if game.winner is None:
        return 1
    return 2 if (game.first, game.second)[game.winner] == name else 0


def _pair_stats(first: str, second: str, wdl: list[int], penta: list[int]) -> PairStats:
    wins, draws, losses = wdl
    trinomial = wdl_elo(wins, draws, losses)
    pentanomial = pentanomial_elo(penta)
    return PairStats(
        first=first,
        second=second,
        games=wins + draws + losses,
        wins=wins,
        draws=draws,
        losses=losses,
        elo=trinomial.elo,
        elo_error=trinomial.elo_error,
        los=trinomial.los,
        pairs=sum(penta),
        pentanomial=(penta[0], penta[1], penta[2], penta[3], penta[4]),
        penta_elo=pentanomial.elo,
        penta_elo_error=pentanomial.elo_error,
        penta_los=pentanomial.los,
    )


class _Table(NamedTuple):
    """A titled table of text cells; ``right`` says which columns are right-aligned."""

    title: str
    note: str
    headers: list[str]
    right: list[bool]
    rows: list[list[str]]


def _elo_cells(
    elo: float | None, error: float | None, taken: float, available: float
) -> tuple[str, str]:
    """Elo and margin cells; ``taken`` of ``available`` points tell an infinite Elo's sign."""
    if elo is None:
        if available and taken == available:
            return "+inf", "-"
        return ("-inf" if available else "-"), "-"
    return f"{elo:+.1f}", "inf" if error is None else f"{error:.1f}"


def _percent(value: float | None) -> str:
    return "-" if value is None else f"{100 * value:.1f}%"


def _standings_table(standings: Standings) -> _Table:
    rows = []
    for row in standings.rows:
        elo, error = _elo_cells(row.elo, row.elo_error, row.points, row.games)
        score = "-" if row.score_percent is None else f"{row.score_percent:.1f}%"
        cells = [str(row.rank), row.name, str(row.games), str(row.wins), str(row.draws)]
        cells += [str(row.losses), f"{row.points:.1f}", score, elo, error, _percent(row.los)]
        rows.append(cells)
    return _Table(
        title="Standings",
        note="Elo against the average opponent, ± its 95% margin; "
        "LOS: likelihood of being stronger than the next engine, head to head.",
        headers=["Rank", "Engine", "Games", "W", "D", "L", "Points", "Score", "Elo", "±", "LOS"],
        right=[True, False] + [True] * 9,
        rows=rows,
    )


def _crosstable_table(standings: Standings) -> _Table:
    names = [row.name for row in standings.rows]
    rows = []
    for name in names:
        records = standings.crosstable[name]
        cells = ["-" if other == name else _wdl_text(records[other]) for other in names]
        rows.append([name, *cells])
    return _Table(
        title="Crosstable",
        note="Wins-draws-losses of the row's engine against the column's.",
        headers=["Engine", *names],
        right=[False] + [True] * len(names),
        rows=rows,
    )


def _wdl_text(record: Record | PairStats) -> str:
    return f"{record.wins}-{record.draws}-{record.losses}"


def _pairs_table(standings: Standings) -> _Table:
    rows = []
    for pair in standings.pairs:
        points = pair.wins + pair.draws / 2
        elo, error = _elo_cells(pair.elo, pair.elo_error, points, pair.games)
        taken = sum(k * count for k, count in enumerate(pair.pentanomial))
        penta_elo, penta_error = _elo_cells(
            pair.penta_elo, pair.penta_elo_error, taken, 4 * pair.pairs
        )
        cells = [pair.first, pair.second, str(pair.games)]
        cells += [_wdl_text(pair), elo, error, _percent(pair.los)]
        cells += [str(pair.pairs), "[" + ", ".join(map(str, pair.pentanomial)) + "]"]
        cells += [penta_elo, penta_error, _percent(pair.penta_los)]
        rows.append(cells)
    return _Table(
        title="Head to head",
        note="From the first engine's side. Ptnml(0-2): complete pairs of games by its pair "
        "score 0, ½, 1, 1½, 2 points; the pentanomial Elo, margin and LOS come from them.",
        headers=[
            *["Engine", "Opponent", "Games", "W-D-L", "Elo", "±", "LOS", "Pairs"],
            *["Ptnml(0-2)", "Elo (ptnml)", "±", "LOS (ptnml)"],
        ],
        right=[False, False, True, True, True, True, True, True, False, True, True, True],
        rows=rows,
    )


def _tables(standings: Standings) -> list[_Table]:
    return [_standings_table(standings), _crosstable_table(standings), _pairs_table(standings)]


def format_standings_text(standings: Standings) -> str:
    """Standings, crosstable and head-to-head statistics as fixed-width plain-text tables."""
    blocks = []
    for table in _tables(standings):
        lines = [table.title, table.note, ""]
        if table.rows:
            widths = [
                max(len(cell) for cell in column)
                for column in zip(table.headers, *table.rows, strict=True)
            ]
            for cells in [table.headers, ["-" * width for width in widths], *table.rows]:
                aligned = (
                    cell.rjust(width) if right else cell.ljust(width)
                    for cell, width, right in zip(cells, widths, table.right, strict=True)
                )
                lines.append("  ".join(aligned).rstrip())
        else:
            lines.append("(none)")
        blocks.append("\n".join(lines))
    return "\n\n".join(blocks) + "\n"


def format_standings_markdown(standings: Standings) -> str:
    """Standings, crosstable and head-to-head statistics as Markdown tables."""
    blocks = []
    for table in _tables(standings):
        lines = [f"## {table.title}", "", table.note, ""]
        if table.rows:
            rule = ["---:" if right else ":---" for right in table.right]
            for cells in [table.headers, rule, *table.rows]:
                escaped = (cell.replace("|", "\\|") for cell in cells)
                lines.append("| " + " | ".join(escaped) + " |")
        else:
            lines.append("(none)")
        blocks.append("\n".join(lines))
    return "\n\n".join(blocks) + "\n"


_ROWS = TypeAdapter(list[StandingRow])


def standings_json(standings: Standings) -> str:
    """The text of ``standings.json``: the table rows, a JSON list of objects."""
    return _ROWS.dump_json(standings.rows, indent=2).decode() + "\n"


def report_json(standings: Standings) -> str:
    """The text of ``report.json``: rows, crosstable and head-to-head statistics."""
    return standings.model_dump_json(indent=2) + "\n"
