"""Fixtures every test shares."""

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from referee_fakes import Fake, kill_all

from referee.deals import KEY_ENV

CLOCK_FREE_FILES = frozenset(
    {
        "test_cli_ctrl_c.py",
        "test_cli_defaults.py",
        "test_cli_help.py",
        "test_cli_inputs.py",
        "test_cli_positions.py",
        "test_cluster_records.py",
        "test_core_differential.py",
        "test_core_setup.py",
        "test_elo.py",
        "test_endgame.py",
        "test_engine_env.py",
        "test_engine_any_referee.py",
        "test_engine_build.py",
        "test_engine_loop.py",
        "test_face_down_moves.py",
        "test_from_records.py",
        "test_movegen_differential.py",
        "test_perft_fast.py",
        "test_perft_reference.py",
        "test_position_strings.py",
        "test_protocol_messages.py",
        "test_ratings.py",
        "test_record_macs.py",
        "test_reports.py",
        "test_rules_handmade.py",
        "test_rules_model.py",
        "test_search.py",
        "test_smoke_perft.py",
        "test_sprt.py",
        "test_standings.py",
        "test_transcript.py",
    }
)
"""Tests that start no engine and wait on no clock. Every other test file (a new one too,
until it is listed here) may play engines against real clocks and timeouts: with
``pytest -n``, one worker runs all of those one after the other, so they never compete
with each other for the cores."""


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Put every test outside ``CLOCK_FREE_FILES`` in one ``xdist_group``."""
    for item in items:
        if item.path.name not in CLOCK_FREE_FILES:
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


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    """A headless Chromium for a module's browser tests (see ``browser_page``)."""
    from browser_page import open_browser

    yield from open_browser()


@pytest.fixture
def server(tmp_path: Path) -> Iterator[Any]:
    """The board page's app served on a free port for one test (see ``browser_page``)."""
    from browser_page import Server

    made = Server(tmp_path)
    yield made
    made.stop()
