"""Ctrl-C that no command answers itself, and Ctrl-C while ``banqi`` is still loading:
one line and status 130, as a command's own answer to it."""

import importlib.abc
import importlib.machinery
import sys
from collections.abc import Sequence
from types import ModuleType

import pytest
from click.testing import CliRunner

import banqi_cli.perft_commands
from banqi_cli import entry
from banqi_cli.main import cli


def test_ctrl_c_in_any_command_ends_with_one_line_and_130(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def interrupted(*args: object) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(banqi_cli.perft_commands, "bench_search", interrupted)
    result = CliRunner().invoke(cli, ["bench", "search"])
    assert result.exit_code == 130
    assert result.output == "interrupted\n"


class _CtrlCWhileLoading(importlib.abc.MetaPathFinder):
    """Ctrl-C as the command group's module is being imported."""

    def find_spec(
        self, name: str, path: Sequence[str] | None, target: ModuleType | None = None
    ) -> importlib.machinery.ModuleSpec | None:
        if name == "banqi_cli.main":
            raise KeyboardInterrupt
        return None


def test_ctrl_c_while_banqi_loads_ends_with_one_line_and_130(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.delitem(sys.modules, "banqi_cli.main")
    monkeypatch.setattr(sys, "meta_path", [_CtrlCWhileLoading(), *sys.meta_path])
    with pytest.raises(SystemExit) as ended:
        entry.main()
    assert ended.value.code == 130
    assert capsys.readouterr() == ("", "interrupted\n")
