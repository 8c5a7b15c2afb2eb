"""The report's three tables (standings, crosstable, head to head) as cells of text.

:mod:`tournaments.reports` lays them out as plain text or Markdown. Cells: ``-`` where there
is nothing to compute (no games, the last row's LOS), ``n/a`` where the sample cannot
support the figure (a margin or LOS of a sample without spread, a LOS without decisive
games; see :mod:`tournaments.elo`), ``inf`` for an unbounded margin. The Void column and
the crosstable's void counts appear only when some game is void.
"""

from collections.abc import Sequence
from typing import NamedTuple

from .elo import without_spread
from .results import PairStats, Record, Standings


class Table(NamedTuple):
    """A titled table of text cells; ``right`` says which columns are right-aligned."""

    title: str
    note: str
    headers: list[str]
    right: list[bool]
    rows: list[list[str]]


def report_tables(standings: Standings) -> list[Table]:
    """The standings, crosstable and head-to-head tables, in report order."""
    return [_standings_table(standings), _crosstable_table(standings), _pairs_table(standings)]


def estimate_cells(
    elo: float | None, error: float | None, los: float | None, counts: Sequence[int]
) -> tuple[str, str, str]:
    """Elo, margin and LOS cells of a head-to-head sample; ``counts`` are its games by
    result or its pairs by score, lowest first (they tell an infinite Elo's sign)."""
    if not sum(counts):
        return "-", "-", "-"
    los_cell = _los_or_na(los)
    if elo is None:
        return ("+inf" if counts[-1] == sum(counts) else "-inf"), "-", los_cell
    if error is None:
        return _elo_text(elo), "n/a" if without_spread(counts) else "inf", los_cell
    return _elo_text(elo), f"{error:.1f}", los_cell


def _elo_text(elo: float) -> str:
    return f"{round(elo, 1) + 0.0:+.1f}"


def _percent(value: float) -> str:
    return f"{100 * value:.1f}%"


def _standings_table(standings: Standings) -> Table:
    with_void = any(row.void for row in standings.rows)
    rows = []
    for position, row in enumerate(standings.rows, start=1):
        elo = "-" if row.elo is None else _elo_text(row.elo)
        error = "-" if row.elo_error is None else f"{row.elo_error:.1f}"
        los = "-" if position == len(standings.rows) else _los_or_na(row.los)
        score = "-" if row.score_percent is None else f"{row.score_percent:.1f}%"
        cells = [str(row.rank), row.name, str(row.games), str(row.wins), str(row.draws)]
        cells += [str(row.losses), *([str(row.void)] if with_void else [])]
        cells += [f"{row.points:.1f}", score, elo, error, los]
        rows.append(cells)
    headers = ["Rank", "Engine", "Games", "W", "D", "L", *(["Void"] if with_void else [])]
    headers += ["Points", "Score", "Elo", "±", "LOS"]
    return Table(
        title="Standings",
        note="Elo: maximum-likelihood Bradley–Terry rating over all games (a draw half a "
        "win, 2 virtual draws per engine as in BayesElo), averaging 0, ± its 95% margin; "
        "LOS: likelihood of being stronger than the next engine, head to head (n/a: no "
        "decisive game between them). Order: points, then the points scored in the games "
        "among the engines tied on points, then Elo; engines equal in all three share a "
        "rank, in the tournament's order. Void games (both engines failed) score no points "
        "and are not rated.",
        headers=headers,
        right=[True, False] + [True] * (len(headers) - 2),
        rows=rows,
    )


def _los_or_na(los: float | None) -> str:
    return "n/a" if los is None else _percent(los)


def _crosstable_table(standings: Standings) -> Table:
    names = [row.name for row in standings.rows]
    rows = []
    for name in names:
        records = standings.crosstable[name]
        cells = ["-" if other == name else _record_text(records[other]) for other in names]
        rows.append([name, *cells])
    return Table(
        title="Crosstable",
        note="Wins-draws-losses of the row's engine against the column's; void games, if "
        "any, in brackets.",
        headers=["Engine", *names],
        right=[False] + [True] * len(names),
        rows=rows,
    )


def _wdl_text(record: Record | PairStats) -> str:
    return f"{record.wins}-{record.draws}-{record.losses}"


def _record_text(record: Record) -> str:
    return _wdl_text(record) + (f" ({record.void} void)" if record.void else "")


def _pairs_table(standings: Standings) -> Table:
    with_void = any(pair.void for pair in standings.pairs)
    rows = []
    for pair in standings.pairs:
        trinomial = estimate_cells(
            pair.elo, pair.elo_error, pair.los, (pair.losses, pair.draws, pair.wins)
        )
        pentanomial = estimate_cells(
            pair.penta_elo, pair.penta_elo_error, pair.penta_los, pair.pentanomial
        )
        cells = [pair.first, pair.second, str(pair.games), _wdl_text(pair)]
        cells += [*([str(pair.void)] if with_void else []), *trinomial, str(pair.pairs)]
        cells += ["[" + ", ".join(map(str, pair.pentanomial)) + "]", *pentanomial]
        rows.append(cells)
    headers = ["Engine", "Opponent", "Games", "W-D-L", *(["Void"] if with_void else [])]
    headers += ["Elo", "±", "LOS", "Pairs", "Ptnml(0-2)", "Elo (ptnml)", "±", "LOS (ptnml)"]
    right = [False, False, True, True, *([True] if with_void else [])]
    right += [True, True, True, True, False, True, True, True]
    return Table(
        title="Head to head",
        note="From the first engine's side. Ptnml(0-2): complete pairs of games (neither "
        "void) by its pair score 0, ½, 1, 1½, 2 points; the pentanomial Elo, margin and LOS "
        "come from them. n/a: every game, or every pair, scored the same, so the sample "
        "shows no spread to measure (or, for the LOS, no decisive game).",
        headers=headers,
        right=right,
        rows=rows,
    )
