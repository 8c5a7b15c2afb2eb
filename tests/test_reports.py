"""The text, Markdown and JSON reports of the standings, and the files they are written to."""

import json
from pathlib import Path

import pytest
from test_standings import RESULTS, game

from tournaments.reports import (
    format_standings_markdown,
    format_standings_text,
    report_json,
    standings_json,
    write_reports,
)
from tournaments.results import Standings
from tournaments.standings import compute_standings


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
        "report.json",
        "report.md",
        "report.txt",
        "standings.json",
    ]
    assert (tmp_path / "standings.json").read_text() == standings_json(standings)
    assert (tmp_path / "report.json").read_text() == report_json(standings)
    assert (tmp_path / "report.md").read_text() == format_standings_markdown(standings)
    assert (tmp_path / "report.txt").read_text() == format_standings_text(standings)
