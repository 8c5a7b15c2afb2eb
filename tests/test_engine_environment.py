"""An engine's environment holds only a few of the referee's variables, what it is given
(``--env``, ``--pass-env``, a config's ``env`` and ``pass_env``) and ``HOME`` in its room:
a secret planted in the referee's environment reaches no engine, under every isolation,
on a cluster's worker and behind ``banqi connect``, nor any process the engine can see.

The spy is a fake (``referee_fakes``) that tells, through its answer to ``name`` (which
the record keeps), where it found the secret and the names of its variables.
"""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from processes import run_banqi, script, wait_for
from referee_fakes import Fake, attacker, play, write_fake

from referee.engine_env import BASE_VARIABLES
from referee.engine_spec import EngineSpec
from referee.engine_start import sandboxed_engines
from referee.record import GameRecord
from referee.sandbox import Isolation, working_isolations

SECRET_NAME = "AWS_SECRET_ACCESS_KEY"
SECRET = "planted-4f1c9e"

SPY = r"""
SECRET = __SECRET__
places = set()
if any(SECRET in value for value in os.environ.values()):
    places.add("environ")
for entry in os.listdir("/proc"):
    if entry.isdigit() and int(entry) != os.getpid() and not SANDBOX_OFF:
        try:
            with open(f"/proc/{entry}/environ", "rb") as handle:
                if SECRET.encode() in handle.read():
                    places.add("pid-1" if entry == "1" else "other-process")
        except OSError:
            pass
REPORT = ",".join(sorted(places)) or "nowhere"
REPORT += ";" + ",".join(sorted(os.environ)) + ";" + os.environ.get("GIVEN", "-")
REPORT += ";" + os.environ.get("PASSED", "-") + ";" + os.environ.get("HOME", "-")
"""


def spy(folder: Path, *, sandboxed: bool) -> Fake:
    code = SPY.replace("__SECRET__", repr(SECRET))
    code = code.replace("SANDBOX_OFF", "False" if sandboxed else "True")
    return attacker(folder, "spy", code)


def seen(records: list[GameRecord]) -> list[list[str]]:
    """The spy's reports: where it found the secret, its variables' names, GIVEN, PASSED
    and HOME."""
    found = [
        (player.engine_name or "").removeprefix("report:").split(";")
        for record in records
        for player in record.players
        if player.name == "spy"
    ]
    assert found and all(len(report) == 5 for report in found), found
    return found


def assert_clean(records: list[GameRecord], home: Path | None = None) -> None:
    """The spy found the secret nowhere, had only the variables it may have, and had
    GIVEN and PASSED as given (and ``home`` as HOME, when given)."""
    for places, names, given, passed, its_home in seen(records):
        assert places == "nowhere"
        # bubblewrap sets PWD to the folder it starts the engine in
        extra = set(names.split(",")) - {*BASE_VARIABLES, "HOME", "PWD", "GIVEN", "PASSED"}
        assert not {name for name in extra if not name.startswith("LC_")}, names
        assert (given, passed) == ("from-config", "passed-on")
        if home is not None:
            assert its_home == str(home)


def records_in(out: Path) -> list[GameRecord]:
    paths = sorted((out / "games").glob("*.json"))
    return [GameRecord.model_validate_json(path.read_text()) for path in paths]


@pytest.fixture
def planted(monkeypatch: pytest.MonkeyPatch) -> None:
    """The referee's environment holds a secret, a variable to pass, and one more."""
    monkeypatch.setenv(SECRET_NAME, SECRET)
    monkeypatch.setenv("PASSED", "passed-on")
    monkeypatch.setenv("SHELL_ONLY", SECRET)


@pytest.mark.parametrize("isolation", [Isolation.NONE, Isolation.BWRAP, Isolation.UNSHARE])
@pytest.mark.usefixtures("planted")
def test_no_engine_sees_the_referees_environment(tmp_path: Path, isolation: Isolation) -> None:
    if isolation not in (*working_isolations(), Isolation.NONE):
        pytest.skip(f"{isolation.value} does not work on this machine")
    folder = tmp_path / "e"
    the_spy = spy(folder, sandboxed=isolation is not Isolation.NONE)
    other = write_fake(folder, "other", legal=True)
    given = {"env": {"GIVEN": "from-config"}, "pass_env": ("PASSED", "NOT_SET_ANYWHERE")}
    specs = (
        EngineSpec(name="spy", command=the_spy.command, cwd=folder, **given),
        EngineSpec(name="other", command=other.command, cwd=folder),
    )
    records = play(tmp_path / "run", specs, start_engine=sandboxed_engines(isolation, []))
    # unsandboxed, its room is its working directory; sandboxed, it is /tmp/room or its cwd
    assert_clean(records, folder if isolation is Isolation.NONE else None)


def test_a_variable_not_set_is_left_out_and_the_key_path_is_never_passed() -> None:
    from referee.engine_env import engine_environment

    spec = EngineSpec(name="a", command=("a",), pass_env=("NOT_SET_ANYWHERE",))
    assert "NOT_SET_ANYWHERE" not in engine_environment(spec, Path("/room"))
    with pytest.raises(ValueError, match="are never passed to an engine"):
        EngineSpec(name="a", command=("a",), pass_env=("BANQI_REFEREE_KEY",))


def match_args(folder: Path, out: Path) -> list[str]:
    engines = [f"{name}={sys.executable} {name}.py" for name in ("spy", "other")]
    options = ["--env", "GIVEN=from-config", "--pass-env", "PASSED", "--rules", "casual"]
    return ["match", *engines, "--games", "2", "--out", str(out), *options]


@pytest.mark.skipif(working_isolations()[0] is Isolation.NONE, reason="no sandbox works here")
@pytest.mark.parametrize("where", ["here", "cluster"])
@pytest.mark.usefixtures("planted")
def test_banqi_match_here_and_on_a_cluster_worker(tmp_path: Path, where: str) -> None:
    folder, home = tmp_path / "e", tmp_path / "home"
    home.mkdir()
    spy(folder, sandboxed=True)
    write_fake(folder, "other", legal=True)
    out = tmp_path / "run"
    args = match_args(folder, out) + (["--cluster", "local:1"] if where == "cluster" else [])
    done = run_banqi(args, folder, home)
    assert done.returncode == 0, done.stderr
    records = records_in(out)
    assert len(records) == 2
    assert_clean(records)


def test_the_command_line_checks_env_and_pass_env(tmp_path: Path) -> None:
    for option, value, words in (
        ("--env", "NOVALUE", "expected NAME=VALUE"),
        ("--env", "=x", "a name must be non-empty"),
        ("--pass-env", "A=B", "a name must be non-empty, with no ="),
        ("--pass-env", "BANQI_REFEREE_KEY", "never passed to an engine"),
    ):
        done = run_banqi(["match", "a", "b", option, value], tmp_path, tmp_path)
        assert done.returncode == 2 and words in done.stderr, done.stderr


BANQI = (sys.executable, "-c", "from banqi_cli.main import cli; cli()")
RELAY_OPTIONS = ("--env", "GIVEN=from-config", "--pass-env", "PASSED", "--")


@pytest.mark.usefixtures("planted")
def test_an_engine_behind_banqi_connect_sees_no_secret_of_its_relay(tmp_path: Path) -> None:
    pytest.importorskip("websockets")
    pytest.importorskip("uvicorn")
    sandboxed = working_isolations()[0] is not Isolation.NONE
    spy(tmp_path, sandboxed=sandboxed)
    local = f"{script('banqi-engine')} --level 0 --seed 1"
    (tmp_path / "field.toml").write_text(
        'rounds = 1\nstall_timeout = 30\ntime = { time = 30 }\nrules = "casual"\n'
        f'[[engines]]\nname = "spy"\nremote = true\n[[engines]]\nname = "local"\n'
        f"command = {json.dumps(local)}\n"
    )
    made = run_banqi(
        ["serve", "field.toml", "--out", "run", "--add-entrant", "spy"], tmp_path, tmp_path
    )
    assert made.returncode == 0, made.stderr
    token = made.stdout.splitlines()[1]
    with open(tmp_path / "serve.log", "w") as log:
        server = subprocess.Popen(
            [*BANQI, "serve", "field.toml", "--out", "run", "--port", "0"],
            cwd=tmp_path,
            env={**os.environ, "HOME": str(tmp_path)},
            stdout=log,
            stderr=subprocess.STDOUT,
            text=True,
        )
    try:
        wait_for("the server's address", lambda: "ws://" in (tmp_path / "serve.log").read_text())
        url = next(
            word
            for word in (tmp_path / "serve.log").read_text().split()
            if word.startswith("ws://")
        )
        relay = run_banqi(
            ["connect", url, "--token", token, *RELAY_OPTIONS, sys.executable, "spy.py"],
            tmp_path,
            tmp_path,
            timeout=240,
        )
        assert relay.returncode == 0, relay.stderr
        server.wait(timeout=60)
    finally:
        server.kill()
        server.wait()
    records = records_in(tmp_path / "run")
    assert len(records) == 2
    assert_clean(records)
