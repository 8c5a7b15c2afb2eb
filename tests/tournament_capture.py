"""Running ``banqi tournament`` with its job replaced: the config the command built,
captured, and standings of no games."""

from pathlib import Path

import pytest
from click.testing import CliRunner

import banqi_cli.tournament_command as command_module
from tournaments.config import TournamentConfig
from tournaments.results import Standings
from tournaments.standings import compute_standings
from tournaments.tournament_job import TournamentEvents, TournamentJob


class Captured:
    """Stands in for the tournament job: records the config the command built."""

    def __init__(self) -> None:
        self.configs: list[TournamentConfig] = []

    def __call__(self, job: TournamentJob, events: TournamentEvents) -> Standings:
        self.configs.append(job.config)
        return compute_standings([], [e.name for e in job.config.engines])


def capture(monkeypatch: pytest.MonkeyPatch) -> Captured:
    """The tournament command's job replaced by a Captured."""
    play = Captured()
    monkeypatch.setattr(command_module, "run_tournament_job", play)
    return play


def invoke(tmp_path: Path, *args: str) -> tuple[int, str]:
    """Run the command with a run folder and a key file in ``tmp_path``; its exit code and
    output (never a traceback)."""
    result = CliRunner().invoke(
        command_module.tournament_command,
        [*args, "--out", str(tmp_path / "run"), "--key-file", str(tmp_path / "referee.key")],
    )
    assert "Traceback" not in result.output
    return result.exit_code, result.output
