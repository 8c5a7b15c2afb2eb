"""Test helpers for runs in other processes: this environment's scripts, and waiting for
what the processes do."""

import shutil
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
