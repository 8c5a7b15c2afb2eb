"""Runs that grow: a resumed tournament may gain rounds (and only rounds); the games it had
keep their ids, deals and records, and only the new games are played."""

import asyncio
import shlex
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner
from in_process_engines import engine_spec, in_process
from referee_fakes import TEST_KEY, TEST_MACS
from test_tournament_progress import INSTANT

from banqi_cli.tournament_command import tournament_command
from banqi_engine.rules import PRESETS
from referee.game_setup import deal_secret_of
from tournaments.config import ConfigError, TournamentConfig
from tournaments.play import prepare
from tournaments.runner import RunEvents, RunOptions, run_games
from tournaments.schedule import schedule
from tournaments.state import STATE_FILE, TournamentState, open_run, start_run_folder

CASUAL = PRESETS["casual"]


def config(rounds: int, **changes: object) -> TournamentConfig:
    engines = [
        engine_spec("random", "--level", "0", "--seed", "1", "--rules", "casual"),
        engine_spec("greedy", "--level", "1", "--seed", "2", "--rules", "casual"),
    ]
    return TournamentConfig(engines=engines, rounds=rounds, rules=CASUAL, seed=3, **changes)


def saved_state(out: Path) -> TournamentState:
    return TournamentState.model_validate_json((out / STATE_FILE).read_text())


def started(out: Path, rounds: int) -> TournamentState:
    """A new run of ``rounds`` rounds in ``out``, its state saved."""
    out.mkdir(exist_ok=True)
    state = open_run(out, config(rounds), 9, TEST_MACS)
    start_run_folder(out, state, TEST_MACS)
    return state


def test_more_rounds_are_accepted_and_saved(tmp_path: Path) -> None:
    first = started(tmp_path, 2)
    grown = open_run(tmp_path, config(3, concurrency=2), 9, TEST_MACS)
    assert (grown.config.rounds, grown.config.concurrency) == (3, 2)
    assert (grown.seed, grown.created_at) == (first.seed, first.created_at)
    assert saved_state(tmp_path).config.rounds == 2  # opening writes nothing

    start_run_folder(tmp_path, grown, TEST_MACS)
    assert saved_state(tmp_path).model_copy(update={"mac": None}) == grown
    text = (tmp_path / STATE_FILE).read_text()
    start_run_folder(tmp_path, open_run(tmp_path, config(3), 9, TEST_MACS), TEST_MACS)
    assert (tmp_path / STATE_FILE).read_text() == text


def test_fewer_rounds_are_refused(tmp_path: Path) -> None:
    started(tmp_path, 2)
    with pytest.raises(ConfigError) as error:
        open_run(tmp_path, config(1), 9, TEST_MACS)
    assert "rounds: was 2, now 1" in str(error.value)
    assert "can gain rounds" in str(error.value)


def test_more_rounds_with_another_change_are_refused(tmp_path: Path) -> None:
    started(tmp_path, 2)
    text = (tmp_path / STATE_FILE).read_text()
    with pytest.raises(ConfigError) as error:
        open_run(tmp_path, config(4, max_failures=5), 9, TEST_MACS)
    message = str(error.value)
    assert "max_failures: was 3, now 5" in message
    assert "rounds" not in message.split("Differences:")[1]
    assert (tmp_path / STATE_FILE).read_text() == text


def test_the_rounds_a_run_had_keep_their_games_and_deals() -> None:
    old, new = list(schedule(config(2), 7)), list(schedule(config(3), 7))
    assert new[: len(old)] == old
    assert {g.setup.game_id[:3] for g in new[len(old) :]} == {"r3-"}
    secrets = {deal_secret_of(g.setup, TEST_KEY) for g in new}
    assert len(secrets) == 3


def play(out: Path, rounds: int) -> list[str]:
    """Open the run with ``rounds`` rounds, play what it lacks; the ids of the games played."""
    out.mkdir(exist_ok=True)
    state, games = prepare(config(rounds), out, TEST_MACS)
    start_run_folder(out, state, TEST_MACS)
    done: list[str] = []
    events = RunEvents(lambda record, standings: done.append(record.game_id), print)
    options = RunOptions(key=TEST_KEY, out=out, events=events, start_engine=in_process())
    asyncio.run(run_games(games, state.config, options))
    return sorted(done)


def test_a_finished_run_plays_only_its_new_rounds(tmp_path: Path) -> None:
    out = tmp_path / "run"
    assert play(out, 1) == ["r1-1-2-1", "r1-1-2-2"]
    before = {path.name: path.read_bytes() for path in (out / "games").iterdir()}

    assert play(out, 2) == ["r2-1-2-1", "r2-1-2-2"]
    after = {path.name: path.read_bytes() for path in (out / "games").iterdir()}
    assert {name: after[name] for name in before} == before
    assert len(after) == 2 * len(before)
    assert saved_state(out).config.rounds == 2
    assert "| random | 4 |" in (out / "report.md").read_text()
    assert play(out, 2) == []


def test_the_command_grows_a_run(tmp_path: Path) -> None:
    program = tmp_path / "instant.py"
    program.write_text(INSTANT)
    engine = shlex.join([sys.executable, str(program)])
    out = tmp_path / "run"
    args = [
        *("--engine", f"opener={engine} flip", "--engine", f"resigner={engine} resign"),
        *("--seed", "5", "--sandbox", "off", "--out", str(out)),
        *("--key-file", str(tmp_path / "referee.key")),
    ]
    runner = CliRunner()
    first = runner.invoke(tournament_command, [*args, "--rounds", "1"])
    assert first.exit_code == 0, first.output
    grown = runner.invoke(tournament_command, [*args, "--rounds", "3"])
    assert grown.exit_code == 0, grown.output
    assert "6 games (3 rounds)" in grown.output
    assert "resuming with 2 games done" in grown.output
    assert "[3/6]" in grown.output and "[6/6]" in grown.output
    assert "[2/6]" not in grown.output
    assert len(list((out / "games").glob("*.json"))) == 6
    shrunk = runner.invoke(tournament_command, [*args, "--rounds", "2"])
    assert shrunk.exit_code == 1
    assert "rounds: was 3, now 2" in shrunk.output
