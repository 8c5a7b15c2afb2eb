"""Sandboxed engines: a spy finds none of the referee's secrets, nothing an engine starts
outlives its game or its referee, and ordinary engines keep working inside.

Spies and hostile engines are fakes (``referee_fakes``) with code pasted in. A spy tells
what it could read through its answer to ``name``, which the record keeps.
"""

import contextlib
import os
import shlex
import shutil
import signal
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest
from click.testing import CliRunner
from referee_fakes import TEST_KEY, Fake, play, write_fake

from banqi_cli.main import cli
from referee import sandbox
from referee.engine_spec import EngineSpec
from referee.engine_start import EngineFactory, sandboxed_engines, start_engine_process
from referee.record import GameRecord, read_record
from referee.sandbox import Isolation, SandboxMode, engine_view, working_isolations
from referee.sandbox_view import EngineView
from referee.storage import record_path
from referee.timecontrol import TimeControl
from tournaments.config import ConfigError, load_config

SPY = r"""
import glob
found = set()
SECRETS = __SECRETS__


def attempt(label, action):
    try:
        if action():
            found.add(label)
    except Exception:
        pass


def read(path, size=1 << 16):
    handle = os.open(path, os.O_RDONLY | os.O_NONBLOCK)  # a pipe must not block the spy
    try:
        return os.read(handle, size)
    finally:
        os.close(handle)


def read_memory(pid):
    with open(f"/proc/{pid}/maps") as maps:
        start = int(maps.readline().split("-")[0], 16)
    with open(f"/proc/{pid}/mem", "rb") as memory:
        memory.seek(start)
        return memory.read(16)


for path in SECRETS["keys"]:
    attempt("key", lambda: read(path))
attempt("key-variable", lambda: "BANQI_REFEREE_KEY" in os.environ)
attempt("run-folder", lambda: os.listdir(SECRETS["run"]))
attempt("records", lambda: glob.glob(SECRETS["run"] + "/**/*.json", recursive=True))
attempt("referee-output", lambda: read(SECRETS["output"]))
# Only the referee is looked at, and no output pipe is read: reading one (the other
# engine's, or the test runner's own channel) would take lines meant for someone else.
for entry in os.listdir("/proc"):
    if not entry.isdigit():
        continue
    try:
        command = read(f"/proc/{entry}/cmdline")
    except OSError:
        continue
    if int(entry) == os.getpid() or b"spy.py" in command:
        continue  # itself, or the sandbox that runs it
    if int(entry) == os.getppid() or b"banqi_cli" in command:  # the referee
        found.add("referee-process")
        attempt("referee-environment", lambda: read(f"/proc/{entry}/environ"))
        attempt("referee-memory", lambda: read_memory(entry))
        attempt("referee-stdout", lambda: os.stat(f"/proc/{entry}/fd/1"))
REPORT = "spy:" + (",".join(sorted(found)) or "nothing")
_plain_answer = answer


def answer(i, words):
    if i == 1:
        reply(1, REPORT)
    else:
        _plain_answer(i, words)
"""

HOSTILE = r"""
import signal, subprocess
signal.signal(signal.SIGTERM, signal.SIG_IGN)
QUIET = dict(stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
SLEEPER = "import os, signal, time\nsignal.signal(signal.SIGTERM, signal.SIG_IGN)\ntime.sleep(600)"
subprocess.Popen([sys.executable, "-c", "import os\nos.setsid()\n" + SLEEPER], **QUIET)
DOUBLE = (
    "import os, sys\nif os.fork(): sys.exit(0)\nos.setsid()\nif os.fork(): sys.exit(0)\n" + SLEEPER
)
subprocess.Popen([sys.executable, "-c", DOUBLE], **QUIET).wait()
for _ in range(200):
    if os.fork() == 0:
        time.sleep(600)
        os._exit(0)
_plain_answer = answer


def answer(i, words):
    if i == 5:
        reply(5)  # and goes on: it ignores quit as it ignores SIGTERM
    elif i == 12 and HANG:
        time.sleep(600)
    else:
        _plain_answer(i, words)
"""

ISOLATIONS = [Isolation.BWRAP, Isolation.UNSHARE]


def needs(isolation: Isolation) -> None:
    if isolation not in working_isolations():
        pytest.skip(f"{isolation.value} does not work on this machine")


def spy(folder: Path, secrets: dict[str, object]) -> Fake:
    return write_fake(folder, "spy", SPY.replace("__SECRETS__", repr(secrets)), legal=True)


def report(record: GameRecord, name: str) -> str | None:
    return next(p.engine_name for p in record.players if p.name == name)


def tokened(fake: Fake, token: str) -> EngineSpec:
    """The fake with a token in its environment, which every process it starts inherits."""
    return EngineSpec(
        name=fake.name, command=fake.command, cwd=fake.folder, env={"HOSTILE_TOKEN": token}
    )


def holders(token: str) -> list[int]:
    """Processes (seen from here) with the token in their environment."""
    found = []
    wanted = f"HOSTILE_TOKEN={token}".encode()
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                if wanted in (entry / "environ").read_bytes().split(b"\0"):
                    found.append(int(entry.name))
            except OSError:
                continue
    return found


def left_after(token: str, timeout: float = 5.0) -> list[int]:
    deadline = time.monotonic() + timeout
    while (found := holders(token)) and time.monotonic() < deadline:
        time.sleep(0.05)
    return found


def kill_holders(token: str) -> None:
    for pid in holders(token):
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)


def hostile(folder: Path, *, hang: bool) -> Fake:
    return write_fake(folder, "hostile", f"HANG = {hang}\n" + HOSTILE)


@pytest.mark.parametrize("isolation", ISOLATIONS)
def test_a_spy_finds_nothing_in_a_sandbox(tmp_path: Path, isolation: Isolation) -> None:
    needs(isolation)
    work, out = tmp_path / "work", tmp_path / "work" / "run"
    key = tmp_path / "referee.key"
    key.write_bytes(TEST_KEY)
    output = tmp_path / "referee.out"
    output.write_text("seed 7\n")
    secrets = {"keys": [str(key)], "run": str(out), "output": str(output)}
    the_spy = spy(work, secrets)
    other = write_fake(work, "other", legal=True)
    engines = sandboxed_engines(isolation, [key, out, output])
    specs = (
        EngineSpec(name="spy", command=the_spy.command, cwd=work),
        EngineSpec(name="other", command=other.command, cwd=work),
    )
    records = play(out, specs, games=2, start_engine=engines)
    for record in records:
        assert report(record, "spy") == "spy:nothing"
        assert [p.isolation for p in record.players] == [isolation, isolation]
    # the sandbox hid them, they were there: the spy, unsandboxed, finds them
    records = play(tmp_path / "plain", specs, games=1, start_engine=start_engine_process)
    found = set((report(records[0], "spy") or "").removeprefix("spy:").split(","))
    assert {"key", "referee-output", "referee-process"} <= found
    assert records[0].players[0].isolation is Isolation.NONE


def run_cli(
    args: list[str], cwd: Path, home: Path, output: Path, **options: object
) -> subprocess.Popen[bytes]:
    env = {**os.environ, "HOME": str(home)}
    env.pop("XDG_CONFIG_HOME", None)
    env.pop("BANQI_REFEREE_KEY", None)
    env.update({k: str(v) for k, v in options.items()})
    with output.open("wb") as handle:
        return subprocess.Popen(
            [sys.executable, "-c", "from banqi_cli.main import cli; cli()", *args],
            cwd=cwd,
            env=env,
            stdout=handle,
            stderr=subprocess.PIPE,
            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
        )


@pytest.mark.parametrize("command", ["match", "tournament"])
def test_under_the_cli_defaults_a_spy_finds_nothing(tmp_path: Path, command: str) -> None:
    """No flags: the default key place, the key variable, the run folder, the output file."""
    home, work = tmp_path / "home", tmp_path / "work"
    home.mkdir()
    work.mkdir()
    out, output = work / "runs" / "r", work / "referee.out"
    variable_key = work / "other.key"  # the key of the second run, by $BANQI_REFEREE_KEY
    default_key = home / ".config" / "banqi" / "referee.key"
    secrets = {
        "keys": [str(default_key), str(variable_key)],
        "run": str(out),
        "output": str(output),
    }
    the_spy, other = spy(work, secrets), write_fake(work, "other", legal=True)
    engines = [f"{f.name}={sys.executable} {f.script.name}" for f in (the_spy, other)]
    if command == "match":
        args = ["match", *(e.partition("=")[2] for e in engines), "--games", "2"]
    else:
        args = ["tournament", *(f"--engine={e}" for e in engines)]
    args += ["--rules", "casual", "--out", str(out)]
    for variable in ({}, {"BANQI_REFEREE_KEY": variable_key}):
        shutil.rmtree(out, ignore_errors=True)
        if variable:
            variable_key.write_bytes(TEST_KEY)
        process = run_cli(args, work, home, output, **variable)
        _, stderr = process.communicate(timeout=60)
        assert process.returncode == 0, stderr.decode()
        assert b"sandbox: bwrap" in stderr or b"sandbox: unshare" in stderr
        records = sorted((out / "games").glob("*.json"))
        assert len(records) == 2
        for path in records:
            record = GameRecord.model_validate_json(path.read_text())
            assert "spy:nothing" in [p.engine_name for p in record.players]
    assert default_key.exists()


def hostile_game(tmp_path: Path, token: str, start_engine: EngineFactory) -> list[GameRecord]:
    """The record of a game of the hostile engine that does not hang (its processes tagged
    with ``token``) against a good fake, the engines started by ``start_engine``."""
    bad = tokened(hostile(tmp_path / "e", hang=False), token)
    good_fake = write_fake(tmp_path / "e", "good")
    good = EngineSpec(name="good", command=good_fake.command, cwd=good_fake.folder)
    return play(
        tmp_path / "run",
        (bad, good),
        stall_timeout=60,  # forking 200 processes may take long on a loaded machine
        start_engine=start_engine,
    )


@pytest.mark.parametrize("isolation", ISOLATIONS)
def test_nothing_an_engine_starts_outlives_its_game(tmp_path: Path, isolation: Isolation) -> None:
    """setsid and double-forked children, 200 forks, SIGTERM and quit ignored: all gone."""
    needs(isolation)
    token = uuid.uuid4().hex
    try:
        records = hostile_game(tmp_path, token, sandboxed_engines(isolation, []))
        assert records[0].plies, records[0].detail  # it played: the children were running
        assert left_after(token) == []
    finally:
        kill_holders(token)


def test_without_a_sandbox_only_the_process_group_is_stopped(tmp_path: Path) -> None:
    """``--sandbox off`` is today's plain process: the 200 forks go with the group, but the
    children that left it with setsid survive the game (which is why the sandbox exists)."""
    token = uuid.uuid4().hex
    try:
        records = hostile_game(tmp_path, token, start_engine_process)
        assert records[0].players[0].isolation is Isolation.NONE
        assert len(left_after(token, timeout=1.0)) == 2
    finally:
        kill_holders(token)


@pytest.mark.parametrize("stop", [signal.SIGKILL, signal.SIGINT])
@pytest.mark.parametrize("command", ["match", "tournament"])
def test_a_referee_killed_mid_game_takes_every_engine_process_with_it(
    tmp_path: Path, command: str, stop: signal.Signals
) -> None:
    token = uuid.uuid4().hex
    home, work = tmp_path / "home", tmp_path / "e"
    home.mkdir()
    hanging, good = hostile(work, hang=True), write_fake(work, "good")
    engines = [f"{fake.name}={sys.executable} {fake.script.name}" for fake in (hanging, good)]
    if command == "match":
        args = ["match", *(engine.partition("=")[2] for engine in engines), "--games", "2"]
        room = f"{Path(sys.executable).name} {hanging.script.name}"
    else:
        args = ["tournament", *(f"--engine={engine}" for engine in engines)]
        room = hanging.name
    args.append(f"--cwd={room}={work}")  # its folder is its room: it notes its pids there
    # forking 200 processes before answering may take long on a loaded machine
    args += ["--time", "120", "--stall-timeout", "60", "--out", str(tmp_path / "run")]
    args += ["--pass-env", "HOSTILE_TOKEN"]  # an engine gets only what it is given
    process = run_cli(args, work, home, tmp_path / "out", HOSTILE_TOKEN=token)
    try:
        deadline = time.monotonic() + 60
        # the hanging engine's second process plays the game (the first was the check)
        while not (len(hanging.pids()) >= 2 and len(holders(token)) >= 200):
            if time.monotonic() > deadline or process.poll() is not None:
                break
            time.sleep(0.05)
        assert len(hanging.pids()) >= 2 and len(holders(token)) >= 200
        process.send_signal(stop)
        process.communicate(timeout=30)
        assert process.returncode == (-9 if stop == signal.SIGKILL else 130)
        assert left_after(token) == []
    finally:
        process.kill()
        process.communicate()
        kill_holders(token)


DRIVER = """
import sys
from pathlib import Path
from referee_fakes import play
from referee.engine_spec import EngineSpec
from referee.engine_start import sandboxed_engines
from referee.sandbox import Isolation
from referee.timecontrol import TimeControl
folder, isolation = Path(sys.argv[1]), Isolation(sys.argv[2])
given = {"pass_env": ("HOSTILE_TOKEN",)}
specs = tuple(
    EngineSpec(name=n, command=(sys.executable, f"{n}.py"), cwd=folder, **given)
    for n in ("hostile", "good")
)
play(folder / "run", specs, time_control=TimeControl(time=120), stall_timeout=60,
     start_engine=sandboxed_engines(isolation, []))
"""


@pytest.mark.parametrize("isolation", ISOLATIONS)
def test_each_sandbox_dies_with_its_referee(tmp_path: Path, isolation: Isolation) -> None:
    """The referee as a library, SIGKILLed while its hostile engine thinks."""
    needs(isolation)
    token = uuid.uuid4().hex
    hostile(tmp_path, hang=True)
    write_fake(tmp_path, "good")
    tests = str(Path(__file__).parent)
    process = subprocess.Popen(
        [sys.executable, "-c", DRIVER, str(tmp_path), isolation.value],
        env={**os.environ, "HOSTILE_TOKEN": token, "PYTHONPATH": tests},
    )
    try:
        deadline = time.monotonic() + 30
        while len(holders(token)) < 200 and time.monotonic() < deadline:
            time.sleep(0.05)
        assert len(holders(token)) >= 200
        process.kill()
        process.wait(timeout=10)
        assert left_after(token) == []
    finally:
        process.kill()
        process.wait()
        kill_holders(token)


C_ENGINE = r"""
#include <stdio.h>
#include <string.h>
int main(void) {
    char line[4096], seen[40][4];
    int flipped = 0;
    setvbuf(stdout, NULL, _IOLBF, 0);
    while (fgets(line, sizeof line, stdin)) {
        int id; char word[64] = "", square[8] = "";
        if (sscanf(line, "%d %63s %7s", &id, word, square) < 2) continue;
        if (id == 11 && flipped < 40) strcpy(seen[flipped++], square);
        if (id == 1) { printf("=1 c-engine\n"); continue; }
        if (id == 5) { printf("=5\n"); return 0; }
        if (id != 12) { printf("=%d\n", id); continue; }
        for (char file = 'a'; file <= 'd'; file++)
            for (char rank = '1'; rank <= '8'; rank++) {
                char here[3] = {file, rank, 0};
                int taken = 0;
                for (int i = 0; i < flipped; i++) taken |= !strcmp(seen[i], here);
                if (!taken) { printf("=12 %s %s\n", here, here); goto next; }
            }
        printf("=12 a0 a0\n");
    next:;
    }
    return 0;
}
"""


def test_engines_keep_working_inside(tmp_path: Path) -> None:
    """A C binary, a script run by a relative path in its cwd that writes its own log there,
    and our engine from its installed environment."""
    best = working_isolations()[0]
    if best is Isolation.NONE:
        pytest.skip("no sandbox works on this machine")
    compiler = shutil.which("cc") or shutil.which("gcc")
    if compiler is None:
        pytest.skip("no C compiler")
    folder = tmp_path / "engines"
    folder.mkdir()
    (folder / "engine.c").write_text(C_ENGINE)
    subprocess.run([compiler, "-O1", "-o", str(folder / "c-engine"), str(folder / "engine.c")])
    script = write_fake(folder, "script", legal=True)
    c_engine = EngineSpec(name="c", command=(str(folder / "c-engine"),))
    by_path = EngineSpec(name="script", command=(sys.executable, "script.py"), cwd=folder)
    engines = sandboxed_engines(best, [tmp_path / "run"])
    records = play(tmp_path / "run", (c_engine, by_path), games=2, start_engine=engines)
    for record in records:
        assert record.players[0].engine_name == "c-engine"
        assert record.plies
        assert not record.reason.is_fault, record.detail
    assert len(script.pids()) == 2  # its log, written in its cwd, is there after the game
    ours = EngineSpec(
        name="ours",
        command=(sys.executable, "-c", "from banqi_cli.engine import main; main()", "--level", "1"),
    )
    record = play(
        tmp_path / "run2",
        (ours, c_engine),
        time_control=TimeControl(time=30),
        start_engine=engines,
    )[0]
    assert record.players[0].engine_name and not record.reason.is_fault, record.detail
    assert record_path(tmp_path / "run2", record.game_id).exists()


def no_sandbox_works(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sandbox, "working_isolations", lambda: (Isolation.NONE,))


def match_args(folder: Path, out: Path, *extra: str) -> list[str]:
    a, b = write_fake(folder, "a", legal=True), write_fake(folder, "b", legal=True)
    engines = [shlex.join([sys.executable, str(fake.script)]) for fake in (a, b)]
    return ["match", *engines, "--rules", "casual", "--out", str(out), *extra]


def test_required_refuses_to_start_where_no_sandbox_works(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    no_sandbox_works(monkeypatch)
    args = match_args(tmp_path, tmp_path / "run", "--sandbox", "required")
    result = CliRunner().invoke(cli, [*args, "--key-file", str(tmp_path / "k")])
    assert result.exit_code == 1
    assert "no sandbox works on this machine: install bubblewrap" in result.output
    assert not list((tmp_path / "run").rglob("*.json"))


def test_auto_warns_where_no_sandbox_works_and_plays_unisolated(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    no_sandbox_works(monkeypatch)
    args = match_args(tmp_path, tmp_path / "run")
    result = CliRunner().invoke(cli, [*args, "--key-file", str(tmp_path / "k")])
    assert result.exit_code == 0, result.output
    assert "engines are NOT isolated" in result.stderr
    record = read_record(record_path(tmp_path / "run", "g0001"))
    assert [p.isolation for p in record.players] == [Isolation.NONE, Isolation.NONE]


@pytest.mark.parametrize(("flag", "isolation"), [("off", Isolation.NONE), ("auto", None)])
def test_the_sandbox_flag_decides_each_records_isolation(
    tmp_path: Path, flag: str, isolation: Isolation | None
) -> None:
    best = working_isolations()[0]
    expected = isolation or best
    args = match_args(tmp_path, tmp_path / "run", "--sandbox", flag)
    with contextlib.chdir(tmp_path):  # the fakes write their notes in their folder
        result = CliRunner().invoke(cli, [*args, "--key-file", str(tmp_path / "k")])
    assert result.exit_code == 0, result.output
    if isolation is None:
        assert f"sandbox: {expected.value} (" in result.stderr
    else:
        assert "warning: sandbox off, engines are NOT isolated" in result.stderr
    record = read_record(record_path(tmp_path / "run", "g0001"))
    assert [p.isolation for p in record.players] == [expected, expected]


def test_an_engine_working_in_the_run_folder_is_refused(tmp_path: Path) -> None:
    if working_isolations()[0] is Isolation.NONE:
        pytest.skip("no sandbox works on this machine")
    out = tmp_path / "run"
    out.mkdir()
    args = match_args(tmp_path, out, f"--cwd=a={out}")  # a room inside the run folder
    args[1] = f"a={args[1]}"
    result = CliRunner().invoke(cli, [*args, "--key-file", str(tmp_path / "k")])
    assert result.exit_code == 1
    assert f"working directory {out} is inside {out}" in result.output
    assert not list(out.rglob("*.json"))


@pytest.mark.parametrize("value", ["off", "required", "sometimes"])
def test_a_tournament_config_sets_the_sandbox(tmp_path: Path, value: str) -> None:
    text = f'sandbox = "{value}"\n[[engines]]\nname = "a"\ncommand = "x"\n'
    text += '[[engines]]\nname = "b"\ncommand = "y"\n'
    (tmp_path / "t.toml").write_text(text)
    if value == "sometimes":
        with pytest.raises(ConfigError, match="sandbox: Input should be 'auto', 'required'"):
            load_config(tmp_path / "t.toml")
    else:
        assert load_config(tmp_path / "t.toml").sandbox == SandboxMode(value)


def hidden_under(view: EngineView, root: Path) -> tuple[Path, ...]:
    """The folders a view covers inside ``root``: a test's own, whatever else the machine
    holds (a demo's ``banqi-runs/`` beside our packages is covered too, and rightly)."""
    return tuple(path for path in view.hidden if path.is_relative_to(root))


def test_engine_views(tmp_path: Path) -> None:
    """What is shown from the private /tmp, and which secrets need covering."""
    work, books = tmp_path / "work", tmp_path / "books"
    (work / "run").mkdir(parents=True)
    books.mkdir()
    (work / "engine.py").write_text("")
    key = tmp_path / "elsewhere.key"
    key.write_text("k")
    view = engine_view(
        ["python3", "engine.py", "--book", str(books)],
        work,
        [Path("../books")],
        [key, work / "run", Path("/no/such/file")],
    )
    assert view.cwd == work
    assert books in view.read_only
    assert work not in view.read_only  # engine.py is in the cwd, shown writable anyway
    # the key is in the private /tmp: unseen already
    assert hidden_under(view, tmp_path) == (work / "run",)
    with pytest.raises(sandbox.SandboxViewError, match="is inside"):
        engine_view(["x"], work / "run", [], [work / "run"])


def test_a_program_in_a_virtual_environment_is_shown_with_the_environment(tmp_path: Path) -> None:
    venv = tmp_path / "venv"
    (venv / "bin").mkdir(parents=True)
    (venv / "lib").mkdir()
    (venv / "pyvenv.cfg").write_text("home = /usr/bin\n")
    (venv / "bin" / "my-engine").write_text("#!/bin/sh\n")
    (venv / "bin" / "my-engine").chmod(0o755)
    view = engine_view(["my-engine", "--level", "3"], Path("/"), [], [], str(venv / "bin"))
    assert venv in view.read_only
    view = engine_view([str(venv / "bin" / "my-engine")], Path("/"), [], [], None)
    assert venv in view.read_only


@pytest.mark.parametrize("name", ["banqi-runs", "dask-scratch-space", "dask-worker-space"])
def test_default_run_and_dask_folders_are_covered_whatever_they_hold(
    tmp_path: Path, name: str
) -> None:
    """A default run folder (or Dask's scratch) beside an engine's program is covered as a
    whole, also while it holds no ``games/`` yet (a run being started, a tuning run's
    state, a worker's spilled data); an ordinary folder beside it stays shown."""
    work = tmp_path / "work"
    (work / name / "t-2026-12-01").mkdir(parents=True)
    (work / name / "t-2026-12-01" / "tune.json").write_text("{}")
    (work / "data").mkdir()
    (work / "engine.py").write_text("")
    view = engine_view([sys.executable, str(work / "engine.py")], None, [], [])
    assert work in view.read_only
    assert hidden_under(view, tmp_path) == (work / name,)
