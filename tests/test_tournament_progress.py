"""Progress lines of ``banqi tournament`` and the quiet mode."""

import json
import re
import shlex
import sys
import time
from pathlib import Path

import click
import pytest
from click.testing import CliRunner

from banqi_cli.tournament_command import tournament_command
from banqi_cli.tournament_lines import Progress
from referee.engine_spec import EngineSpec
from referee.game_setup import deal_secret_of
from tournaments.config import TournamentConfig
from tournaments.failures import forfeit_record
from tournaments.from_records import standings_from_records
from tournaments.schedule import schedule

INSTANT = """
import sys
flips = sys.argv[1] == "flip"
for line in sys.stdin:
    words = line.split()
    if not words:
        continue
    payload = ""
    if words[0] == "12":
        payload = " a1 a1" if flips and words[2] == "unknown" else " a0 a0"
    print(f"={words[0]}{payload}", flush=True)
"""
"""Resigns every genmove; with the argument ``flip`` it first flips a1 when it opens."""

PROGRESS = re.compile(
    r"\[(?P<done>\d+)/6\] (?P<game>r1-\d-\d-\d) (?P<a>\w+) (?P<score>1-0|0-1|1/2-1/2) (?P<b>\w+) "
    r"(?P<reason>[a-z-]+) \((?P<plies>\d+) pl(?:y|ies)\) \| "
    r"elapsed (?P<elapsed>\d+:\d\d:\d\d), left ~(?P<left>\d+:\d\d:\d\d) \| "
    r"leader (?P<leader>\w+) (?P<points>[\d.]+)/(?P<games>\d+)"
)


def tournament_args(tmp_path: Path, *extra: str) -> list[str]:
    program = tmp_path / "instant.py"
    program.write_text(INSTANT)
    engine = shlex.join([sys.executable, str(program)])
    return [
        "--engine",
        f"opener={engine} flip",
        "--engine",
        f"resigner={engine} resign",
        "--engine",
        f"quitter={engine} resign",
        "--out",
        str(tmp_path / "run"),
        "--key-file",
        str(tmp_path / "referee.key"),
        "--seed",
        "5",
        *extra,
    ]


def test_progress_lines(tmp_path: Path) -> None:
    result = CliRunner().invoke(tournament_command, tournament_args(tmp_path, "--concurrency", "2"))
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert lines[0].startswith("tournament: opener, resigner, quitter; 6 games (1 round)")
    assert "seed 5, 2 at once" in lines[0]
    matches = [PROGRESS.fullmatch(line) for line in lines[1:7]]
    assert all(matches), lines[1:7]
    found = [m.groupdict() for m in matches if m is not None]
    assert [int(m["done"]) for m in found] == [1, 2, 3, 4, 5, 6]
    assert sorted(m["game"] for m in found) == sorted(
        f"r1-{i}-{j}-{k}" for i, j in ((1, 2), (1, 3), (2, 3)) for k in (1, 2)
    )
    assert found[-1]["left"] == "0:00:00"
    assert all(m["reason"] == "resign" for m in found)
    assert lines[7] == "Standings"
    rows = json.loads((tmp_path / "run" / "standings.json").read_text())
    assert found[-1]["leader"] == rows[0]["name"] == "opener"
    assert float(found[-1]["points"]) == rows[0]["points"] == 4.0
    assert int(found[-1]["games"]) == rows[0]["games"] == 4


def test_quiet_prints_only_the_standings(tmp_path: Path) -> None:
    result = CliRunner().invoke(tournament_command, tournament_args(tmp_path, "--quiet"))
    assert result.exit_code == 0, result.output
    assert result.stdout.startswith("Standings\n")
    assert "[1/6]" not in result.stdout
    assert "tournament:" not in result.stdout
    assert "opener" in result.stdout
    assert result.stdout.rstrip().endswith("report.md")
    assert result.stderr == ""


def test_remaining_estimate_counts_only_games_played_now(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    engines = (EngineSpec(name="x", command=("x",)), EngineSpec(name="y", command=("y",)))
    games = list(schedule(TournamentConfig(engines=engines, rounds=5), 1))
    now = [1000.0]
    monkeypatch.setattr(time, "monotonic", lambda: now[0])
    progress = Progress(total=len(games), already=2, quiet=False)
    record = forfeit_record(games[0], {"x"}, deal_secret_of(games[0].setup, b"k" * 32))
    standings = standings_from_records([record], ["x", "y"], [g.setup.deal for g in games])
    printed: list[str] = []
    monkeypatch.setattr(click, "echo", lambda text, **_: printed.append(text))
    now[0] += 30
    progress.game_done(record, standings)
    now[0] += 3570
    progress.game_done(record, standings)
    assert printed[0].startswith("[3/10] r1-1-2-1 x 0-1 y forfeit (0 plies)")
    assert "elapsed 0:00:30 this session, left ~0:03:30 | leader y 1/1" in printed[0]
    assert "[4/10]" in printed[1]
    assert "elapsed 1:00:00 this session, left ~3:00:00" in printed[1]


def test_the_header_names_a_config_files_seed(tmp_path: Path) -> None:
    """The seed of the config (a file's, here), not only one given by --seed."""
    args = tournament_args(tmp_path)
    engines = [args[i + 1].split("=", 1) for i in range(0, 6, 2)]
    config = tmp_path / "t.toml"
    config.write_text(
        "seed = 7\n" + "".join(f'[[engines]]\nname = "{n}"\ncommand = {c!r}\n' for n, c in engines),
        encoding="utf-8",
    )
    result = CliRunner().invoke(tournament_command, [str(config), *args[6:10]])
    assert result.exit_code == 0, result.output
    assert "seed 7, 1 at once" in result.stdout.splitlines()[0]
