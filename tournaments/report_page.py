"""``report.html``: the report as one self-contained page that opens from disk.

Plain HTML with its style inline and an inline SVG chart of each engine's rating with its
95% margin as an error bar; nothing is fetched (no script, font, image or link). The
tables are the cells of :mod:`tournaments.report_tables`, as in the text and Markdown
reports. Given the run's :class:`~tournaments.report_about.ReportAbout`, the page starts
with it (:func:`about_section`, which ``sprt.html`` shows too); every text is escaped.
"""

import math
from collections.abc import Callable, Sequence
from html import escape

from .report_about import ABOUT_NOTE, ABOUT_TITLE, ReportAbout, about_items, engines_table
from .report_tables import Table, report_tables
from .results import StandingRow, Standings

STYLE = """
body { font-family: system-ui, sans-serif; margin: 2em; color: #222; }
table { border-collapse: collapse; margin: 0.5em 0 1.5em; }
th, td { padding: 0.2em 0.6em; border-bottom: 1px solid #ddd; white-space: nowrap; }
th { background: #f2f2f2; }
.about th { text-align: left; }
.about td { white-space: normal; }
.num { text-align: right; font-variant-numeric: tabular-nums; }
.note { color: #555; max-width: 60em; font-size: 0.9em; }
svg text { font: 12px system-ui, sans-serif; fill: #222; }
.bar.up { fill: #4a8fd4; }
.bar.down { fill: #d4804a; }
.margin { stroke: #222; stroke-width: 1.5; }
.axis { stroke: #999; }
"""

CHART_NOTE = (
    "Each engine's Elo (the bar, from 0) with its 95% margin (the error bar): the ratings "
    "of the standings, averaging 0."
)

WIDTH = 760
"""Width of the chart, in pixels."""
LABELS = 170
"""Width of the engine names on the left."""
VALUES = 150
"""Width of the figures on the right."""
ROW = 26
"""Height of one engine's row."""
TOP = 26
"""Room above the rows for the scale."""


def report_page(
    standings: Standings,
    gauntlet_lines: Sequence[str] = (),
    match: str | None = None,
    about: ReportAbout | None = None,
) -> str:
    """The whole page: the run's ``about`` block (if given), standings, rating chart,
    crosstable, head to head, and a gauntlet's lines or a match to a score's outcome, if
    any."""
    standings_table, *other_tables = report_tables(standings)
    games = sum(row.games for row in standings.rows) // 2
    parts = [
        "<!DOCTYPE html>",
        '<html lang="en">',
        '<head>\n<meta charset="utf-8">\n<title>Tournament report</title>',
        f"<style>{STYLE}</style>\n</head>",
        "<body>",
        "<h1>Tournament report</h1>",
        f"<p>{len(standings.rows)} engines, {games} games.</p>",
        *([] if about is None else [about_section(about)]),
        _table_section(standings_table),
        "<h2>Ratings</h2>",
        f'<p class="note">{escape(CHART_NOTE)}</p>',
        rating_chart(standings.rows),
        *(_table_section(table) for table in other_tables),
    ]
    if gauntlet_lines:
        items = "\n".join(f"<li>{escape(line)}</li>" for line in gauntlet_lines)
        parts += ["<h2>Gauntlet</h2>", f"<ul>\n{items}\n</ul>"]
    if match is not None:
        parts += ["<h2>Match</h2>", f"<p>{escape(match)}</p>"]
    parts += ["</body>", "</html>"]
    return "\n".join(parts) + "\n"


def about_section(about: ReportAbout) -> str:
    """The run's block: its facts as a table of label and text, then the engines' table."""
    rows = (
        f'<tr><th scope="row">{escape(label)}</th><td>{escape(text)}</td></tr>'
        for label, text in about_items(about)
    )
    return "\n".join(
        [
            f'<section id="about">\n<h2>{escape(ABOUT_TITLE)}</h2>',
            f'<p class="note">{escape(ABOUT_NOTE)}</p>',
            '<table class="about">',
            *rows,
            "</table>",
            _table_section(engines_table(about)),
            "</section>",
        ]
    )


def _table_section(table: Table) -> str:
    """A table's heading, note and rows (``(none)`` without rows)."""
    head = [f"<h2>{escape(table.title)}</h2>", f'<p class="note">{escape(table.note)}</p>']
    if not table.rows:
        return "\n".join([*head, "<p>(none)</p>"])
    lines = [*head, "<table>", "<tr>" + _cells("th", table.headers, table.right) + "</tr>"]
    lines += ["<tr>" + _cells("td", row, table.right) + "</tr>" for row in table.rows]
    lines.append("</table>")
    return "\n".join(lines)


def _cells(tag: str, cells: Sequence[str], right: Sequence[bool]) -> str:
    """A row's cells, numbers (right-aligned columns) marked as such."""
    opening = {True: f'<{tag} class="num">', False: f"<{tag}>"}
    return "".join(
        f"{opening[is_right]}{escape(cell)}</{tag}>"
        for cell, is_right in zip(cells, right, strict=True)
    )


def rating_chart(rows: Sequence[StandingRow]) -> str:
    """An SVG chart with a row per engine: a bar from 0 to its Elo and an error bar over its
    95% margin, the figures beside them; an engine without rated games gets no bar."""
    span = _scale(rows)
    plot = WIDTH - LABELS - VALUES
    zero = LABELS + plot / 2

    def x(elo: float) -> float:
        return zero + elo / span * plot / 2

    height = TOP + ROW * len(rows) + 6
    parts = [
        f'<svg width="{WIDTH}" height="{height}" '
        f'viewBox="0 0 {WIDTH} {height}" role="img" aria-label="Ratings with 95% margins">'
    ]
    for tick in (-span, -span / 2, 0.0, span / 2, span):
        label = f"{tick:+g}" if tick else "0"
        parts.append(f'<text x="{x(tick):.1f}" y="14" text-anchor="middle">{label}</text>')
    parts.append(
        f'<line class="axis" x1="{zero:.1f}" y1="{TOP - 6}" x2="{zero:.1f}" y2="{height}"/>'
    )
    for index, row in enumerate(rows):
        parts += _chart_row(row, TOP + index * ROW, x)
    parts.append("</svg>")
    return "\n".join(parts)


def _chart_row(row: StandingRow, top: float, x: Callable[[float], float]) -> list[str]:
    """The name, bar, error bar and figures of one engine."""
    middle = top + ROW / 2
    name = escape(row.name)
    parts = [f'<text x="{LABELS - 8}" y="{middle + 4:.1f}" text-anchor="end">{name}</text>']
    figures_at = WIDTH - VALUES + 10
    if row.elo is None:
        parts.append(f'<text x="{figures_at}" y="{middle + 4:.1f}">no rated games</text>')
        return parts
    left, right = sorted((x(0.0), x(row.elo)))
    margin = row.elo_error
    figures = f"{row.elo:+.1f}" + ("" if margin is None else f" ± {margin:.1f}")
    direction = "up" if row.elo >= 0 else "down"
    parts.append(
        f'<rect class="bar {direction}" x="{left:.1f}" y="{top + 5:.1f}" '
        f'width="{max(right - left, 1.0):.1f}" height="{ROW - 10}">'
        f"<title>{name}: {figures}</title></rect>"
    )
    if margin is not None:
        low, high = x(row.elo - margin), x(row.elo + margin)
        parts.append(
            f'<path class="margin" d="M{low:.1f} {middle:.1f}H{high:.1f}'
            f"M{low:.1f} {middle - 5:.1f}V{middle + 5:.1f}"
            f'M{high:.1f} {middle - 5:.1f}V{middle + 5:.1f}"/>'
        )
    parts.append(f'<text x="{figures_at}" y="{middle + 4:.1f}">{escape(figures)}</text>')
    return parts


def _scale(rows: Sequence[StandingRow]) -> float:
    """Elo from 0 to either end of the chart: the farthest end of a margin, rounded up to
    a multiple of 50 (at least 50)."""
    reach = max(
        (abs(row.elo) + (row.elo_error or 0.0) for row in rows if row.elo is not None),
        default=0.0,
    )
    return 50.0 * max(1, math.ceil(reach / 50))
