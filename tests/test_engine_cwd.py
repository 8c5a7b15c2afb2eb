"""An engine's working directory is checked before any game: a config whose ``cwd`` is not
an existing folder is one short line naming the field and the engine, whatever the
sandbox; a sandboxed start that fails never shows the sandbox's command line."""

import asyncio
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from banqi_cli.main import cli
from protocol.errors import EngineStartError
from referee import engine_start
from referee.engine_spec import EngineSpec
from referee.engine_start import sandboxed_engines, start_engine_process
from referee.sandbox import Isolation
from tournaments.config import ConfigError, load_config

ENGINE = f"{sys.executable} -c 'from banqi_cli.engine import main; main()'"


def write_config(folder: Path, cwd: str) -> Path:
    path = folder / "run.toml"
    path.write_text(
        "\n".join(
            [
                "[[engines]]",
                'name = "a"',
                f'command = "{ENGINE}"',
                "[[engines]]",
                'name = "b"',
                f'command = "{ENGINE}"',
                f'cwd = "{cwd}"',
            ]
        )
        + "\n",
        encoding="utf-8",
    )
    return path


@pytest.mark.parametrize("sandbox", ["auto", "off"])
def test_a_missing_cwd_is_one_short_line_before_any_game(tmp_path: Path, sandbox: str) -> None:
    config = write_config(tmp_path, "/no/such/room")
    out = tmp_path / "out"
    result = CliRunner().invoke(
        cli, ["tournament", str(config), "--out", str(out), "--sandbox", sandbox]
    )
    assert result.exit_code != 0
    last = result.output.strip().splitlines()[-1]
    assert "engines[2].cwd: /no/such/room does not exist (engine 'b')" in last
    assert len(last) < 200
    assert not out.exists()


def test_a_cwd_that_is_a_file_is_not_a_folder(tmp_path: Path) -> None:
    (tmp_path / "room").write_text("", encoding="utf-8")
    with pytest.raises(ConfigError, match=r"engines\[2\]\.cwd: \S+room is not a folder"):
        load_config(write_config(tmp_path, "room"))


def spec(cwd: Path | None) -> EngineSpec:
    return EngineSpec(name="b", command=(sys.executable, "-c", "pass"), cwd=cwd)


@pytest.mark.parametrize("isolation", [Isolation.BWRAP, Isolation.UNSHARE, Isolation.NONE])
def test_a_start_in_a_missing_cwd_names_the_folder_not_a_command_line(
    tmp_path: Path, isolation: Isolation
) -> None:
    start = sandboxed_engines(isolation, [])
    with pytest.raises(EngineStartError) as caught:
        asyncio.run(start(spec(tmp_path / "gone"), None))
    assert str(caught.value).endswith(f"its working directory {tmp_path / 'gone'} does not exist")


@pytest.mark.parametrize("isolation", [Isolation.BWRAP, Isolation.UNSHARE])
def test_a_sandbox_that_cannot_start_says_why_without_its_command_line(
    tmp_path: Path, isolation: Isolation, monkeypatch: pytest.MonkeyPatch
) -> None:
    wrapper = str(tmp_path / "no-such-sandbox")
    monkeypatch.setattr(
        engine_start, "wrap_command", lambda isolation, view, command: [wrapper, *command]
    )
    start = sandboxed_engines(isolation, [])
    with pytest.raises(EngineStartError) as caught:
        asyncio.run(start(spec(tmp_path), None))
    message = str(caught.value)
    assert wrapper not in message
    assert f"in the {isolation.value} sandbox: No such file or directory" in message
    assert sys.executable in message


def test_an_unsandboxed_start_in_a_missing_cwd_is_refused_in_the_same_words(
    tmp_path: Path,
) -> None:
    with pytest.raises(EngineStartError, match=r"its working directory .* does not exist"):
        asyncio.run(start_engine_process(spec(tmp_path / "gone"), None))
