"""``banqi tune`` as a user runs it, with real engine processes: the starting file, a short
run's lines and files, running it again, resuming after SIGKILL, an engine of one's own with
its own parameter format, and the input and settings it refuses."""

import re
import shlex
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner, Result
from processes import wait_for

from banqi_cli.main import cli
from banqi_engine.eval_params import EvalParams, params_with
from tournaments.config import builtin_engine_command
from tournaments.run_kinds import MATCH_FILE, TUNE_FILE
from tournaments.tune import TuneState, read_param_file, read_param_values
from tournaments.tune_run import STATE_FILE, TUNED_FILE, TuneSettings, param_args

ITERATION = re.compile(
    r"^iteration (\d+)/(\d+) \((\d+) done\): plus-minus (\S+) (\S+), (\S+) (\S+); "
    r"result ([+-]\d+(?:\.\d+)?); theta (.+); elapsed \d+s, ETA (\d+s|-)$",
    re.MULTILINE,
)
PARAMS = """\
[safe_factor]
value = 1.2
min = 1.0
max = 2.0
c_end = 0.05
r_end = 0.5

[jumping_cannon_value]
value = 24.0
min = 4.0
max = 64.0
c_end = 3.0
r_end = 0.5
"""
"""Two parameters with a large learning rate, so that a decided pair moves theta."""
FAST = ("--rules", "casual", "--move-time", "0.05", "--sandbox", "off", "--seed", "5")
"""Short games: the casual rules' 20-ply no-progress draw, level 3 at 0.05 s a move (it
takes a few ms of that)."""


def banqi() -> str:
    beside = Path(sys.executable).with_name("banqi")
    return str(beside) if beside.exists() else "banqi"


def tune(*args: str) -> Result:
    result = CliRunner().invoke(cli, ["tune", *args])
    assert "Traceback" not in result.output
    return result


def state_of(out: Path) -> TuneState:
    return TuneState.model_validate_json((out / STATE_FILE).read_text())


def replayed_theta(params_file: Path, out: Path, iterations: int) -> dict[str, float]:
    """Theta recomputed from the start and the saved pairs, in the order they were applied."""
    config = TuneSettings.model_validate_json((out / TUNE_FILE).read_text()).config
    assert config.params == read_param_file(params_file)
    assert config.iterations == iterations
    spsa = config.spsa()
    theta = config.start()
    for pair in state_of(out).pairs:
        theta = spsa.updated(theta, pair.iteration, pair.result)
    return theta


def test_the_starting_file_is_written_once(tmp_path: Path) -> None:
    path = tmp_path / "params.toml"
    written = tune(str(path), "--write-params")
    assert written.exit_code == 0, written.output
    assert written.output == f"wrote {path}: edit it, then run: banqi tune {path}\n"
    assert list(read_param_file(path)) == list(EvalParams.model_fields)
    again = tune(str(path), "--write-params")
    assert (again.exit_code, again.output) == (
        1,
        f"Error: {path} exists: not replaced (remove it or name another file)\n",
    )
    other = tune(str(tmp_path / "x.toml"), "--write-params", "--engine", "./mine")
    assert other.exit_code == 2
    assert "--write-params writes the built-in engine's parameters" in other.output


def test_a_short_run_its_lines_files_and_the_same_command_again(tmp_path: Path) -> None:
    params = tmp_path / "params.toml"
    params.write_text(PARAMS)
    out = tmp_path / "run"
    args = [str(params), "--iterations", "2", "--concurrency", "2", *FAST, "--out", str(out)]
    first = tune(*args)
    assert first.exit_code == 0, first.output
    lines = [line for line in first.output.splitlines() if not line.startswith("warning:")]
    assert lines[0] == (
        "tune: 2 parameters of banqi-engine --level 3, 2 iterations (pairs of games on one "
        "hidden layout, seats swapped), rules casual, time 10s+0.1s, 0.05s/move, seed 5, "
        f"pairs: 2 at once, run folder {out}"
    )
    assert lines[1].startswith("SPSA: alpha 0.602, gamma 0.101, A 0.2 (a tenth of the iterations)")
    found = list(ITERATION.finditer(first.output))
    assert sorted(int(line.group(1)) for line in found) == [1, 2]
    assert [int(line.group(3)) for line in found] == [1, 2]

    state = state_of(out)
    assert [pair.iteration for pair in state.pairs] == [int(line.group(1)) for line in found]
    for pair, line in zip(state.pairs, found, strict=True):
        for game, points, reason in zip(pair.games, (4, 6), (5, 7), strict=True):
            assert line.group(points) == f"{game.plus_points:g}-{game.minus_points:g}"
            assert line.group(reason) == game.reason.value
        assert all(g.plus_points is not None and g.minus_points is not None for g in pair.games)
        assert pair.result == sum((g.plus_points or 0) - (g.minus_points or 0) for g in pair.games)
        assert line.group(8) == f"{pair.result:+g}"
    assert state.theta == replayed_theta(params, out, 2)

    tuned = read_param_file(out / TUNED_FILE)
    assert {name: param.value for name, param in tuned.items()} == state.theta
    start = read_param_file(params)
    for name, param in tuned.items():
        assert param.model_copy(update={"value": start[name].value}) == start[name]
    params_with(f"{name}={value!r}" for name, value in read_param_values(out / TUNED_FILE).items())
    assert lines[-4:] == [
        f"{STATE_FILE} and {TUNED_FILE} in {out}",
        "verify it with an SPRT against the start:",
        f"  cp {out / TUNED_FILE} {TUNED_FILE}",
        "  banqi sprt 'tuned=banqi-engine --level 3 --params tuned.toml' "
        f"'base=banqi-engine --level 3 --params {params}' --rules casual --time 10 "
        "--increment 0.1 --move-time 0.05",
    ]

    again = tune(*args[:-4], "--concurrency", "1", "--out", str(out))
    assert again.exit_code == 0, again.output
    assert again.output.splitlines()[0].endswith("; finished (2 iterations)")
    assert not ITERATION.search(again.output)
    assert state_of(out) == state

    for change, words in [
        (["--iterations", "3"], "iterations: was 2, now 3. The gains c_k and a_k are set from"),
        (["--rules", "olympiad"], "rules.name: was 'casual', now 'olympiad'"),
        (["--seed", "6"], "seed: was 5, now 6"),
        (["--time", "20"], "time_control.time: was 10.0, now 20.0"),
        (["--param-format", "--param={name}={value}"], "param_format: was '--param {name}"),
        (["--engine", "banqi-engine --level 3"], "engine[0]: was '(absent)', now 'banqi-engine'"),
    ]:
        refused = tune(*args, *change)
        assert refused.exit_code == 1, refused.output
        assert refused.output.startswith(
            f"Error: {out} holds a tuning run with different settings; resume it with the same "
            "settings"
        )
        assert words in refused.output
    params.write_text(PARAMS.replace("c_end = 0.05", "c_end = 0.1"))
    edited = tune(*args)
    assert edited.exit_code == 1
    assert "params.safe_factor.c_end: was 0.05, now 0.1" in edited.output
    assert state_of(out) == state


AGAINST = re.compile(
    r"^iteration (\d+)/2 \(\d+ done\): against the opponent: plus (\S+) (\S+), (\S+) (\S+); "
    r"minus (\S+) (\S+), (\S+) (\S+); result ([+-]\d+(?:\.\d+)?); theta .+$",
    re.MULTILINE,
)


def test_against_an_opponent_plus_and_minus_each_play_it_a_pair(tmp_path: Path) -> None:
    """With --opponent the two engines never meet: each plays the opponent twice, seats
    swapped, and the result is plus's points less minus's."""
    params = tmp_path / "params.toml"
    params.write_text(PARAMS)
    out = tmp_path / "run"
    opponent = shlex.join(builtin_engine_command("--level", "1"))
    args = [str(params), "--iterations", "2", *FAST, "--out", str(out), "--log-traffic"]
    run = tune(*args, "--opponent", opponent)
    assert run.exit_code == 0, run.output
    lines = [line for line in run.output.splitlines() if not line.startswith("warning:")]
    assert lines[0].startswith(
        "tune: 2 parameters of banqi-engine --level 3, 2 iterations (plus and minus each a pair "
        f"of games against the opponent {opponent} on one hidden layout, seats swapped), rules "
        "casual,"
    )
    assert ", iterations: 1 at once, run folder " in lines[0]
    found = list(AGAINST.finditer(run.output))
    state = state_of(out)
    assert [pair.iteration for pair in state.pairs] == [int(line.group(1)) for line in found]
    assert len(found) == 2
    for pair, line in zip(state.pairs, found, strict=True):
        plus, minus = pair.games[:2], pair.games[2:]
        assert [g.minus_points for g in plus] == [None, None]
        assert [g.plus_points for g in minus] == [None, None]
        shown = [f"{g.plus_points:g}" for g in plus] + [f"{g.minus_points:g}" for g in minus]
        assert [line.group(i) for i in (2, 4, 6, 8)] == shown
        assert [line.group(i) for i in (3, 5, 7, 9)] == [g.reason.value for g in pair.games]
        points = sum(g.plus_points or 0.0 for g in plus) - sum(g.minus_points or 0.0 for g in minus)
        assert pair.result == points
        assert line.group(10) == f"{pair.result:+g}"
        for number, game in enumerate(pair.games, 1):
            log = (out / "traffic" / f"i{pair.iteration:06d}-{number}.dctp.log").read_text()
            mine, theirs = ("[plus]", "[minus]") if number <= 2 else ("[minus]", "[plus]")
            assert mine in log and "[opponent]" in log and theirs not in log
            assert game.plies > 0
    assert state.theta == replayed_theta(params, out, 2)
    assert lines[-2:] == [
        "and each of them against the opponent:",
        f"  banqi tournament --format gauntlet {shlex.quote('opponent=' + opponent)} "
        "'tuned=banqi-engine --level 3 --params tuned.toml' "
        f"'base=banqi-engine --level 3 --params {params}' --rounds 100 --rules casual --time 10 "
        "--increment 0.1 --move-time 0.05",
    ]

    other = tune(*args, "--opponent", shlex.join(builtin_engine_command("--level", "2")))
    assert other.exit_code == 1
    assert "opponent[4]: was '1', now '2'" in other.output
    alone = tune(*args)
    assert alone.exit_code == 1
    assert "opponent" in alone.output
    assert state_of(out) == state


ITERATIONS = 3
"""Iterations of the killed run: it is killed after its first pair is saved."""


def test_killed_with_sigkill_then_run_again_goes_on_from_the_saved_iteration(
    tmp_path: Path,
) -> None:
    params = tmp_path / "params.toml"
    params.write_text(PARAMS)
    out = tmp_path / "run"
    args = [str(params), "--iterations", str(ITERATIONS), *FAST, "--out", str(out)]
    with (tmp_path / "first.log").open("w") as log:
        first = subprocess.Popen([banqi(), "tune", *args], stdout=log, stderr=subprocess.STDOUT)
    try:
        wait_for("a pair saved", lambda: (out / STATE_FILE).exists() and state_of(out).pairs)
    finally:
        first.send_signal(signal.SIGKILL)
        first.wait(timeout=10)
    saved = state_of(out)
    done = len(saved.pairs)
    # the kill comes at most a poll after the first save; on a loaded machine one more
    # pair may have been saved before it, never all of them
    assert [pair.iteration for pair in saved.pairs] == list(range(1, done + 1))
    assert 1 <= done < ITERATIONS

    second = tune(*args)
    assert second.exit_code == 0, second.output
    assert f"; resuming with {done} of {ITERATIONS} iterations done" in second.output
    played = [int(line.group(1)) for line in ITERATION.finditer(second.output)]
    assert played == list(range(done + 1, ITERATIONS + 1))
    state = state_of(out)
    assert state.pairs[:done] == saved.pairs
    assert [pair.iteration for pair in state.pairs] == list(range(1, ITERATIONS + 1))
    assert state.theta == replayed_theta(params, out, ITERATIONS)
    assert [p for p in out.iterdir() if p.suffix == ".tmp"] == []


WRAPPER = """\
import sys
from banqi_cli.engine import main

words = sys.argv[1:]
pairs = zip(words[::2], words[1::2], strict=True)
sys.argv = ["mine", "--level", "3", *(f"--param={n.lstrip('-')}={v}" for n, v in pairs)]
main()
"""


def test_an_engine_of_ones_own_takes_its_parameters_by_its_format(tmp_path: Path) -> None:
    """An engine that takes ``-NAME VALUE``: ``--param-format '-{name} {value}'``."""
    (tmp_path / "mine.py").write_text(WRAPPER)
    params = tmp_path / "params.toml"
    params.write_text(PARAMS)
    out = tmp_path / "run"
    engine = f"{shlex.quote(sys.executable)} {tmp_path / 'mine.py'}"
    args = [str(params), "--iterations", "1", *FAST, "--out", str(out), "--engine", engine]
    wrong = tune(*args)  # the default format: arguments the engine does not take
    assert wrong.exit_code == 1
    assert "Error: engine 'theta' (" in wrong.output
    assert "--param safe_factor=1.2 --param jumping_cannon_value=24) failed the handshake" in (
        wrong.output
    )
    assert not (out / TUNE_FILE).exists()

    run = tune(*args, "--param-format", "-{name} {value}")
    assert run.exit_code == 0, run.output
    assert f"tune: 2 parameters of {engine}, 1 iterations" in run.output
    theta = state_of(out).theta
    words = shlex.join(param_args("-{name} {value}", theta))
    assert f"'tuned={engine} {words}' 'base={engine} -safe_factor 1.2 " in run.output


CRASHER = """\
import sys
for line in sys.stdin:
    words = line.split()
    if words[1:2] == ["genmove"]:
        sys.exit(3)
    print(f"={words[0]}", flush=True)
"""


def test_engines_that_keep_failing_stop_the_run_keeping_its_pairs(tmp_path: Path) -> None:
    """An engine that passes the handshake and dies at its first genmove: three games lost
    by a crash in a row stop the run, with one line and status 1."""
    (tmp_path / "crash.py").write_text(CRASHER)
    params = tmp_path / "params.toml"
    params.write_text(PARAMS)
    out = tmp_path / "run"
    engine = f"{shlex.quote(sys.executable)} {tmp_path / 'crash.py'}"
    result = tune(str(params), "--iterations", "5", *FAST, "--out", str(out), "--engine", engine)
    assert result.exit_code == 1
    assert [int(line.group(1)) for line in ITERATION.finditer(result.output)] == [1, 2]
    assert result.output.splitlines()[-1] == (
        "Error: the engines failed 3 games in a row (last: crash: engine 'plus': the process "
        "exited with return code 3); check the engine and its parameters, then run the same "
        "command to resume"
    )
    assert [pair.iteration for pair in state_of(out).pairs] == [1, 2]
    assert not (out / TUNED_FILE).exists()


@pytest.mark.parametrize(
    ("text", "args", "code", "message"),
    [
        (
            PARAMS.replace("[safe_factor]", "[safety]"),
            [],
            1,
            "params.toml: unknown parameter 'safety': the built-in engine's parameters are "
            "jumping_cannon_value, ",
        ),
        (
            PARAMS.replace("min = 1.0", "min = 0.5"),
            [],
            1,
            "params.toml: safe_factor.min = 0.5 is beyond the built-in engine's bounds (bad "
            "parameter value: safe_factor: Input should be greater than or equal to 1)",
        ),
        (PARAMS.replace("min = 1.0", "min = 3.0"), [], 1, "safe_factor: min 3 must be below max 2"),
        (
            PARAMS.replace("value = 1.2", "value = 2.5"),
            [],
            1,
            "safe_factor: value 2.5 is outside [min, max] = [1, 2]",
        ),
        (PARAMS, ["--param-format", "{name}"], 2, "must contain both {name} and {value}"),
        (PARAMS, ["--param-format", "-{nme} {value}"], 2, "names {nme}; only {name} and {value}"),
        (PARAMS, ["--engine", "'unclosed"], 1, "does not parse: No closing quotation"),
        (PARAMS, ["--iterations", "0"], 2, "Invalid value for '--iterations'"),
        (PARAMS, ["--opponent", ""], 2, "Invalid value for '--opponent': engine command is empty"),
        (PARAMS, ["--opponent", "'x"], 2, "Invalid value for '--opponent': "),
    ],
)
def test_bad_input_gets_a_specific_error(
    tmp_path: Path, text: str, args: list[str], code: int, message: str
) -> None:
    params = tmp_path / "params.toml"
    params.write_text(text)
    result = tune(str(params), "--out", str(tmp_path / "run"), *args)
    assert result.exit_code == code, result.output
    assert message in result.output
    assert not (tmp_path / "run").exists()


def test_a_tuning_run_and_other_runs_refuse_each_others_folders(tmp_path: Path) -> None:
    params = tmp_path / "params.toml"
    params.write_text(PARAMS)
    match_folder = tmp_path / "m"
    match_folder.mkdir()
    (match_folder / MATCH_FILE).write_text("{}")
    refused = tune(str(params), "--out", str(match_folder))
    assert refused.exit_code == 1
    assert (
        f"Error: {match_folder} holds a match (match.json), not a tuning run; choose another --out"
        in (refused.output)
    )
    tune_folder = tmp_path / "t"
    tune_folder.mkdir()
    (tune_folder / TUNE_FILE).write_text("{}")
    match = CliRunner().invoke(cli, ["match", "a", "b", "--out", str(tune_folder)])
    assert match.exit_code == 1
    assert f"{tune_folder} holds a tuning run (tune-settings.json), not a match" in match.output
    damaged = tune(str(params), "--out", str(tune_folder))
    assert damaged.exit_code == 1
    assert f"{tune_folder / TUNE_FILE} is damaged or not a tuning run's settings" in (
        damaged.output
    )
