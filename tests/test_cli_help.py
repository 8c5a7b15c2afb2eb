"""Every command's ``--help`` ends with examples that use its own options; the engine
answers ``-h`` and ``--version``; the API has ``__version__``."""

import shlex
from importlib.metadata import version

import click
import pytest
from click.testing import CliRunner

import banqi
from banqi_cli.engine import engine_command
from banqi_cli.examples import EXAMPLES
from banqi_cli.main import cli
from protocol.engine_loop import ENGINE_VERSION


def commands(group: click.Group, prefix: str = "") -> list[tuple[str, click.Command]]:
    found = []
    for name, command in group.commands.items():
        found.append((f"{prefix}{name}", command))
        if isinstance(command, click.Group):
            found += commands(command, f"{prefix}{name} ")
    return found


ALL = commands(cli)


def test_every_command_has_examples_and_no_example_is_left_over() -> None:
    assert {name for name, _ in ALL} == set(EXAMPLES)


@pytest.mark.parametrize(("name", "command"), ALL, ids=[name for name, _ in ALL])
def test_the_examples_are_in_the_help_and_use_the_commands_own_options(
    name: str, command: click.Command
) -> None:
    result = CliRunner().invoke(cli, [*name.split(), "--help"])
    assert result.exit_code == 0
    assert "Examples:" in result.output
    for line in EXAMPLES[name]:
        words = shlex.split(line.split("  #")[0])
        program = "banqi-engine" if name == "engine" else f"banqi {name}"
        assert " ".join(words).startswith(program), line
        assert line.split("  #")[0].strip() in result.output
        used: click.Command = engine_command if name == "engine" else cli
        words = words[1:]
        while isinstance(used, click.Group):  # a group's example runs one of its commands
            used = used.commands[words.pop(0)]
        options = {opt for param in used.params for opt in param.opts + param.secondary_opts}
        for word in words:
            if word == "--":
                break
            if word.startswith("-"):
                assert word.split("=")[0] in options, f"{name}: {word} is not an option"


def test_the_engine_answers_help_and_version() -> None:
    helped = CliRunner().invoke(engine_command, ["-h"])
    assert helped.exit_code == 0 and "Examples:" in helped.output
    told = CliRunner().invoke(engine_command, ["--version"], prog_name="banqi-engine")
    assert told.exit_code == 0
    assert told.output.strip() == f"banqi-engine, version {ENGINE_VERSION}"


def test_the_api_has_its_version() -> None:
    assert banqi.__version__ == version("banqi")
