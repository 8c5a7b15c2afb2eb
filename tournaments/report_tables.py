"""The report's three tables (standings, crosstable, head to head) as cells of text.

:mod:`tournaments.reports` lays them out as plain text or Markdown.
"""

from typing import NamedTuple

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


def _elo_cells(
    elo: float | None, error: float | None, taken: float, available: float
) -> tuple[str, str]:
    """Elo and margin cells; ``taken`` of ``available`` points tell an infinite Elo's sign."""
    if elo is None:
        if available and taken == available:
            return "+inf", "-"
        return ("-inf" if available else "-"), "-"
    return f"{round(elo, 1) + 0.0:+.1f}", "inf" if error is None else f"{error:.1f}"


def _percent(value: float | None) -> str:
    return "-" if value is None else f"{100 * value:.1f}%"


def _standings_table(standings: Standings) -> Table:
    rows = []
    for row in standings.rows:
        elo, error = _elo_cells(row.elo, row.elo_error, row.points, row.games)
        score = "-" if row.score_percent is None else f"{row.score_percent:.1f}%"
        cells = [str(row.rank), row.name, str(row.games), str(row.wins), str(row.draws)]
        cells += [str(row.losses), f"{row.points:.1f}", score, elo, error, _percent(row.los)]
        rows.append(cells)
    return Table(
        title="Standings",
        note="Elo: maximum-likelihood Bradley–Terry rating over all games (a draw half a win, "
        "2 virtual draws per engine as in BayesElo), averaging 0, ± its 95% margin; "
        "LOS: likelihood of being stronger than the next engine, head to head.",
        headers=["Rank", "Engine", "Games", "W", "D", "L", "Points", "Score", "Elo", "±", "LOS"],
        right=[True, False] + [True] * 9,
        rows=rows,
    )


def _crosstable_table(standings: Standings) -> Table:
    names = [row.name for row in standings.rows]
    rows = []
    for name in names:
        records = standings.crosstable[name]
        cells = ["-" if other == name else _wdl_text(records[other]) for other in names]
        rows.append([name, *cells])
    return Table(
        title="Crosstable",
        note="Wins-draws-losses of the row's engine against the column's.",
        headers=["Engine", *names],
        right=[False] + [True] * len(names),
        rows=rows,
    )


def _wdl_text(record: Record | PairStats) -> str:
    return f"{record.wins}-{record.draws}-{record.losses}"


def _pairs_table(standings: Standings) -> Table:
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
    return Table(
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
