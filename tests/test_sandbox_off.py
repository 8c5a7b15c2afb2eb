"""Engines played with no sandbox: every command that starts them says so on stderr, even
with ``--quiet``, and every record of the run says ``isolation: "none"`` per player."""

import contextlib
import shlex
from pathlib import Path

import pytest
from click.testing import CliRunner
from referee_fakes import Fake, write_fake

from banqi_cli.gui_command import sandboxed_factory
from banqi_cli.main import cli
from referee.record import read_record
from referee.sandbox import Isolation, SandboxMode, working_isolations
from referee.storage import GAMES_DIR

WARNING = "warning: sandbox off, engines are NOT isolated: they can read what the referee's"


def command_line(name: str, folder: Path, fakes: list[Fake]) -> list[str]:
    """A short run of the command ``name``, with the sandbox off, between fake engines that
    play legal moves (in ``fakes`` too)."""

    def engines(count: int) -> list[str]:
        made = [write_fake(folder, f"e{n}", legal=True) for n in range(count)]
        fakes.extend(made)
        return [f"{fake.name}={shlex.join(fake.command)}" for fake in made]

    common = ["--rules", "casual", "--sandbox", "off", "--key-file", str(folder / "key")]
    common += ["--seed", "2", "--out", str(folder / "run")]
    if name == "match":
        return ["match", *engines(2), "--games", "2", *common]
    if name == "sprt":
        return ["sprt", *engines(2), "--max-games", "2", *common]
    if name == "tune":
        params = folder / "params.toml"
        params.write_text(
            "[safe_factor]\nvalue = 1.2\nmin = 1.0\nmax = 2.0\nc_end = 0.05\nr_end = 0.5\n"
        )
        return ["tune", str(params), "--iterations", "1", "--move-time", "0.02", *common]
    named = [f"--engine={engine}" for engine in engines(3)]
    shape = ["--format", "gauntlet"] if name == "gauntlet" else ["--rounds", "1"]
    return ["tournament", *named[: 3 if name == "gauntlet" else 2], *shape, "--quiet", *common]


@pytest.mark.parametrize("name", ["match", "tournament", "gauntlet", "sprt", "tune"])
def test_every_run_warns_that_engines_are_not_isolated_and_its_records_say_so(
    tmp_path: Path, name: str, fakes: list[Fake]
) -> None:
    result = CliRunner().invoke(cli, command_line(name, tmp_path, fakes))
    assert result.exit_code == 0, result.output
    warnings = [line for line in result.stderr.splitlines() if line.startswith("warning:")]
    assert len(warnings) == 1 and warnings[0].startswith(WARNING), result.stderr
    assert warnings[0].endswith("and outlive their games")
    assert "sandbox: none" not in result.stderr
    games = sorted((tmp_path / "run" / GAMES_DIR).glob("*.json"))
    assert len(games) == {"match": 2, "tournament": 2, "gauntlet": 4, "sprt": 2, "tune": 0}[name]
    for path in games:
        assert [p.isolation for p in read_record(path).players] == [Isolation.NONE] * 2


def test_a_quiet_sandboxed_tournament_says_nothing_of_its_sandbox(
    tmp_path: Path, fakes: list[Fake]
) -> None:
    if working_isolations()[0] is Isolation.NONE:
        pytest.skip("no sandbox works on this machine")
    args = command_line("tournament", tmp_path, fakes)
    args[args.index("off")] = "auto"
    with contextlib.chdir(tmp_path):  # the fakes write their notes in their folder
        result = CliRunner().invoke(cli, args)
    assert result.exit_code == 0, result.output
    assert "sandbox" not in result.stderr and "warning" not in result.stderr


def test_the_gui_warns_that_engines_are_not_isolated(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    sandboxed_factory(SandboxMode.OFF, [tmp_path], [])
    assert capsys.readouterr().err.startswith(WARNING)
