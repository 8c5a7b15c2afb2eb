"""Input that is not a number of anything: ``nan`` and infinities, refused everywhere.

Every float option of every command, the models a config file fills, and a text
record's ``time`` line: a clear one-line error, never a traceback or a hang.
"""

import subprocess
import sys
import tomllib
from collections.abc import Iterator
from pathlib import Path

import click
import pytest
from click.testing import CliRunner
from pydantic import ValidationError

from banqi_cli.main import cli
from banqi_cli.param_types import FiniteFloatRange
from referee.game_setup import GameSetup
from referee.text_record import TextRecordError, parse_text_record
from referee.timecontrol import TimeControl
from tournaments.config import ConfigError, config_from_data

ENTRY = "from banqi_cli.entry import main; main()"
NOT_FINITE = ("nan", "inf", "-inf", "NaN", "Infinity")

REQUIRED_ARGUMENTS = {
    "match": ["engine-a", "engine-b"],
    "bench strength": ["--level", "1", "--level", "0"],
}
"""What a command needs besides the option under test to get as far as playing."""


def commands(group: click.Group = cli, prefix: str = "") -> Iterator[tuple[str, click.Command]]:
    for name, command in group.commands.items():
        path = f"{prefix}{name}"
        if isinstance(command, click.Group):
            yield from commands(command, f"{path} ")
        else:
            yield path, command


FLOAT_OPTIONS = [
    (path, option.opts[0])
    for path, command in commands()
    for option in command.params
    if isinstance(option, click.Option) and isinstance(option.type, click.FloatRange)
]


def test_the_float_options_are_found() -> None:
    assert {
        ("match", "--time"),
        ("match", "--stall-timeout"),
        ("tournament", "--increment"),
        ("tournament", "--move-time"),
        ("bench search", "--seconds"),
        ("bench perft", "--seconds"),
        ("bench strength", "--seconds"),
    } <= set(FLOAT_OPTIONS)


@pytest.mark.parametrize(("path", "option"), FLOAT_OPTIONS)
def test_every_float_option_refuses_nan_and_infinities(path: str, option: str) -> None:
    command = dict(commands())[path]
    kind = next(p.type for p in command.params if p.opts[0] == option)
    assert isinstance(kind, FiniteFloatRange)
    for value in NOT_FINITE:
        args = [*path.split(), option, value, *REQUIRED_ARGUMENTS.get(path, [])]
        result = CliRunner().invoke(cli, args)
        assert result.exit_code == 2, (args, result.output)
        assert "Traceback" not in result.output
        assert f"Invalid value for '{option}': '{value}' is not a finite number" in result.output


@pytest.mark.parametrize("option", ["--margin", "--games"])
def test_integer_options_refuse_nan(option: str) -> None:
    result = CliRunner().invoke(cli, ["match", "a", "b", option, "nan"])
    assert result.exit_code == 2
    assert f"Invalid value for '{option}': 'nan' is not a valid integer" in result.output


@pytest.mark.parametrize("which", ["search", "perft"])
def test_a_benchmark_given_nan_seconds_stops_at_once(which: str) -> None:
    done = subprocess.run(
        [sys.executable, "-c", ENTRY, "bench", which, "--seconds", "nan"],
        capture_output=True,
        text=True,
        timeout=30,
        check=False,
    )
    assert done.returncode == 2
    assert done.stdout == ""
    assert done.stderr.splitlines()[-1] == (
        "Error: Invalid value for '--seconds': 'nan' is not a finite number"
    )


def test_a_tournament_config_file_with_nan_or_inf_names_each_field() -> None:
    data = tomllib.loads(
        "stall_timeout = nan\n"
        "[time]\ntime = nan\nincrement = inf\nmove_time = -inf\n"
        '[[engines]]\nname = "a"\ncommand = "a"\n[[engines]]\nname = "b"\ncommand = "b"\n'
    )
    with pytest.raises(ConfigError) as refused:
        config_from_data(data, "t.toml")
    assert str(refused.value) == (
        "bad tournament config in t.toml: time.time: Input should be a finite number; "
        "time.increment: Input should be a finite number; "
        "time.move_time: Input should be a finite number; "
        "stall_timeout: Input should be a finite number"
    )


@pytest.mark.parametrize("value", ["NaN", "Infinity", "-Infinity"])
def test_the_models_refuse_nan_and_infinities_from_json(value: str) -> None:
    for field in ("time", "increment", "move_time"):
        with pytest.raises(ValidationError, match="finite number"):
            TimeControl.model_validate_json(f'{{"{field}": {value}}}')
    with pytest.raises(ValidationError, match="finite number"):
        GameSetup.model_validate_json(f'{{"stall_timeout": {value}}}')


def text_record(time_line: str) -> str:
    lines = ["12:56pm Dec 26, 2019", "a vs b", "1 2 2 2 2 2 5 1 2 2 2 2 2 5"]
    lines += ["X X X X"] * 8 + ["first 1", time_line, "1. a1(K) b2(k)"]
    return "".join(f"* {line}\n" for line in lines)


def test_a_text_record_time_must_be_a_finite_number() -> None:
    assert parse_text_record(text_record("time 60")).time_seconds == 60
    for value in ("nan", "inf", "soon"):
        refused = f"line 13: 'time' must be seconds, got '{value}'"
        with pytest.raises(TextRecordError, match=refused):
            parse_text_record(text_record(f"time {value}"))


def test_the_replay_command_names_a_nan_time_line(tmp_path: Path) -> None:
    path = tmp_path / "game.txt"
    path.write_text(text_record("time nan"))
    result = CliRunner().invoke(cli, ["replay", str(path)])
    assert result.exit_code == 2  # unreadable
    assert result.output == ("Error: text record line 13: 'time' must be seconds, got 'nan'\n")
