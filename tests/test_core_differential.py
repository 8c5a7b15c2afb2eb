"""The compiled core and the pure one play alike: the same moves, scores, depths and node
counts in node-limited searches, the same perft counts under every rule-set preset.

This process runs the installed build (compiled, see ``test_engine_build``); the pure one
runs in a subprocess with ``BANQI_PURE=1``.
"""

import os
import re
import subprocess
import sys
from pathlib import Path

from click.testing import CliRunner
from processes import script

from banqi_cli.main import cli
from banqi_common.version import VERSION
from banqi_engine.core_build import CORE_BUILD, PURE_ENV, PURE_REQUESTED
from banqi_engine.perft import perft
from banqi_engine.position import parse_position
from banqi_engine.rules import PRESETS
from banqi_engine.speed_bench import BENCH_POSITIONS

NODES = "20000"
PERFT_DEPTH = 3


def _run_pure(code: str, *args: str) -> str:
    """Run ``code`` with ``args`` in a Python with the pure core; its stdout."""
    done = subprocess.run(
        [sys.executable, "-c", code, *args],
        env={**os.environ, PURE_ENV: "1"},
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


def _without_times(output: str) -> list[str]:
    """The lines of ``bench search --nodes`` without their seconds, and without the total."""
    return [re.sub(r" +\d+\.\d\ds ", " ", line) for line in output.splitlines()[:-1]]


def test_node_limited_searches_agree_between_the_builds() -> None:
    pure = _run_pure(
        "from banqi_cli.main import cli; cli()",
        "bench",
        "search",
        "--nodes",
        NODES,
    )
    here = CliRunner().invoke(cli, ["bench", "search", "--nodes", NODES])
    assert here.exit_code == 0, here.output
    assert _without_times(pure) == _without_times(here.output)
    positions = [entry for entry in BENCH_POSITIONS if " - " not in entry.position]
    assert len(_without_times(pure)) == len(positions)
    assert all(f" {int(NODES):,} nodes " in line for line in _without_times(pure))
    assert pure.splitlines()[-1].endswith(f"nodes/s (pure Python ({PURE_REQUESTED}))")
    assert here.output.splitlines()[-1].endswith(f"nodes/s ({CORE_BUILD.description})")


def perft_lines() -> list[str]:
    """A line ``PRESET COUNT`` for every preset and bench position, at most PERFT_DEPTH deep."""
    lines = []
    for rules in PRESETS.values():
        for entry in BENCH_POSITIONS:
            pos = parse_position(entry.position, rules)
            lines.append(f"{rules.name} {perft(pos, rules, min(PERFT_DEPTH, entry.perft_depth))}")
    return lines


def test_perft_counts_agree_between_the_builds_under_every_preset() -> None:
    code = (
        f"import sys; sys.path.insert(0, {str(Path(__file__).parent)!r})\n"
        "from test_core_differential import perft_lines; print(*perft_lines(), sep='\\n')"
    )
    here = perft_lines()
    assert _run_pure(code).splitlines() == here
    assert len(here) == len(PRESETS) * len(BENCH_POSITIONS)


def test_the_pure_engine_says_so_in_its_version_reply() -> None:
    done = subprocess.run(
        [script("banqi-engine")],
        input="2 version\n5 quit\n",
        env={**os.environ, PURE_ENV: "1"},
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    assert done.stdout.splitlines()[0] == f"=2 {VERSION} pure-python"
