"""``banqi perft`` through click's test runner, and once as a real process."""

import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from banqi_cli.main import cli

OPENING = "XXXX/XXXX/XXXX/XXXX/XXXX/XXXX/XXXX/XXXX - 12222251222225"
SMALL = "nM--/----/kg--/---c/prgp/-X--/-r--/Xm-m b 00001000000001"
HONG_KONG = "N-PX/----/XK--/--R-/X--X/n-XX/XkXX/G-XC b 00010110120013"


def run(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(cli, list(args))
    return result.exit_code, result.stdout, result.stderr


@pytest.mark.parametrize(
    ("position", "depth", "expected"),
    [(OPENING, "0", "1"), (OPENING, "1", "448"), (OPENING, "2", "192448"), (SMALL, "3", "3525")],
)
def test_leaf_count_is_the_last_line(position: str, depth: str, expected: str) -> None:
    code, out, err = run("perft", position, depth)
    assert code == 0, err
    assert out.splitlines()[-1] == expected


def test_divide_prints_one_line_per_first_ply_then_the_total() -> None:
    code, out, err = run("perft", SMALL, "2", "--divide")
    assert code == 0, err
    lines = out.splitlines()
    assert lines[-1] == "151"
    rows = lines[:-1]
    assert len(rows) == 23
    counts = []
    for row in rows:
        move, _, count = row.partition(": ")
        assert count.isdigit(), row
        assert move, row
        counts.append(int(count))
    assert sum(counts) == 151
    moves = {row.partition(": ")[0] for row in rows}
    assert {"a1(N)", "a1(p)", "b3(N)", "b3(p)"} <= moves
    assert "a6-a7" in moves


def test_rules_option() -> None:
    code, out, _ = run("perft", HONG_KONG, "2", "--rules", "hong-kong")
    assert code == 0
    assert out.splitlines()[-1] == "5094"
    code, out, _ = run("perft", HONG_KONG, "2")
    assert code == 0
    assert out.splitlines()[-1] != "5094"


def test_rules_from_a_file(tmp_path: Path) -> None:
    path = tmp_path / "hk.toml"
    path.write_text('preset = "hong-kong"\n', encoding="utf-8")
    code, out, err = run("perft", HONG_KONG, "1", "--rules", str(path))
    assert code == 0, err
    assert out.splitlines()[-1] == "73"


@pytest.mark.parametrize(
    ("position", "field"),
    [
        ("XXXX/XXXX - 12222251222225", "board"),
        ("XXXX/XXXX/XXXX/XXXX/XXXX/XXXX/XXXX/XXXX w 12222251222225", "side"),
        ("XXXX/XXXX/XXXX/XXXX/XXXX/XXXX/XXXX/XXXX - 1222225122222", "pool"),
        ("nonsense", "fields"),
    ],
)
def test_bad_position_is_one_error_line(position: str, field: str) -> None:
    code, out, err = run("perft", position, "1")
    assert code != 0
    assert out == ""
    lines = err.splitlines()
    assert len(lines) == 1
    assert lines[0].startswith("Error: ")
    assert field in lines[0]
    assert "Traceback" not in err


def test_unknown_rules_is_refused() -> None:
    code, out, err = run("perft", OPENING, "1", "--rules", "olympic")
    assert code != 0
    assert out == ""
    assert "olympic" in err
    assert "hong-kong" in err
    assert "Traceback" not in err


def test_bad_depth_is_refused() -> None:
    code, _, err = run("perft", OPENING, "-1")
    assert code != 0
    assert "DEPTH" in err


def banqi_command() -> list[str]:
    script = shutil.which("banqi")
    if script is not None:
        return [script]
    return [sys.executable, "-c", "from banqi_cli.main import cli; cli()"]


def test_real_process_exit_codes_and_streams() -> None:
    good = subprocess.run(
        [*banqi_command(), "perft", SMALL, "2"],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert good.returncode == 0, good.stderr
    assert good.stdout.splitlines()[-1] == "151"

    bad = subprocess.run(
        [*banqi_command(), "perft", "XXXX/XXXX/XXXX/XXXX/XXXX/XXXX/XXXX/XXXX - 1 0 0", "1"],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert bad.returncode != 0
    assert bad.stdout == ""
    assert len(bad.stderr.splitlines()) == 1
    assert bad.stderr.startswith("Error: ")
    assert "pool" in bad.stderr
    assert "Traceback" not in bad.stderr
