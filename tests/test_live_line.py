"""The live line of the games in progress: drawn in place on a terminal (a pseudo-terminal
here), absent when the output is piped, forced by ``--progress``, off with ``--quiet``."""

import os
import pty
import re
import subprocess
import sys
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

from processes import run_banqi
from referee_fakes import Fake, write_fake

from banqi_cli.live_line import CLEAR, game_words
from banqi_engine.rules import PRESETS
from referee.live import LiveGame, LivePlayer
from referee.record import PlyRecord
from referee.timecontrol import TimeControl

SLOW = """
plain_on_genmove = on_genmove


def on_genmove(i, words):
    time.sleep(0.05)
    plain_on_genmove(i, words)
"""

CLEAR_LINE = CLEAR.removeprefix("\r")
"""What is left of ``CLEAR`` in text read with universal newlines (its ``\r`` a line end)."""

LIVE = re.compile(r"g0001 ply \d+ slow \d+:\d\d other \d+:\d\d last ")


def engines(tmp_path: Path) -> tuple[Fake, Fake]:
    folder = tmp_path / "engines"
    return write_fake(folder, "slow", SLOW, legal=True), write_fake(folder, "other", legal=True)


def match_args(tmp_path: Path, *extra: str) -> list[str]:
    slow, other = engines(tmp_path)
    return [
        "match",
        f"slow={sys.executable} {slow.script}",
        f"other={sys.executable} {other.script}",
        "--games",
        "1",
        "--rules",
        "casual",
        "--seed",
        "2",
        "--time",
        "20",
        "--sandbox",
        "off",
        "--out",
        str(tmp_path / "run"),
        *extra,
    ]


def on_a_terminal(args: list[str], cwd: Path, timeout: float = 120.0) -> str:
    """``banqi ARGS`` with stdout and stderr on a pseudo-terminal; all it wrote there."""
    leader, follower = pty.openpty()
    env = {**os.environ, "HOME": str(cwd), "COLUMNS": "200"}
    process = subprocess.Popen(
        [sys.executable, "-c", "from banqi_cli.main import cli; cli()", *args],
        cwd=cwd,
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=follower,
        stderr=follower,
    )
    os.close(follower)
    chunks = []
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            data = os.read(leader, 65536)
        except OSError:  # the terminal closed: the process has ended
            break
        if not data:
            break
        chunks.append(data)
    os.close(leader)
    assert process.wait(timeout=10) == 0
    return b"".join(chunks).decode("utf-8", "replace")


def test_a_terminal_shows_the_games_in_progress_in_place(tmp_path: Path) -> None:
    written = on_a_terminal(match_args(tmp_path), tmp_path)
    drawn = [part for part in written.split(CLEAR) if LIVE.match(part)]
    assert len(drawn) >= 2  # redrawn as the game goes on
    plies = [int(part.split()[2]) for part in drawn]
    assert plies == sorted(plies)
    # the live line was cleared before the game's line was printed
    assert CLEAR + "[1/1] g0001" in written
    assert not LIVE.search(written.split("[1/1] g0001")[-1])  # none after the game


def test_piped_output_has_no_live_line_unless_forced(tmp_path: Path) -> None:
    piped = run_banqi(match_args(tmp_path), tmp_path, tmp_path)
    assert piped.returncode == 0, piped.stderr
    assert CLEAR_LINE not in piped.stdout + piped.stderr
    assert "[1/1] g0001" in piped.stdout

    forced = run_banqi(match_args(tmp_path / "forced", "--progress"), tmp_path, tmp_path)
    assert forced.returncode == 0, forced.stderr
    assert LIVE.search(forced.stderr)
    assert CLEAR_LINE in forced.stderr
    assert CLEAR_LINE not in forced.stdout


def test_quiet_turns_the_live_line_off(tmp_path: Path) -> None:
    slow, other = engines(tmp_path)
    args = ["tournament", "--engine", f"slow={sys.executable} {slow.script}"]
    args += ["--engine", f"other={sys.executable} {other.script}", "--rounds", "1"]
    args += ["--rules", "casual", "--time", "20", "--sandbox", "off", "--out", str(tmp_path / "r")]
    written = on_a_terminal([*args, "--quiet", "--progress"], tmp_path)
    assert CLEAR not in written
    assert "Standings" in written


def test_the_live_words_run_the_movers_clock() -> None:
    now = datetime(2026, 1, 1, tzinfo=UTC)
    view = LiveGame(
        game_id="g0007",
        deal="d1",
        rules=PRESETS["casual"],
        time_control=TimeControl(time=60),
        players=(LivePlayer(name="a"), LivePlayer(name="b")),
        first=0,
        seed=1,
        plies=[PlyRecord(player=0, move="a1 a1 K", ms=500, clocks_ms=(59_500, 60_000))],
        updated_at=now - timedelta(seconds=10),
    )
    assert game_words(view, now) == "g0007 ply 1 a 0:59 b 0:50 last a1 a1 K"


def test_a_quiet_match_on_a_terminal_says_only_its_summary(tmp_path: Path) -> None:
    written = on_a_terminal([*match_args(tmp_path), "--quiet", "--progress"], tmp_path)
    assert CLEAR not in written
    assert "match: slow vs other" not in written and "[1/1] g0001" not in written
    assert "Score of slow vs other: " in written
    assert "warning: sandbox off, engines are NOT isolated" in written  # a warning is never quiet


def test_a_quiet_sprt_says_only_its_verdict(tmp_path: Path) -> None:
    slow, other = engines(tmp_path)
    args = ["sprt", f"slow={sys.executable} {slow.script}"]
    args += [f"other={sys.executable} {other.script}"]
    args += ["--max-games", "2", "--rules", "casual", "--time", "20", "--sandbox", "off"]
    args += ["--out", str(tmp_path / "s"), "--quiet", "--progress"]
    written = on_a_terminal(args, tmp_path)
    assert CLEAR not in written
    assert "pair 1" not in written and "sprt: slow vs other" not in written
    assert "inconclusive" in written
