"""A rule-set file of the wrong kind (a folder, a device, a name not .toml or .json) is one
line saying what it is and what is allowed, from ``--rules`` and from a config's
``rules``."""

from pathlib import Path

import pytest
from click.testing import CliRunner

from banqi_cli.main import cli
from banqi_engine.errors import RulesError
from banqi_engine.rules import PRESETS, resolve_rules
from tournaments.config import ConfigError, config_from_data

CASUAL = 'preset = "casual"\n'


def rules_error(spec: str) -> str:
    with pytest.raises(RulesError) as caught:
        resolve_rules(spec)
    message = str(caught.value)
    assert "\n" not in message
    assert "or a path to a .toml or .json rule-set file" in message
    assert all(name in message for name in PRESETS)
    return message


def test_a_txt_file_is_not_read_as_toml(tmp_path: Path) -> None:
    path = tmp_path / "r.txt"
    path.write_text(CASUAL, encoding="utf-8")
    assert f"rule-set file {path} is a .txt file" in rules_error(str(path))


def test_a_file_with_no_suffix_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "rules"
    path.write_text(CASUAL, encoding="utf-8")
    assert "is a file with no .toml or .json suffix" in rules_error(str(path))


@pytest.mark.parametrize("name", ["", "rules.toml"])
def test_a_folder_is_a_folder(tmp_path: Path, name: str) -> None:
    folder = tmp_path / name
    folder.mkdir(exist_ok=True)
    assert f"rule-set file {folder} is a folder" in rules_error(str(folder))


def test_a_device_is_not_a_regular_file() -> None:
    assert "rule-set file /dev/null is not a regular file" in rules_error("/dev/null")


def test_a_missing_toml_file_does_not_exist(tmp_path: Path) -> None:
    assert "does not exist" in rules_error(str(tmp_path / "nope.toml"))


@pytest.mark.parametrize("suffix", [".toml", ".TOML"])
def test_a_toml_file_is_read(tmp_path: Path, suffix: str) -> None:
    path = tmp_path / f"r{suffix}"
    path.write_text(CASUAL, encoding="utf-8")
    assert resolve_rules(str(path)).no_progress_limit == PRESETS["casual"].no_progress_limit


def test_the_rules_option_says_the_folder_is_a_folder(tmp_path: Path) -> None:
    result = CliRunner().invoke(cli, ["perft", "--rules", str(tmp_path), "--", "start", "1"])
    assert result.exit_code != 0
    line = result.output.strip().splitlines()[-1]
    assert line.startswith("Error: ")
    assert f"rule-set file {tmp_path} is a folder; allowed: olympiad" in line


def test_a_config_rules_file_of_the_wrong_kind_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "r.txt"
    path.write_text(CASUAL, encoding="utf-8")
    engines = [{"name": n, "command": ["x"]} for n in ("a", "b")]
    with pytest.raises(
        ConfigError, match=r"in t\.toml: rules: rule-set file .*r\.txt is a \.txt file"
    ):
        config_from_data({"engines": engines, "rules": str(path)}, "t.toml")
