"""Where a run writes: its folder, the referee key's file, and what the README and
``.gitignore`` say about them."""

import re
import shlex
import stat
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest
from click.testing import CliRunner
from referee_fakes import TEST_MACS

from banqi_cli.main import cli
from banqi_common.write_errors import WriteError
from referee.deals import KEY_ENV, KeyFileError, load_referee_key
from referee.engine_spec import EngineSpec
from tournaments.config import TournamentConfig, builtin_engine_command
from tournaments.run_folder import LOCK_FILE, LOCK_WAIT_SECONDS, RunLockedError, locked_run
from tournaments.run_kinds import KINDS, check_new_run_folder
from tournaments.state import (
    STATE_FILE,
    RunFolderError,
    open_run,
    start_run_folder,
)

ROOT = Path(__file__).resolve().parent.parent
CONFIG = TournamentConfig(
    engines=(EngineSpec(name="a", command=("a",)), EngineSpec(name="b", command=("b",)))
)


def tournament(*args: str) -> tuple[int, str]:
    engine = shlex.join(builtin_engine_command("--level", "0"))
    engines = ["--engine", f"a={engine}", "--engine", f"b={engine}"]
    result = CliRunner().invoke(cli, ["tournament", *engines, "--sandbox", "off", *args])
    assert "Traceback" not in result.output
    return result.exit_code, result.output


def test_a_run_folder_that_cannot_be_made_is_named(tmp_path: Path) -> None:
    afile = tmp_path / "afile"
    afile.write_text("")
    code, output = tournament("--out", str(afile / "run"))
    assert code == 1
    assert output == f"Error: cannot create the run folder {afile / 'run'}: not a directory\n"


def test_a_run_folder_that_cannot_be_locked_is_named(tmp_path: Path) -> None:
    (tmp_path / "run" / "tournament.lock").mkdir(parents=True)
    with pytest.raises(WriteError) as refused, locked_run(tmp_path / "run"):
        pass
    assert str(refused.value) == (
        f"cannot open the lock file tournament.lock in {tmp_path / 'run'}: is a directory"
    )


HOLD_LOCK = """\
import fcntl, sys, time
held = open(sys.argv[1], "a")
fcntl.flock(held, fcntl.LOCK_EX)
print("held", flush=True)
time.sleep(float(sys.argv[2]))
"""


def hold_lock(folder: Path, seconds: float) -> "subprocess.Popen[str]":
    """A process that holds the run folder's lock for ``seconds``, once it says so."""
    folder.mkdir(parents=True, exist_ok=True)
    holder = subprocess.Popen(
        [sys.executable, "-c", HOLD_LOCK, str(folder / LOCK_FILE), str(seconds)],
        stdout=subprocess.PIPE,
        text=True,
    )
    assert holder.stdout is not None and holder.stdout.readline() == "held\n"
    return holder


def test_a_lock_let_go_within_the_wait_is_taken(tmp_path: Path) -> None:
    """As by an engine process a killed run was starting: it shares the lock until it
    execs, a moment after the run's end."""
    holder = hold_lock(tmp_path / "run", LOCK_WAIT_SECONDS / 4)
    with locked_run(tmp_path / "run"):
        assert holder.wait(timeout=10) == 0  # taken once the holder let go


def test_a_lock_held_past_the_wait_is_refused(tmp_path: Path) -> None:
    holder = hold_lock(tmp_path / "run", 30)
    try:
        with (
            pytest.raises(RunLockedError, match="another run is using"),
            locked_run(tmp_path / "run"),
        ):
            pass
        assert holder.poll() is None
    finally:
        holder.kill()
        holder.wait()


@pytest.mark.parametrize("command", ["tournament", "match"])
def test_a_key_file_in_a_missing_folder_is_refused_and_no_folder_made(
    tmp_path: Path, command: str
) -> None:
    key = tmp_path / "no" / "such" / "referee.key"
    engines = ["--engine", "a=a", "--engine", "b=b"] if command == "tournament" else ["a", "b"]
    out = tmp_path / "run"
    args = [command, *engines, "--key-file", str(key), "--out", str(out)]
    result = CliRunner().invoke(cli, args)
    assert result.exit_code == 1
    assert result.output == (
        f"Error: cannot create referee key file {key}: its folder {key.parent} does not exist; "
        "create the folder first or name a key file in one that does\n"
    )
    assert sorted(p.name for p in tmp_path.iterdir()) == []


def test_a_key_variable_in_a_missing_folder_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(KEY_ENV, str(tmp_path / "no" / "referee.key"))
    with pytest.raises(KeyFileError, match=r"its folder .* does not exist"):
        load_referee_key(None)
    assert not (tmp_path / "no").exists()


def test_the_default_key_place_is_made_with_its_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv(KEY_ENV)
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    key = load_referee_key(None)
    path = tmp_path / "config" / "banqi" / "referee.key"
    assert path.read_bytes() == key
    assert len(key) == 32
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert load_referee_key(None) == key


def test_a_given_key_file_in_an_existing_folder_is_made(tmp_path: Path) -> None:
    key = load_referee_key(tmp_path / "referee.key")
    assert (tmp_path / "referee.key").read_bytes() == key


def match_folder(folder: Path) -> Path:
    (folder / "games").mkdir(parents=True)
    (folder / "games" / "g0001.json").write_text("{}")
    (folder / "match.json").write_text("{}")
    return folder


def test_a_tournament_refuses_a_matchs_folder(tmp_path: Path) -> None:
    out = match_folder(tmp_path / "m")
    code, output = tournament("--out", str(out))
    assert code == 1
    assert output.splitlines()[-1] == (
        f"Error: {out} holds a match (match.json), not a tournament; choose another --out"
    )
    assert not (out / STATE_FILE).exists()
    assert sorted(p.name for p in (out / "games").iterdir()) == ["g0001.json"]


@pytest.mark.parametrize(
    ("files", "named"),
    [
        (["notes.txt"], "(notes.txt)"),
        (["a", "b", "c", "d"], "(a, b, c, ...)"),
    ],
)
def test_a_tournament_refuses_a_folder_that_is_not_a_run_folder(
    tmp_path: Path, files: list[str], named: str
) -> None:
    out = tmp_path / "somewhere"
    out.mkdir()
    for name in files:
        (out / name).write_text("mine")
    with pytest.raises(RunFolderError) as refused:
        open_run(out, CONFIG, 1, TEST_MACS)
    assert str(refused.value) == (
        f"{out} is not a tournament's run folder (it has no {STATE_FILE}) and is not empty "
        f"{named}; a tournament starts in a new or empty folder: choose another --out"
    )
    assert not (out / STATE_FILE).exists()


def test_a_tournament_starts_in_a_new_or_empty_folder_and_reopens_its_own(
    tmp_path: Path,
) -> None:
    for out in (tmp_path / "new", tmp_path / "empty"):
        if out.name == "empty":
            (out / "games").mkdir(parents=True)
            (out / "games" / ".g.json.x1.tmp").write_text("half")
        with locked_run(out):
            state = open_run(out, CONFIG, 7, TEST_MACS)
            assert not (out / STATE_FILE).exists()
            start_run_folder(out, state, TEST_MACS)
            assert open_run(out, CONFIG, 8, TEST_MACS) == state
        assert state.seed == 7
        assert (out / STATE_FILE).is_file()


def test_run_folders_are_ignored_by_git() -> None:
    ignored = (ROOT / ".gitignore").read_text().splitlines()
    assert "runs/" in ignored
    assert "banqi-runs/" in ignored


def test_the_readme_first_screen_says_which_python_and_to_make_a_venv() -> None:
    first = (ROOT / "README.md").read_text().split("\n## ")[0]
    needed = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["requires-python"]
    version = re.fullmatch(r">=(\d+\.\d+)", needed)
    assert version is not None
    assert f"Python {version.group(1)} or newer" in first
    assert "python3 -m venv .venv && . .venv/bin/activate" in first
    assert "pip install -e . && banqi tournament " in first
    assert "pip install -e '.[test]' && pytest " in first
    assert ".venv/" in (ROOT / ".gitignore").read_text().splitlines()


@pytest.mark.parametrize("held", sorted(KINDS))
@pytest.mark.parametrize("wanted", sorted(KINDS))
def test_a_new_run_refuses_a_folder_of_another_kind(tmp_path: Path, held: str, wanted: str) -> None:
    """Tournament, match and SPRT folders each refuse the others (a match once took an SPRT's)."""
    (tmp_path / held).write_text("{}")
    if held == wanted:
        check_new_run_folder(tmp_path, wanted)
        return
    with pytest.raises(
        RunFolderError, match=rf"holds {KINDS[held]} \({held}\), not {KINDS[wanted]}"
    ):
        check_new_run_folder(tmp_path, wanted)
