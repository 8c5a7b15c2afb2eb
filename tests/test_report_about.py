"""Every report a run writes says what was played, so that it reads on its own: short real
runs through the command line (``banqi tournament``, a gauntlet, ``banqi match``, ``banqi
sprt``) with real ``banqi-engine`` processes, and their ``report.txt``, ``report.md``,
``report.html`` and ``sprt.html`` checked against the records the run wrote."""

import html
import re
import shlex
from collections.abc import Sequence
from datetime import datetime
from pathlib import Path

import pytest
from click.testing import CliRunner
from processes import script

from banqi_cli.main import cli
from banqi_common.version import VERSION
from banqi_engine.rules import PRESETS, RuleSet
from referee.record import GameRecord, PlayerInfo, read_record
from referee.sandbox import Isolation, working_isolations
from referee.storage import GAMES_DIR

ENGINE = script("banqi-engine")
ODD_NAME = "b<&>"
"""An engine name with characters HTML and Markdown would read as markup."""
ODD_LOG = "x<&>.log"
"""A command argument with them: the engine's log file, in its room."""
ODD_ENGINE = f"{ODD_NAME}={ENGINE} --level 0 --log {shlex.quote(ODD_LOG)}"
"""The engine of that name and log, at level 0."""


def run(args: list[str]) -> None:
    result = CliRunner().invoke(cli, args)
    assert result.exit_code == 0, result.output


def records_in(out: Path) -> list[GameRecord]:
    return [read_record(path) for path in sorted((out / GAMES_DIR).glob("*.json"))]


def run_against_odd(
    tmp_path: Path, command: str, name: str, options: str
) -> tuple[Path, list[GameRecord]]:
    """``banqi COMMAND`` of engine ``name`` at level 1 against the odd engine, with
    ``options`` (words split at spaces), into a fresh run folder: that folder and its
    records."""
    out = tmp_path / "run"
    args = [command, f"{name}={ENGINE} --level 1", ODD_ENGINE, *options.split()]
    run([*args, "--out", str(out)])
    return out, records_in(out)


def about_lines(text: str) -> dict[str, str]:
    """The ``Label: value`` lines of ``report.txt``'s block about the run, its first."""
    head, items = text.split("\n\n")[:2]
    assert head.splitlines()[0] == "About the run"
    return dict(line.split(": ", 1) for line in items.splitlines())


def engines_block(text: str) -> str:
    """The engines' table of ``report.txt``."""
    return text[text.index("\nEngines\n") : text.index("\nStandings\n")]


def rules_words(rules: RuleSet) -> str:
    """Each rule field and its value as a report writes them (booleans as true/false)."""
    fields = [
        ("capture_order", rules.capture_order),
        ("cannon_capture", rules.cannon_capture),
        ("cannon_move", rules.cannon_move),
        ("move_onto_face_down", str(rules.move_onto_face_down).lower()),
        ("no_progress_limit", rules.no_progress_limit),
        ("repetition_count", rules.repetition_count),
    ]
    assert {name for name, _ in fields} == set(RuleSet.model_fields) - {"name"}
    return f"{rules.name} (" + ", ".join(f"{name} {value}" for name, value in fields) + ")"


def sandbox_words(player: PlayerInfo) -> str:
    """The report's words for how ``player`` was sandboxed, and within which limits."""
    if player.isolation is Isolation.NONE:
        return "none (not sandboxed)"
    assert player.isolation is not None and player.limits is not None
    network = ", host network kept" if player.network else ", loopback only"
    limits = player.limits
    return (
        f"{player.isolation.value}{network}, memory {limits.memory_mib} MiB, "
        f"{limits.processes} processes, room {limits.room_mib} MiB"
    )


def check_text(out: Path, records: Sequence[GameRecord], time_words: str, seed: int) -> None:
    """``report.txt`` states the records' rules, clock, seed, dates, banqi version, and each
    engine's command, answers and sandbox."""
    text = (out / "report.txt").read_text()
    lines = about_lines(text)
    assert lines["Rules"] == rules_words(records[0].rules)
    assert lines["Time control"] == time_words
    assert lines["Seed"] == str(seed)
    assert lines["Games recorded"] == str(len(records))
    first = min(record.started_at for record in records)
    last = max(record.finished_at for record in records)
    assert datetime.fromisoformat(lines["First game started"]) == first.replace(microsecond=0)
    assert datetime.fromisoformat(lines["Last game finished"]) == last.replace(microsecond=0)
    assert datetime.fromisoformat(lines["Report written"]) >= last.replace(microsecond=0)
    assert lines["banqi version"] == VERSION
    engines = engines_block(text)
    for record in records:
        for player in record.players:
            row = next(line for line in engines.splitlines() if line.startswith(player.name + " "))
            assert shlex.join(player.command) in row
            assert player.engine_name is not None and player.version is not None
            assert f"{player.engine_name}  " in row and f"{player.version}  " in row
            assert sandbox_words(player) in row


def check_escaped(out: Path, records: Sequence[GameRecord]) -> None:
    """The odd engine's name and command are escaped in ``report.html`` and ``report.md``."""
    odd = next(p for record in records for p in record.players if p.name == ODD_NAME)
    page = (out / "report.html").read_text()
    about = page[page.index('<section id="about">') : page.index("</section>")]
    assert html.escape(shlex.join(odd.command)) in about
    assert f"<td>{html.escape(ODD_NAME)}</td>" in about
    assert "<&>" not in about
    assert f"<td>{html.escape(VERSION)}</td>" in about
    markdown = (out / "report.md").read_text()
    assert "x\\<\\&\\>.log" in markdown and "| b\\<\\&\\> |" in markdown


def test_a_tournament_report_says_the_rules_clocks_seed_and_engines(tmp_path: Path) -> None:
    config = tmp_path / "run.toml"
    config.write_text(
        f"""rules = "hong-kong-forum"
seed = 11

[time]
time = 7
increment = 0.5

[[engines]]
name = "a"
command = "{ENGINE} --level 1"
time = {{ time = 9 }}

[[engines]]
name = "{ODD_NAME}"
command = ["{ENGINE}", "--level", "0", "--log", "{ODD_LOG}"]
"""
    )
    out = tmp_path / "run"
    run(["tournament", str(config), "--out", str(out)])
    records = records_in(out)
    assert len(records) == 2
    assert records[0].rules == PRESETS["hong-kong-forum"]
    check_text(out, records, "7s+0.5s, margin 200 ms", 11)
    check_escaped(out, records)
    text = (out / "report.txt").read_text()
    rows = engines_block(text).splitlines()
    row_a = next(line for line in rows if line.startswith("a "))
    assert "9s+0.5s, margin 200 ms" in row_a
    odd_row = next(line for line in rows if line.startswith(ODD_NAME + " "))
    assert "the run's" in odd_row
    assert "Deals: shuffled from secrets derived from the referee key and the seed" in text
    assert "Sandbox asked: auto" in text


def test_a_gauntlet_report_names_its_deal_book(tmp_path: Path) -> None:
    book = tmp_path / "book.json"
    run(["deals", "--count", "4", "--seed", "5", "--out", str(book)])
    out = tmp_path / "run"
    run(
        [
            "tournament",
            *("--engine", f"g={ENGINE} --level 1"),
            *("--engine", f"r={ENGINE} --level 0"),
            *("--engine", ODD_ENGINE),
            *("--format", "gauntlet", "--rules", "casual", "--time", "8", "--seed", "4"),
            *("--concurrency", "2", "--deals", str(book), "--out", str(out)),
        ]
    )
    records = records_in(out)
    assert len(records) == 4
    assert records[0].deal_book is not None
    sha = records[0].deal_book.sha256
    check_text(out, records, "8s+0s, margin 200 ms", 4)
    check_escaped(out, records)
    lines = about_lines((out / "report.txt").read_text())
    assert lines["Deals"] == f"deal book {book} (sha256 {sha})"
    assert "Gauntlet" in (out / "report.md").read_text()


def test_a_match_report_and_its_page_say_the_same(tmp_path: Path) -> None:
    options = "--games 2 --rules casual --time 6 --move-time 2 --seed 9"
    out, records = run_against_odd(tmp_path, "match", "a", options)
    check_text(out, records, "6s+0s, 2s/move, margin 200 ms", 9)
    check_escaped(out, records)
    page = (out / "report.html").read_text()
    for label, value in about_lines((out / "report.txt").read_text()).items():
        assert f'<th scope="row">{label}</th><td>{html.escape(value)}</td>' in page


def test_an_sprt_chart_says_what_was_played(tmp_path: Path) -> None:
    options = "--max-games 2 --rules casual --time 6 --seed 3"
    out, records = run_against_odd(tmp_path, "sprt", "new", options)
    chart = (out / "sprt.html").read_text()
    about = chart[chart.index('<section id="about">') : chart.index("</section>")]
    lines = about_lines((out / "report.txt").read_text())
    assert lines["Seed"] == "3" and lines["Rules"] == rules_words(PRESETS["casual"])
    for label, value in lines.items():
        if label != "Report written":
            assert f'<th scope="row">{label}</th><td>{html.escape(value)}</td>' in about
    for player in records[0].players:
        assert f"<td>{html.escape(shlex.join(player.command))}</td>" in about
        assert f"<td>{html.escape(sandbox_words(player))}</td>" in about
    assert "<&>" not in about


@pytest.mark.skipif(not working_isolations(), reason="no sandbox works here")
def test_a_fact_that_changed_on_resume_is_given_with_its_games(tmp_path: Path) -> None:
    out = tmp_path / "run"
    engines = ["--engine", f"a={ENGINE} --level 1", "--engine", f"b={ENGINE} --level 0"]
    common = [*engines, "--rules", "casual", "--time", "6", "--seed", "2", "--out", str(out)]
    run(["tournament", *common, "--sandbox", "off"])
    run(["tournament", *common, "--sandbox", "required", "--rounds", "2"])
    records = records_in(out)
    isolations = [record.players[0].isolation for record in records]
    assert isolations.count(Isolation.NONE) == 2 and len(set(isolations)) == 2
    sandboxed = next(r.players[0] for r in records if r.players[0].isolation is not Isolation.NONE)
    text = (out / "report.txt").read_text()
    row = next(line for line in engines_block(text).splitlines() if line.startswith("a "))
    words = sandbox_words(sandboxed)
    assert f"differs between games: none (not sandboxed) (2 games); {words} (2 games)" in row
    assert about_lines(text)["Sandbox asked"] == "required"
    assert re.search(r"Games recorded: 4\n", text)
