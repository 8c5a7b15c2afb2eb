"""The text, Markdown and JSON reports of the standings, and the files they are written to."""

import json
from pathlib import Path

import pytest
from test_standings import RESULTS, game

from tournaments.report_page import report_page
from tournaments.reports import (
    format_head_to_head,
    format_standings_markdown,
    format_standings_text,
    report_json,
    standings_json,
    write_reports,
)
from tournaments.results import Standings
from tournaments.standings import compute_standings, head_to_head

ONE_PAIR = [game("A", "B", 0, 1), game("B", "A", None, 1)]
"""A won one game and drew the other: 1½ of 2 points, +190.8 Elo, no spread over the pair."""

VOID_RUN = [
    game("A", "B", None, 1, void=True),
    game("B", "A", 1, 1),
    game("A", "B", 0, 2),
    game("B", "A", 0, 2),
]
"""A void game in pair 1, then A 2-0-1 against B."""


def table_lines(text: str, title: str) -> list[str]:
    """The header and rows of the plain-text table under ``title``."""
    block = text.split(title + "\n", 1)[1].split("\n\n", 2)[1]
    lines = block.splitlines()
    return [lines[0], *lines[2:]]


@pytest.fixture
def standings() -> Standings:
    return compute_standings(RESULTS, ["C", "B", "A", "E"])


def test_text_report(standings: Standings) -> None:
    text = format_standings_text(standings)
    lines = text.splitlines()
    header = next(line for line in lines if line.startswith("Rank"))
    rule = lines[lines.index(header) + 1]
    assert set(rule) <= {"-", " "} and len(rule) == len(header)
    first_row = lines[lines.index(header) + 2]
    assert first_row.split()[:8] == ["1", "A", "7", "3", "2", "2", "4.0", "57.1%"]
    assert "+30.7" in first_row  # 30.68 rounded
    assert "Crosstable" in text and "1-1-2" in text and "2-1-1" in text
    assert "[1, 0, 0, 1, 0]" in text and "[0, 0, 1, 0, 0]" in text
    assert text.endswith("\n")


def test_markdown_report(standings: Standings) -> None:
    markdown = format_standings_markdown(standings)
    table_lines = [line for line in markdown.splitlines() if line.startswith("|")]
    assert all(line.endswith("|") for line in table_lines)
    assert "| 1 | A | 7 | 3 | 2 | 2 | 4.0 | 57.1% | +30.7 | 227.8 |" in markdown
    assert markdown.count("## ") == 3
    piped = compute_standings([game("a|b", "c", 0)], ["a|b", "c"])
    assert "| a\\|b |" in format_standings_markdown(piped)


def test_json_reports(standings: Standings) -> None:
    rows = json.loads(standings_json(standings))
    assert isinstance(rows, list)
    assert rows == [row.model_dump() for row in standings.rows]
    assert set(rows[0]) >= {"name", "games", "wins", "draws", "losses", "points", "elo", "los"}
    report = json.loads(report_json(standings))
    assert set(report) == {"rows", "crosstable", "pairs"}
    assert Standings.model_validate(report) == standings


def test_reports_of_a_perfect_score_and_no_games() -> None:
    # W won both games: rated ±95.4 with the prior (test_standings), but its own Elo
    # against Z is infinite; N never played.
    standings = compute_standings([game("W", "Z", 0), game("Z", "W", 1)], ["W", "Z", "N"])
    text = format_standings_text(standings)
    standings_part, head_to_head = text.split("Head to head")
    assert "+95.4" in standings_part and "-95.4" in standings_part
    assert "inf" not in standings_part
    assert "+inf" in head_to_head  # the pair's own Elo stays infinite
    rows = json.loads(standings_json(standings))
    assert [row["elo"] is None for row in rows] == [False, False, True]
    assert rows[0]["elo"] == pytest.approx(95.42, abs=0.005)


def test_reports_without_engines() -> None:
    empty = compute_standings([], [])
    assert "(none)" in format_standings_text(empty)
    assert json.loads(standings_json(empty)) == []
    assert format_standings_markdown(empty).count("(none)") == 3


def test_write_reports(tmp_path: Path, standings: Standings) -> None:
    write_reports(tmp_path, standings)
    assert sorted(path.name for path in tmp_path.iterdir()) == [
        "report.html",
        "report.json",
        "report.md",
        "report.txt",
        "standings.json",
    ]
    assert (tmp_path / "standings.json").read_text() == standings_json(standings)
    assert (tmp_path / "report.json").read_text() == report_json(standings)
    assert (tmp_path / "report.md").read_text() == format_standings_markdown(standings)
    assert (tmp_path / "report.txt").read_text() == format_standings_text(standings)
    assert (tmp_path / "report.html").read_text() == report_page(standings)


def test_one_pair_shows_no_margin_or_los_it_cannot_support() -> None:
    text = format_standings_text(compute_standings(ONE_PAIR, ["A", "B"]))
    header, row = table_lines(text, "Head to head")
    # Before: "+190.8  0.0  100.0%" for the pentanomial; the games one by one keep their
    # unbounded margin and cutechess's LOS (84.1%).
    assert row.split() == [
        *["A", "B", "2", "1-1-0", "+190.8", "inf", "84.1%"],
        *["1", "[0,", "0,", "0,", "1,", "0]", "+190.8", "n/a", "n/a"],
    ]
    assert "0.0%" not in row and "100.0%" not in row
    assert "Void" not in header
    standings_header, first, last = table_lines(text, "Standings")
    # The ratings keep their prior: W-D-L 1-1-0 plus 2 virtual draws, 2½ of 4 points.
    assert first.split()[:9] == ["1", "A", "2", "1", "1", "0", "1.5", "75.0%", "+44.4"]
    assert first.split()[-1] == "84.1%" and last.split()[-1] == "-"
    assert "Void" not in standings_header


def test_only_draws_show_no_margin() -> None:
    standings = compute_standings([game("A", "B", None, 1), game("B", "A", None, 1)], ["A", "B"])
    text = format_standings_text(standings)
    _, row = table_lines(text, "Head to head")
    assert row.split()[4:7] == ["+0.0", "n/a", "n/a"]
    assert row.split()[-3:] == ["+0.0", "n/a", "n/a"]
    _, first, _ = table_lines(text, "Standings")
    assert first.split()[-1] == "n/a"  # no decisive game against the next engine
    pair = json.loads(report_json(standings))["pairs"][0]
    assert (pair["elo"], pair["elo_error"], pair["los"], pair["penta_elo_error"]) == (
        0.0,
        None,
        None,
        None,
    )


def test_void_games_have_a_column_and_a_count() -> None:
    standings = compute_standings(VOID_RUN, ["A", "B"])
    text = format_standings_text(standings)
    header, first, second = table_lines(text, "Standings")
    assert header.split()[:7] == ["Rank", "Engine", "Games", "W", "D", "L", "Void"]
    assert first.split()[:9] == ["1", "A", "4", "2", "0", "1", "1", "2.0", "66.7%"]
    assert second.split()[:9] == ["2", "B", "4", "1", "0", "2", "1", "1.0", "33.3%"]
    _, cross_a, _ = table_lines(text, "Crosstable")
    assert cross_a.split() == ["A", "-", "2-0-1", "(1", "void)"]
    pairs_header, pair_row = table_lines(text, "Head to head")
    assert pairs_header.split()[:5] == ["Engine", "Opponent", "Games", "W-D-L", "Void"]
    assert pair_row.split()[:5] == ["A", "B", "4", "2-0-1", "1"]
    assert pair_row.split()[8] == "1"  # one complete pair: pair 1 has the void game
    markdown = format_standings_markdown(standings)
    assert "| Rank | Engine | Games | W | D | L | Void | Points |" in markdown
    assert "| 2-0-1 (1 void) |" in markdown
    rows = json.loads(standings_json(standings))
    assert [(row["games"], row["void"], row["points"]) for row in rows] == [
        (4, 1, 2.0),
        (4, 1, 1.0),
    ]
    report = json.loads(report_json(standings))
    assert report["crosstable"]["A"]["B"]["void"] == 1
    assert report["pairs"][0]["void"] == 1


def test_head_to_head_line() -> None:
    standings = compute_standings(RESULTS, ["C", "B", "A", "E"])
    assert format_head_to_head(standings.pairs[0]) == (
        "A vs B: 4 games, W-D-L 1-1-2, Elo -88.7 ± inf, LOS 28.2%; "
        "2 pairs [1, 0, 0, 1, 0], Elo -88.7 ± inf, LOS 31.9%"
    )
    # The tiny sample from the losing side: no ± 0.0 and no LOS of 0.0%.
    assert format_head_to_head(head_to_head(ONE_PAIR, "B", "A")) == (
        "B vs A: 2 games, W-D-L 0-1-1, Elo -190.8 ± inf, LOS 15.9%; "
        "1 pair [0, 1, 0, 0, 0], Elo -190.8 ± n/a, LOS n/a"
    )
    won = head_to_head([game("A", "B", 0, 1), game("B", "A", 1, 1)], "A", "B")
    assert format_head_to_head(won) == (
        "A vs B: 2 games, W-D-L 2-0-0, Elo +inf, LOS 92.1%; "
        "1 pair [0, 0, 0, 0, 1], Elo +inf, LOS n/a"
    )
    voided = head_to_head([game("A", "B", None, 1, void=True), game("B", "A", 0, 1)], "A", "B")
    assert format_head_to_head(voided) == (
        "A vs B: 2 games (1 void), W-D-L 0-0-1, Elo -inf, LOS 15.9%; 0 pairs"
    )
    nothing = head_to_head([game("A", "B", None, void=True)], "A", "B")
    assert format_head_to_head(nothing) == ("A vs B: 1 game (1 void), W-D-L 0-0-0; 0 pairs")
