"""An engine's environment holds only a few of the referee's variables, what it is given
(``--env``, ``--pass-env``, a config's ``env`` and ``pass_env``) and ``HOME`` in its room:
a secret planted in the referee's environment reaches no engine, under every isolation,
on a cluster's worker and behind ``banqi connect``, nor any process the engine can see.

The spy is a fake (``referee_fakes``) that tells, through its answer to ``name`` (which
the record keeps), where it found the secret and the names of its variables.
"""

import json
import sys
from pathlib import Path

import pytest
from arena_helpers import remote_event
from processes import run_banqi
from referee_fakes import Fake, attacker, play, write_fake

from referee.engine_env import BASE_VARIABLES
from referee.engine_limits import EngineLimits
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
    # the record keeps the limits a sandbox held each engine to; no sandbox, no limits
    expected = EngineLimits() if isolation.sandboxed else None
    assert all(player.limits == expected for r in records for player in r.players)
    written = json.loads(next((tmp_path / "run" / "games").glob("*.json")).read_text())
    assert all(("limits" in player) == isolation.sandboxed for player in written["players"])


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
    assert all(player.limits == EngineLimits() for r in records for player in r.players)


def test_the_command_line_checks_env_and_pass_env(tmp_path: Path) -> None:
    for option, value, words in (
        ("--env", "NOVALUE", "expected NAME=VALUE"),
        ("--env", "=x", "a name must be non-empty"),
        ("--pass-env", "A=B", "a name must be non-empty, with no ="),
        ("--pass-env", "BANQI_REFEREE_KEY", "never passed to an engine"),
    ):
        done = run_banqi(["match", "a", "b", option, value], tmp_path, tmp_path)
        assert done.returncode == 2 and words in done.stderr, done.stderr


@pytest.mark.usefixtures("planted")
def test_an_engine_behind_banqi_connect_sees_no_secret_of_its_relay(tmp_path: Path) -> None:
    pytest.importorskip("websockets")
    pytest.importorskip("uvicorn")
    spy(tmp_path, sandboxed=working_isolations()[0] is not Isolation.NONE)
    relay_options = ["--env", "GIVEN=from-config", "--pass-env", "PASSED"]
    records = remote_event(tmp_path, "spy", [*relay_options, "--", sys.executable, "spy.py"])
    assert len(records) == 2
    assert_clean(records)
