"""Fixtures every test shares."""

from collections.abc import Iterator
from pathlib import Path

import pytest
from referee_fakes import Fake, kill_all

from referee.deals import KEY_ENV

REAL_TIME_FILES = frozenset(
    {
        "test_bench_referee.py",
        "test_cli_perft.py",
        "test_client.py",
        "test_engine_process.py",
        "test_in_process.py",
        "test_line_limit.py",
        "test_record_writes.py",
        "test_referee_cli.py",
        "test_referee_clock.py",
        "test_referee_faults.py",
        "test_referee_records.py",
        "test_tournament_config.py",
        "test_tournament_faults.py",
        "test_tournament_pairs.py",
        "test_tournament_progress.py",
        "test_tournament_resume.py",
    }
)
"""Tests that run engines against real clocks and timeouts: with ``pytest -n``, one worker
runs them all, one after the other, so they never compete with each other for the cores."""


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Put the real-time tests in one ``xdist_group``."""
    for item in items:
        if item.path.name in REAL_TIME_FILES:
            item.add_marker(pytest.mark.xdist_group("real-time"))


@pytest.fixture(autouse=True)
def _private_referee_key(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Every test's referee key lives in its own temporary folder, never in the home folder."""
    monkeypatch.setenv(KEY_ENV, str(tmp_path / "key"))


@pytest.fixture
def fakes() -> Iterator[list[Fake]]:
    """The fakes a test writes; any process of theirs left running is killed afterwards."""
    made: list[Fake] = []
    yield made
    kill_all(pid for fake in made for pid in [*fake.pids(), *fake.children()])
