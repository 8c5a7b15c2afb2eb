"""``banqi match`` as a user runs it: a real subprocess, its output, exit status and files."""

import contextlib
import json
import shlex
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from click.testing import CliRunner
from referee_fakes import Fake, running_scripts, write_fake

from banqi_cli.main import cli
from referee.reasons import Reason
from referee.record import read_record
from referee.replay import replay_game_record
from referee.storage import record_path

BANQI = str(Path(sys.executable).with_name("banqi"))
if not Path(BANQI).exists():
    BANQI = shutil.which("banqi") or "banqi"
PYTHON = Path(sys.executable).name


def command_line(fake: Fake) -> str:
    """The fake's command relative to its folder, where ``start_match`` runs the referee."""
    return shlex.join([sys.executable, fake.script.name])


def rooms(*fakes: Fake) -> list[str]:
    """``--cwd`` for each fake: its folder is its room, where it notes its pids."""
    return [f"--cwd={PYTHON} {fake.script.name}={fake.folder}" for fake in fakes]


def default_sigint() -> None:
    """In the child before exec: SIGINT back to its default action.

    A shell starts background jobs with SIGINT ignored, and an ignored signal stays
    ignored across exec, so under ``pytest &`` the referee would inherit SIG_IGN and
    (rightly) never see Ctrl-C. A user's terminal delivers it with the default action.
    """
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def start_match(
    *args: str, cwd: Path | None = None, interruptible: bool = False
) -> subprocess.Popen[str]:
    """``banqi match ARGS``; ``interruptible`` starts it with SIGINT at its default action."""
    return subprocess.Popen(
        [BANQI, "match", *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=cwd,
        preexec_fn=default_sigint if interruptible else None,
    )


def finish(process: subprocess.Popen[str], timeout: float = 30.0) -> tuple[int, str, str]:
    try:
        out, err = process.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        process.kill()
        out, err = process.communicate()
        pytest.fail(f"banqi match did not finish: {out}{err}")
    return process.returncode, out, err


def test_a_match_prints_a_line_per_game_and_a_summary(tmp_path: Path, fakes: list[Fake]) -> None:
    folder = tmp_path / "engines"
    alpha = write_fake(folder, "alpha", legal=True)
    beta = write_fake(folder, "beta", legal=True)
    fakes += [alpha, beta]
    a, b = f"{PYTHON} alpha.py", f"{PYTHON} beta.py"
    out_good, out_bad = tmp_path / "good", tmp_path / "bad"
    common = ("--games", "2", "--rules", "casual", "--seed", "3")
    good = start_match(
        command_line(alpha), command_line(beta), *common, "--out", str(out_good), cwd=folder
    )
    bad = start_match(
        "./no-such-engine", command_line(beta), *common, "--out", str(out_bad), cwd=folder
    )

    status, out, err = finish(good)
    assert status == 0, err
    lines = out.splitlines()
    # no --time: the match's own short default, and how long it may take at most
    assert lines[0].startswith(f"match: {a} vs {b}, 2 games, rules casual, time 10s+0s, seed 3")
    assert lines[1] == "at most 41 s, if both clocks of 10 s ran out in every game, 1 at once"
    assert lines[2].startswith(f"[1/2] g0001  {a} ")
    assert lines[3].startswith(f"[2/2] g0002  {a} ")
    assert lines[4].startswith(f"Score of {a} vs {b}: ")
    assert lines[5].startswith(f"  {a}: ")
    assert lines[6].startswith(f"  {b}: ")
    assert lines[7].startswith(f"  {a} vs {b}: 2 games, W-D-L ")
    assert len(lines) == 8
    for game_id in ("g0001", "g0002"):
        record = read_record(record_path(out_good, game_id))
        assert not record.reason.is_fault
        assert replay_game_record(record).ok
        assert f"{record.reason.value}: {record.result}" in out

    status, out, err = finish(bad)
    assert status == 1, err
    assert "Traceback" not in out + err
    assert err.splitlines()[-1] == (
        "Error: engine 'no-such-engine' (./no-such-engine) cannot start: no such file"
    )
    assert not out_bad.exists()  # no record, no standings, not even a folder
    assert running_scripts([beta]) == []


def test_two_engines_with_one_long_name_get_numbered(tmp_path: Path) -> None:
    fake = write_fake(tmp_path, "engine-with-a-long-name-" * 4, legal=True)
    command = shlex.join(fake.command)
    out = tmp_path / "run"
    args = ["match", command, command, "--games", "1", "--rules", "casual", "--out", str(out)]
    with contextlib.chdir(tmp_path):
        result = CliRunner().invoke(cli, args)
    assert result.exit_code == 0, result.output
    record = read_record(record_path(out, "g0001"))
    names = [p.name for p in record.players]
    assert names[0].endswith(" #1")
    assert names[1].endswith(" #2")
    assert names[0][:-3] == names[1][:-3]


def test_engines_are_named_by_name_equals_command(tmp_path: Path) -> None:
    alpha = write_fake(tmp_path, "alpha", legal=True)
    out = tmp_path / "run"
    engines = [f"{name}={shlex.join(alpha.command)}" for name in ("first", "second")]
    with contextlib.chdir(tmp_path):
        result = CliRunner().invoke(
            cli, ["match", *engines, "--rules", "casual", "--out", str(out)]
        )
        same = CliRunner().invoke(cli, ["match", f"x={alpha.script}", f"x={alpha.script}"])
    assert result.exit_code == 0, result.output
    assert [p.name for p in read_record(record_path(out, "g0001")).players] == ["first", "second"]
    assert "Score of first vs second" in result.output
    assert same.exit_code == 1
    assert "both engines are named 'x'" in same.output


def bad_arguments(tmp_path: Path) -> dict[str, tuple[str, ...]]:
    """Option values ``banqi match`` must refuse before playing, by what is wrong."""
    afile = tmp_path / "afile"
    afile.write_text("")
    short_key = tmp_path / "short.key"
    short_key.write_bytes(b"1234")
    used = tmp_path / "used"
    (used / "games").mkdir(parents=True)
    (used / "games" / "g0001.json").write_text("{}")
    return {
        "games": ("--games", "0"),
        "rules": ("--rules", "no-such-rules"),
        "time": ("--time", "-5"),
        "margin": ("--margin", "soon"),
        "stall": ("--stall-timeout", "0"),
        "seed": ("--seed", "x"),
        "out-under-a-file": ("--out", str(afile / "run")),
        "short-key": ("--key-file", str(short_key), "--out", str(tmp_path / "run")),
        "out-with-records": ("--out", str(used)),
    }


def assert_one_error_line(output: str) -> None:
    assert "Traceback" not in output
    errors = [line for line in output.splitlines() if line.startswith("Error:")]
    assert len(errors) == 1, output
    assert "match:" not in output


def test_bad_option_values_fail_with_one_error_line(tmp_path: Path) -> None:
    for name, args in bad_arguments(tmp_path).items():
        result = CliRunner().invoke(cli, ["match", "engine-a", "engine-b", *args])
        assert result.exit_code in (1, 2), (name, result.output)
        assert result.exception is None or isinstance(result.exception, SystemExit), name
        assert_one_error_line(result.output)
    assert {p.name for p in tmp_path.iterdir()} <= {"afile", "short.key", "used", "key"}
    assert [p.name for p in (tmp_path / "used" / "games").iterdir()] == ["g0001.json"]


def test_bad_option_values_in_a_real_process(tmp_path: Path) -> None:
    cases = bad_arguments(tmp_path)
    processes = [
        start_match("engine-a", "engine-b", *cases[name], cwd=tmp_path)
        for name in ("games", "out-under-a-file")
    ]
    for process in processes:
        status, out, err = finish(process)
        assert status in (1, 2)
        assert out == ""
        assert_one_error_line(err)


def test_an_empty_engine_command_is_refused() -> None:
    result = CliRunner().invoke(cli, ["match", "", "engine-b"])
    assert result.exit_code == 1
    assert "Error: engine command is empty" in result.output
    assert result.exception is None or isinstance(result.exception, SystemExit)


SLOW = """
def on_genmove(i, words):
    time.sleep(0.2)
    reply(i, choose(words[2]))
"""

RESIGNS_IN_THE_FIRST_GAME = """
FIRST = None  # whether this is the first process asked to move (the check asks none)
slow_genmove = on_genmove


def on_genmove(i, words):
    global FIRST
    if FIRST is None:
        FIRST = first_process()
    if FIRST and genmoves == 2:
        reply(i, "a0 a0")
    else:
        slow_genmove(i, words)
"""


def wait_for(
    process: subprocess.Popen[str], condition: Callable[[], bool], timeout: float = 20.0
) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        if process.poll() is not None:
            pytest.fail(f"banqi match ended early: {finish(process)}")
        if time.monotonic() > deadline:
            pytest.fail("timed out waiting for the match")
        time.sleep(0.05)


def test_ctrl_c_stops_the_match_cleanly_and_keeps_finished_records(
    tmp_path: Path, fakes: list[Fake]
) -> None:
    slow = write_fake(tmp_path / "engines", "slow", SLOW + RESIGNS_IN_THE_FIRST_GAME)
    other = write_fake(tmp_path / "engines", "other", SLOW)
    fakes += [slow, other]
    out = tmp_path / "run"
    process = start_match(
        command_line(slow),
        command_line(other),
        *("--games", "4", "--out", str(out), "--log-traffic"),
        *rooms(slow, other),
        cwd=slow.folder,
        interruptible=True,
    )
    try:
        # each started for the check before the games, then for games 1 and 2
        wait_for(process, lambda: len(slow.pids()) == 3 and len(other.pids()) == 3)
        time.sleep(0.5)
        assert process.poll() is None
        interrupted = time.monotonic()
        process.send_signal(signal.SIGINT)
        status, stdout, stderr = finish(process, timeout=10.0)
        assert time.monotonic() - interrupted < 5.0
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()

    assert status == 130
    assert "Traceback" not in stdout + stderr
    assert "interrupted: 1 of 4 games finished" in stderr
    assert "[1/4] g0001" in stdout
    assert "[2/4]" not in stdout
    first = read_record(record_path(out, "g0001"))
    assert (first.reason, first.winner) == (Reason.RESIGN, 1)
    assert first.withheld  # its pair is half played: run the same command to finish it
    assert not record_path(out, "g0001").with_suffix(".txt").exists()
    assert not record_path(out, "g0002").exists()
    assert not [p for p in (out / "games").iterdir() if p.name.startswith(".")]
    assert running_scripts([slow, other]) == []


def test_the_summary_counts_wins_draws_and_losses_exactly(
    tmp_path: Path, fakes: list[Fake]
) -> None:
    """One game resigned, one drawn: every number of the summary, from the records and pinned."""
    folder = tmp_path / "engines"
    resigner = write_fake(folder, "resigner", RESIGNS_IN_THE_FIRST_GAME, legal=True)
    player = write_fake(folder, "player", legal=True)
    fakes += [resigner, player]
    key = tmp_path / "fixed.key"
    key.write_bytes(bytes(range(100, 132)))
    rules = tmp_path / "quiet.toml"
    rules.write_text('preset = "olympiad"\nno_progress_limit = 1\n')  # a quiet move draws
    out = tmp_path / "run"
    process = start_match(
        command_line(resigner),
        command_line(player),
        *("--games", "2", "--rules", str(rules), "--seed", "4"),
        *("--key-file", str(key), "--out", str(out)),
        *rooms(resigner, player),
        cwd=folder,
    )
    status, stdout, stderr = finish(process)
    assert status == 0, stderr

    a, b = f"{PYTHON} resigner.py", f"{PYTHON} player.py"
    records = [read_record(record_path(out, game_id)) for game_id in ("g0001", "g0002")]
    assert [(r.reason, r.winner) for r in records] == [
        (Reason.RESIGN, 1),
        (Reason.NO_PROGRESS, None),
    ]
    points = [sum({None: 0.5, i: 1.0}.get(r.winner, 0.0) for r in records) for i in (0, 1)]
    computed = [f"Score of {a} vs {b}: {points[0]:g} - {points[1]:g} ({len(records)} games)"]
    for index, name in enumerate((a, b)):
        wins = sum(r.winner == index for r in records)
        draws = sum(r.winner is None for r in records)
        losses = sum(r.winner == 1 - index for r in records)
        computed.append(f"  {name}: {wins} W, {draws} D, {losses} L")
    pinned = [
        f"Score of {a} vs {b}: 0.5 - 1.5 (2 games)",
        f"  {a}: 0 W, 1 D, 1 L",
        f"  {b}: 1 W, 1 D, 0 L",
    ]
    assert computed == pinned
    lines = stdout.splitlines()
    # the match line, its longest time, a line per game, the summary (no faults), the
    # head-to-head line
    assert len(lines) == 8, stdout
    assert lines[4:7] == pinned
    assert lines[7] == (
        f"  {a} vs {b}: 2 games, W-D-L 0-1-1, Elo -190.8 ± inf, LOS 15.9%; "
        "1 pair [0, 1, 0, 0, 0], Elo -190.8 ± n/a, LOS n/a"
    )
    assert running_scripts([resigner, player]) == []


def test_a_seed_drawn_at_random_is_not_printed(tmp_path: Path, fakes: list[Fake]) -> None:
    """Engines may read the referee's output: only a seed the user gave is shown."""
    folder = tmp_path / "engines"
    alpha = write_fake(folder, "alpha", legal=True)
    beta = write_fake(folder, "beta", legal=True)
    fakes += [alpha, beta]
    out = tmp_path / "run"
    match = start_match(
        command_line(alpha), command_line(beta), "--rules", "casual", "--out", str(out), cwd=folder
    )
    status, stdout, stderr = finish(match)
    assert status == 0, stderr
    assert ", seed drawn at random, " in stdout.splitlines()[0]
    seed = read_record(record_path(out, "g0001")).seed
    assert str(seed) not in stdout + stderr

    flags = [f"--engine={fake.name}={shlex.join(fake.command)}" for fake in (alpha, beta)]
    with contextlib.chdir(folder):
        result = CliRunner().invoke(
            cli, ["tournament", *flags, "--rules", "casual", "--out", str(tmp_path / "t")]
        )
    assert result.exit_code == 0, result.output
    assert "seed drawn at random" in result.output
    drawn = json.loads((tmp_path / "t" / "tournament.json").read_text())["seed"]
    assert str(drawn) not in result.output


def test_the_same_match_command_resumes_and_other_settings_are_refused(tmp_path: Path) -> None:
    alpha = write_fake(tmp_path, "alpha", legal=True)
    beta = write_fake(tmp_path, "beta", legal=True)
    engines = [f"{fake.name}={shlex.join(fake.command)}" for fake in (alpha, beta)]
    args = ["match", *engines, "--games", "3", "--concurrency", "2", "--rules", "casual"]
    with contextlib.chdir(tmp_path):
        first = CliRunner().invoke(cli, args)
        records = sorted((tmp_path / "banqi-runs" / "match-alpha-vs-beta" / "games").glob("*.json"))
        (tmp_path / "banqi-runs" / "match-alpha-vs-beta" / "games" / "g0003.json").unlink()
        again = CliRunner().invoke(cli, args)
        other = CliRunner().invoke(cli, [*args[:-4], "--games", "4", "--rules", "casual"])
    assert first.exit_code == 0, first.output
    assert [p.name for p in records] == ["g0001.json", "g0002.json", "g0003.json"]
    assert again.exit_code == 0, again.output
    assert "resuming with 2 games done" in again.output
    assert "[3/3] g0003" in again.output and "g0001" not in again.output.split("resuming")[1]
    assert "Score of alpha vs beta" in again.output and "(3 games)" in again.output
    assert other.exit_code == 1
    assert "holds a match with different settings" in other.output
    assert "games: was 3, now 4" in other.output


def test_an_engine_not_told_the_rules_is_named_once(tmp_path: Path) -> None:
    fakes = [write_fake(tmp_path, n, legal=True, rules="hong-kong") for n in ("alpha", "beta")]
    engines = [f"{fake.name}={shlex.join(fake.command)}" for fake in fakes]
    args = ["match", *engines, "--games", "2", "--rules", "hong-kong", "--out", "run"]
    with contextlib.chdir(tmp_path):
        result = CliRunner().invoke(cli, args)
    assert result.exit_code == 0, result.output
    warnings = [line for line in result.stderr.splitlines() if line.startswith("warning:")]
    assert warnings == [
        f"warning: engine {name!r} does not take the rule_set command, so it was not told the "
        "rules it is judged by (hong-kong); its illegal moves under them lose games"
        for name in ("alpha", "beta")
    ]
    record = read_record(record_path(tmp_path / "run", "g0002"))
    assert [p.rules_told for p in record.players] == [False, False]
