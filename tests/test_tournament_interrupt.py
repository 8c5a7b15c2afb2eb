"""Ctrl-C at several moments of a real ``banqi tournament`` playing two games at once.

Each time: status 130, one line on stderr (besides the sandbox line), no traceback,
every record saved before kept and valid, no half-written file, no engine left running.
Then the same command resumes the run to its end.
"""

import json
import shlex
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from referee_fakes import Fake, running_scripts, write_fake

from banqi_cli.words import counted
from referee.record import read_record
from referee.replay import replay_game_record

BANQI = str(Path(sys.executable).with_name("banqi"))
if not Path(BANQI).exists():
    BANQI = shutil.which("banqi") or "banqi"

SLOW_MOVES = """
slow_answer = answer


def answer(i, words):
    if i == 12 and os.path.exists(os.path.join(HERE, "slow")):
        time.sleep(0.2)
    slow_answer(i, words)
"""
"""Fakes think 0.2 s a move while a file ``slow`` is in their folder."""

FIRST_READY_HANGS = """
FIRST = first_process()
moving_answer = answer


def answer(i, words):
    if FIRST and i == 14:
        time.sleep(30)
    moving_answer(i, words)
"""

SLOW_FIRST_RECORD_WRITE = """
import os, sys, time

from banqi_cli.entry import main

real_fsync = os.fsync
marker = sys.argv.pop(1)


def fsync(fd):
    name = os.readlink(f"/proc/self/fd/{fd}")
    if "/games/." in name and ".json." in name and not os.path.exists(marker):
        with open(marker, "w") as handle:
            handle.write(name)
        time.sleep(1.5)
    real_fsync(fd)


os.fsync = fsync
sys.argv[0] = "banqi"
main()
"""
"""``banqi`` whose first write of a JSON record in a run folder's ``games/`` takes 1.5 s
longer, and says which temp file it is writing in the file named by its first argument."""


def default_sigint() -> None:
    """In the child: SIGINT at its default action, as a terminal's foreground job has it."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def records(out: Path) -> dict[str, bytes]:
    folder = out / "games"
    return {p.name: p.read_bytes() for p in folder.glob("*.json")} if folder.is_dir() else {}


def wait_for(process: subprocess.Popen[str], condition: Callable[[], bool], what: str) -> None:
    deadline = time.monotonic() + 60
    while not condition():
        if process.poll() is not None:
            pytest.fail(f"the tournament ended before {what}: {process.communicate()}")
        if time.monotonic() > deadline:
            process.kill()
            pytest.fail(f"timed out waiting for {what}")
        time.sleep(0.02)


class Run:
    """The same ``banqi tournament`` command, started again and again in the engines' folder."""

    def __init__(self, tmp_path: Path, fakes: list[Fake]) -> None:
        self.folder = tmp_path / "engines"
        self.fakes = [
            write_fake(self.folder, "alpha", FIRST_READY_HANGS + SLOW_MOVES, legal=True),
            write_fake(self.folder, "beta", SLOW_MOVES, legal=True),
        ]
        fakes += self.fakes
        self.out = tmp_path / "run"
        self.args = [
            *(f"--engine={fake.name}={shlex.join(fake.command)}" for fake in self.fakes),
            *(f"--cwd={fake.name}={fake.folder}" for fake in self.fakes),
            *("--rules", "casual", "--rounds", "2", "--concurrency", "2", "--seed", "3"),
            *("--out", str(self.out), "--key-file", str(tmp_path / "referee.key")),
        ]

    def start(self, *launcher: str) -> subprocess.Popen[str]:
        return subprocess.Popen(
            [*(launcher or (BANQI,)), "tournament", *self.args],
            cwd=self.folder,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            preexec_fn=default_sigint,
        )

    def game_processes(self) -> int:
        return len(self.fakes[0].pids())

    def interrupt(self, process: subprocess.Popen[str]) -> tuple[str, dict[str, bytes]]:
        """Ctrl-C now; check the run stopped cleanly, return its stdout and the records."""
        before = records(self.out)
        sent = time.monotonic()
        process.send_signal(signal.SIGINT)
        try:
            stdout, stderr = process.communicate(timeout=20)
        finally:
            if process.poll() is None:
                process.kill()
        assert time.monotonic() - sent < 10
        assert process.returncode == 130, stdout + stderr
        assert "Traceback" not in stdout + stderr
        lines = [line for line in stderr.splitlines() if not line.startswith("sandbox: ")]
        assert len(lines) == 1, stderr
        assert lines[0].startswith("interrupted")
        after = records(self.out)
        assert set(before) <= set(after)
        for name in after:
            assert read_record(self.out / "games" / name).game_id == Path(name).stem
        assert [p for p in self.out.rglob("*") if p.name.endswith(".tmp")] == []
        assert running_scripts(self.fakes) == []
        return stdout, after


def test_ctrl_c_at_any_moment_stops_cleanly_and_the_run_resumes(
    tmp_path: Path, fakes: list[Fake]
) -> None:
    run = Run(tmp_path, fakes)

    checking = run.start()  # the engines' check before the first game: alpha hangs
    wait_for(checking, lambda: run.game_processes() == 1, "the engine check")
    time.sleep(0.3)
    _, saved = run.interrupt(checking)
    assert saved == {}

    (run.folder / "slow").touch()
    playing = run.start()  # the check (1 alpha), then both games of the first pair
    wait_for(playing, lambda: run.game_processes() == 4, "the first two games")
    time.sleep(0.5)
    stdout, saved = run.interrupt(playing)
    assert saved == {}
    assert "[1/" not in stdout
    (run.folder / "slow").unlink()

    marker = tmp_path / "writing"
    writing = run.start(sys.executable, "-c", SLOW_FIRST_RECORD_WRITE, str(marker))
    wait_for(writing, marker.exists, "a record being written")
    time.sleep(0.2)
    _, saved = run.interrupt(writing)
    being_written = Path(marker.read_text())
    written = being_written.name.split(".json.")[0].removeprefix(".") + ".json"
    assert being_written.parent == run.out / "games"
    # the record being written is finished; so is the other game's if it had ended (a
    # finished game is always saved), which then completes the pair
    assert written in saved and set(saved) <= {"r1-1-2-1.json", "r1-1-2-2.json"}
    withheld = [json.loads(text).get("withheld", False) for text in saved.values()]
    assert withheld == ([True] if len(saved) == 1 else [False, False])

    finished = subprocess.run(
        [BANQI, "tournament", *run.args],
        cwd=run.folder,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert finished.returncode == 0, finished.stderr
    # one record or both may have been saved: "1 game", "2 games"
    assert f"resuming with {counted(len(saved), 'game')} done" in finished.stdout
    played = [line for line in finished.stdout.splitlines() if line.startswith("[")]
    assert len(played) == 4 - len(saved)
    final = records(run.out)
    assert len(final) == 4
    for name in final:
        record = read_record(run.out / "games" / name)
        assert not record.withheld
        assert replay_game_record(record).ok
    assert running_scripts(run.fakes) == []
