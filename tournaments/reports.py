"""The tournament reports: standings as plain text, Markdown, JSON and an HTML page, and
their files; a match's head-to-head line.

Given the run's :class:`~tournaments.report_about.ReportAbout`, a report starts with it: the
rules, time control, seed or deal book, dates, engines (commands, the names and versions
they answered, sandboxes) and the banqi version.

A gauntlet's reports (``gauntlet`` names its gauntlet engines) end with the head-to-head
line of each gauntlet engine against each opponent, from the gauntlet engine's side; a
match to a score's (``match``, its summary line) with who won it.

JSON
    ``standings.json`` is :func:`standings_json`, the list of table rows; ``report.json``
    is :func:`report_json`, the whole :class:`~tournaments.standings.Standings` (rows,
    crosstable and pairs), for a gauntlet its lines (``gauntlet``), and for a match to a
    score its summary line (``match``).
"""

import re
from collections.abc import Callable, Sequence
from pathlib import Path

from pydantic import Field, TypeAdapter

from banqi_common.atomic import write_atomic

from .gauntlet import gauntlet_pairs
from .report_about import ABOUT_NOTE, ABOUT_TITLE, ReportAbout, about_items, engines_table
from .report_page import report_page
from .report_tables import Table, estimate_cells, report_tables
from .results import PairStats, StandingRow, Standings

GAUNTLET_TITLE = "Gauntlet"
GAUNTLET_NOTE = (
    "Each gauntlet engine against each opponent, from the gauntlet engine's side: its W-D-L "
    "with the Elo ± 95% margin and LOS, then its complete pairs by pair score (0, ½, 1, 1½, "
    "2 points) with theirs. Gauntlet engines do not play each other."
)
MATCH_TITLE = "Match"
MATCH_NOTE = "Who won the match to a score, counted a complete pair of games at a time."


def format_standings_text(
    standings: Standings,
    gauntlet: Sequence[str] = (),
    match: str | None = None,
    about: ReportAbout | None = None,
) -> str:
    """The run's ``about`` block (if given), then standings, crosstable and head-to-head
    statistics as fixed-width plain-text tables, a gauntlet's lines, and a match to a
    score's outcome."""

    def heading(title: str, note: str) -> list[str]:
        return [title, note, ""]

    about_blocks = []
    if about is not None:
        items = [f"{label}: {text}" for label, text in about_items(about)]
        table = engines_table(about)
        about_blocks = [
            "\n".join(heading(ABOUT_TITLE, ABOUT_NOTE) + items),
            "\n".join(heading(table.title, table.note) + aligned_lines(table)),
        ]
    return _blocks(
        standings, gauntlet, match, heading, aligned_lines, lambda line: line, about_blocks
    )


def format_standings_markdown(
    standings: Standings,
    gauntlet: Sequence[str] = (),
    match: str | None = None,
    about: ReportAbout | None = None,
) -> str:
    """The run's ``about`` block (if given, its text escaped), then standings, crosstable
    and head-to-head statistics as Markdown tables, a gauntlet's lines as a list, and a
    match to a score's outcome."""

    def heading(title: str, note: str) -> list[str]:
        return [f"## {title}", "", note, ""]

    about_blocks = []
    if about is not None:
        items = [f"- **{label}:** {markdown_text(text)}" for label, text in about_items(about)]
        table = engines_table(about)
        escaped = table._replace(rows=[[markdown_text(c) for c in row] for row in table.rows])
        about_blocks = [
            "\n".join(heading(ABOUT_TITLE, ABOUT_NOTE) + items),
            "\n".join(heading(table.title, table.note) + _markdown_lines(escaped)),
        ]
    return _blocks(
        standings, gauntlet, match, heading, _markdown_lines, lambda line: f"- {line}", about_blocks
    )


MARKDOWN_MARKUP = re.compile(r"[\\`*\[\]<>~&]|(?<![^\W_])_|_(?![^\W_])")
"""What Markdown could read as markup inside a line (emphasis, code, links, HTML, entities,
strikethrough; a ``_`` only next to a character not a letter or digit), each of which
CommonMark lets a backslash escape."""


def markdown_text(text: str) -> str:
    """``text`` with every character Markdown could read as markup backslash-escaped (``|``
    is left to the tables, which escape it)."""
    return MARKDOWN_MARKUP.sub(lambda found: "\\" + found.group(), text)


def _blocks(
    standings: Standings,
    gauntlet: Sequence[str],
    match: str | None,
    heading: Callable[[str, str], list[str]],
    body: Callable[[Table], list[str]],
    item: Callable[[str], str],
    first: Sequence[str] = (),
) -> str:
    """The ``first`` blocks, then each table's heading and its body or ``(none)``, then a
    gauntlet's heading and lines (``item`` formats each), then a match's; the blocks a
    blank line apart."""
    blocks = list(first)
    for table in report_tables(standings):
        lines = heading(table.title, table.note) + (body(table) if table.rows else ["(none)"])
        blocks.append("\n".join(lines))
    if gauntlet:
        lines = [item(line) for line in gauntlet_lines(standings, gauntlet)]
        blocks.append("\n".join(heading(GAUNTLET_TITLE, GAUNTLET_NOTE) + lines))
    if match is not None:
        blocks.append("\n".join([*heading(MATCH_TITLE, MATCH_NOTE), item(match)]))
    return "\n\n".join(blocks) + "\n"


def gauntlet_lines(standings: Standings, gauntlet: Sequence[str]) -> list[str]:
    """The head-to-head line of each gauntlet engine against each opponent."""
    return [format_head_to_head(stats) for stats in gauntlet_pairs(standings, gauntlet)]


def aligned_lines(table: Table) -> list[str]:
    """Header, rule and rows, each column padded to its widest cell."""
    widths = [
        max(len(cell) for cell in column) for column in zip(table.headers, *table.rows, strict=True)
    ]
    lines = []
    for cells in [table.headers, ["-" * width for width in widths], *table.rows]:
        aligned = (
            cell.rjust(width) if right else cell.ljust(width)
            for cell, width, right in zip(cells, widths, table.right, strict=True)
        )
        lines.append("  ".join(aligned).rstrip())
    return lines


def _markdown_lines(table: Table) -> list[str]:
    """Header, alignment rule and rows of a Markdown table, ``|`` in cells escaped."""
    rule = ["---:" if right else ":---" for right in table.right]
    lines = []
    for cells in [table.headers, rule, *table.rows]:
        escaped = (cell.replace("|", "\\|") for cell in cells)
        lines.append("| " + " | ".join(escaped) + " |")
    return lines


_ROWS = TypeAdapter(list[StandingRow])


def standings_json(standings: Standings) -> str:
    """The text of ``standings.json``: the table rows, a JSON list of objects."""
    return _ROWS.dump_json(standings.rows, indent=2).decode() + "\n"


class GauntletReport(Standings):
    """What ``report.json`` holds for a gauntlet."""

    gauntlet: list[PairStats] = Field(
        description="Each gauntlet engine against each opponent, from the gauntlet engine's side."
    )


class MatchReport(Standings):
    """What ``report.json`` holds for a match to a score."""

    match: str = Field(description="Who won the match to a score (its summary line).")


def report_json(
    standings: Standings, gauntlet: Sequence[str] = (), match: str | None = None
) -> str:
    """The text of ``report.json``: rows, crosstable and head-to-head statistics, for a
    gauntlet its lines, and for a match to a score its outcome."""
    report: Standings = standings
    if gauntlet:
        report = GauntletReport.model_validate(
            {**dict(standings), "gauntlet": gauntlet_pairs(standings, gauntlet)}
        )
    elif match is not None:
        report = MatchReport.model_validate({**dict(standings), "match": match})
    return report.model_dump_json(indent=2) + "\n"


def write_reports(
    out: Path,
    standings: Standings,
    gauntlet: Sequence[str] = (),
    match: str | None = None,
    about: ReportAbout | None = None,
) -> None:
    """``standings.json`` (a list of rows), ``report.json``, ``report.md``, ``report.txt``
    and ``report.html``; ``gauntlet`` names a gauntlet's gauntlet engines, ``match`` is a
    match to a score's summary line, ``about`` the run's block the last three start with."""
    lines = gauntlet_lines(standings, gauntlet)
    markdown = format_standings_markdown(standings, gauntlet, match, about)
    write_atomic(out / "standings.json", standings_json(standings))
    write_atomic(out / "report.json", report_json(standings, gauntlet, match))
    write_atomic(out / "report.md", markdown)
    write_atomic(out / "report.txt", format_standings_text(standings, gauntlet, match, about))
    write_atomic(out / "report.html", report_page(standings, lines, match, about))


def format_head_to_head(stats: PairStats) -> str:
    """One line of head-to-head figures from the first engine's side, e.g.
    ``a vs b: 10 games, W-D-L 5-3-2, Elo +107.5 ± 215.8, LOS 87.2%; 5 pairs [0, 0, 3, 1, 1],
    Elo +107.5 ± 143.7, LOS 95.3%``; void games, if any, follow the games (``12 games
    (2 void)``). Cells as in the reports: ``n/a``, ``inf``, no margin for ``±inf``."""
    void = f" ({stats.void} void)" if stats.void else ""
    line = f"{stats.first} vs {stats.second}: {_count(stats.games, 'game')}{void}"
    line += f", W-D-L {stats.wins}-{stats.draws}-{stats.losses}"
    trinomial = (stats.losses, stats.draws, stats.wins)
    line += _estimate_text(stats.elo, stats.elo_error, stats.los, trinomial)
    line += f"; {_count(stats.pairs, 'pair')}"
    if stats.pairs:
        line += " [" + ", ".join(map(str, stats.pentanomial)) + "]"
    return line + _estimate_text(
        stats.penta_elo, stats.penta_elo_error, stats.penta_los, stats.pentanomial
    )


def _count(number: int, noun: str) -> str:
    return f"{number} {noun}" + ("" if number == 1 else "s")


def _estimate_text(
    elo: float | None, error: float | None, los: float | None, counts: tuple[int, ...]
) -> str:
    """``, Elo E ± M, LOS P`` (no ``± M`` for an infinite Elo); empty without a sample."""
    if not sum(counts):
        return ""
    elo_cell, error_cell, los_cell = estimate_cells(elo, error, los, counts)
    margin = "" if error_cell == "-" else f" ± {error_cell}"
    return f", Elo {elo_cell}{margin}, LOS {los_cell}"
