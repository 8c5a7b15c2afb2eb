"""Test helpers for runs in other processes: this environment's scripts, and waiting for
what the processes do."""

import os
import shutil
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest


def script(name: str) -> str:
    """An installed console script of this environment."""
    beside = Path(sys.executable).with_name(name)
    found = str(beside) if beside.exists() else shutil.which(name)
    if found is None:
        pytest.fail(f"the {name} script is not installed")
    return found


def wait_for(what: str, condition: Callable[[], object], timeout: float = 60.0) -> None:
    """Return once ``condition()`` holds; fail the test after ``timeout`` seconds."""
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            pytest.fail(f"timed out after {timeout:g}s waiting for {what}")
        time.sleep(0.02)


def run_banqi(
    args: list[str], cwd: Path, home: Path, timeout: float = 120.0
) -> "subprocess.CompletedProcess[str]":
    """``banqi ARGS`` run in ``cwd`` as a user whose home is ``home`` (its referee key is
    made there), its output kept."""
    env = {**os.environ, "HOME": str(home)}
    for name in ("XDG_CONFIG_HOME", "BANQI_REFEREE_KEY"):
        env.pop(name, None)
    return subprocess.run(
        [sys.executable, "-c", "from banqi_cli.main import cli; cli()", *args],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )
