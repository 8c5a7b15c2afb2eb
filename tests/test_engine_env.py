"""An engine's ``env``: a variable no process could be given is a one-line error naming the
engine and the variable, from a config file, the command line or the API, before any game."""

import json
from pathlib import Path

import pytest
from click.testing import CliRunner
from pydantic import ValidationError

from banqi import ArgumentError, Engine
from banqi_cli.main import cli
from referee.engine_spec import EngineSpec

BAD = [
    ('"A=B" = "1"', "env variable 'A=B' of engine 'alpha': a name must be non-empty"),
    ('"" = "1"', "env variable '' of engine 'alpha': a name must be non-empty"),
    ('"A\\u0000B" = "1"', "env variable 'A\\x00B' of engine 'alpha': a name must be non-empty"),
    ('A = "x\\u0000y"', "env variable 'A' of engine 'alpha': its value has a NUL byte"),
]
"""A TOML ``env`` entry, and what the error says of it."""


def config(tmp_path: Path, env: str) -> Path:
    path = tmp_path / "t.toml"
    path.write_text(
        f'[[engines]]\nname = "alpha"\ncommand = "alpha"\nenv = {{ {env} }}\n'
        '[[engines]]\nname = "beta"\ncommand = "beta"\n'
    )
    return path


@pytest.mark.parametrize(("env", "words"), BAD)
def test_a_tournament_config_with_a_bad_env_entry_is_one_line(
    tmp_path: Path, env: str, words: str
) -> None:
    out, key = str(tmp_path / "run"), str(tmp_path / "k")
    args = ["tournament", str(config(tmp_path, env)), "--out", out, "--key-file", key]
    result = CliRunner().invoke(cli, args)
    assert result.exit_code == 1  # the CLI's status for input it cannot use (2: usage)
    [line] = result.stderr.splitlines()
    assert line.startswith(f"Error: bad tournament config in {tmp_path / 't.toml'}: ")
    assert f": engines.0.env: {words}" in line
    assert not (tmp_path / "run").exists()


def test_the_gui_refuses_a_config_with_a_bad_env_entry(tmp_path: Path) -> None:
    args = ["gui", "--config", str(config(tmp_path, BAD[0][0])), "--no-browser"]
    result = CliRunner().invoke(cli, [*args, "--out", str(tmp_path / "gui")])
    assert result.exit_code == 1
    assert result.stderr.startswith("Error: bad tournament config")
    assert BAD[0][1] in result.stderr and len(result.stderr.splitlines()) == 1


@pytest.mark.parametrize(
    "env", [{"A=B": "1"}, {"": "1"}, {"A\0": "1"}, {"A": "\0"}], ids=["=", "empty", "nul", "value"]
)
def test_the_api_and_the_model_refuse_a_bad_env_entry(env: dict[str, str]) -> None:
    with pytest.raises(ArgumentError, match="env variable"):
        Engine.popen(["alpha"], name="alpha", env=env)
    with pytest.raises(ValidationError, match="of engine 'alpha'"):
        EngineSpec.model_validate_json(
            json.dumps({"name": "alpha", "command": ["alpha"], "env": env})
        )


def test_a_plain_env_is_kept() -> None:
    env = {"ALPHA_HASH": "64", "EMPTY": "", "PATH_LIKE": "a=b:c"}
    assert EngineSpec(name="alpha", command=("alpha",), env=env).env == env
