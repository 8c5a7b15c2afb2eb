"""Fixtures every test shares."""

from collections.abc import Iterator
from pathlib import Path

import pytest
from referee_fakes import Fake, kill_all

from referee.deals import KEY_ENV


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
