"""SPSA for ``banqi tune``: the gain sequences, the perturbations and updates, a noisy
objective it must climb, the parameter files, the engine's ``--param``/``--params``, and how
parameters become command-line arguments. No engine process is started but one."""

import math
import random
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from pydantic import ValidationError

from banqi_cli.main import cli
from banqi_engine import players
from banqi_engine.eval_params import DEFAULT_PARAMS, EvalParams, params_with
from banqi_engine.evaluation import Evaluator
from banqi_engine.players import Player
from banqi_engine.position import parse_position
from banqi_engine.rules import RuleSet, resolve_rules
from referee.engine_spec import EngineSpec
from referee.reasons import Reason
from tournaments.tune import (
    ALPHA,
    GAMMA,
    PairResult,
    ParamFileError,
    Spsa,
    TuneGame,
    TuneParam,
    default_params,
    param_file_text,
    read_param_file,
    read_param_values,
)
from tournaments.tune_run import (
    DEFAULT_PARAM_FORMAT,
    TuneConfig,
    check_param_format,
    iteration_setups,
    param_args,
)

PARAMS = {
    "a": TuneParam(value=2.0, min=0.0, max=10.0, c_end=0.5, r_end=0.02),
    "b": TuneParam(value=4.0, min=-5.0, max=5.0, c_end=0.5, r_end=0.02),
    "c": TuneParam(value=0.9, min=0.0, max=1.0, c_end=0.05, r_end=0.02),
}
CANNONS = "XpXn/XpG-/Xn-X/XXX-/XX-P/-XK-/NXXX/C--C b 01220021111012"
"""A position with face-up cannons, whose value the evaluation weighs."""


def test_the_gains_follow_fishtests_formulas() -> None:
    n = 1000
    spsa = Spsa(PARAMS, n, seed=1)
    big_a = 0.1 * n
    assert spsa.big_a == big_a
    for name, param in PARAMS.items():
        c = param.c_end * n**GAMMA
        a = param.r_end * param.c_end**2 * (big_a + n) ** ALPHA
        for k in (1, 2, 17, 500, n):
            assert spsa.c_k(name, k) == pytest.approx(c / k**GAMMA, rel=1e-12)
            assert spsa.a_k(name, k) == pytest.approx(a / (big_a + k) ** ALPHA, rel=1e-12)
            assert spsa.r_k(name, k) == pytest.approx(
                spsa.a_k(name, k) / spsa.c_k(name, k) ** 2, rel=1e-12
            )
        # At the last iteration the perturbation is c_end and the learning rate r_end.
        assert spsa.c_k(name, n) == pytest.approx(param.c_end)
        assert spsa.r_k(name, n) == pytest.approx(param.r_end)
        assert spsa.c_k(name, 1) > spsa.c_k(name, 2) > spsa.c_k(name, n)
    assert (ALPHA, GAMMA) == (0.602, 0.101)


def test_the_rademacher_vector_is_seeded_by_run_and_iteration() -> None:
    spsa = Spsa(PARAMS, 100, seed=7)
    vectors = [spsa.delta(k) for k in range(1, 201)]
    assert all(set(v) == set(PARAMS) and set(v.values()) <= {-1, 1} for v in vectors)
    assert vectors == [Spsa(PARAMS, 100, seed=7).delta(k) for k in range(1, 201)]
    assert vectors != [Spsa(PARAMS, 100, seed=8).delta(k) for k in range(1, 201)]
    assert len({tuple(v.values()) for v in vectors}) == 8  # every sign pattern turns up
    for name in PARAMS:
        plus = sum(1 for v in vectors if v[name] == 1)
        assert 70 < plus < 130


def test_perturbation_and_update_are_clipped_to_the_bounds() -> None:
    spsa = Spsa(PARAMS, 100, seed=3)
    theta = {"a": 2.0, "b": 4.9, "c": 0.01}
    k = 5
    delta = spsa.delta(k)
    plus, minus = spsa.perturbed(theta, k)
    for name, param in PARAMS.items():
        step = spsa.c_k(name, k) * delta[name]
        assert plus[name] == param.clip(theta[name] + step)
        assert minus[name] == param.clip(theta[name] - step)
    assert 5.0 in (plus["b"], minus["b"]) and 0.0 in (plus["c"], minus["c"])
    updated = spsa.updated(theta, k, 1.5)
    for name, param in PARAMS.items():
        moved = spsa.r_k(name, k) * spsa.c_k(name, k) * 1.5 * delta[name]
        assert updated[name] == pytest.approx(param.clip(theta[name] + moved))
    # A huge result pushes each parameter to the bound on its side of delta, no further.
    pushed = spsa.updated(theta, k, 2.0)
    for _ in range(2000):
        pushed = spsa.updated(pushed, k, 2.0)
    for name, param in PARAMS.items():
        assert pushed[name] == (param.max if delta[name] == 1 else param.min)
    assert spsa.updated(theta, k, 0.0) == theta


def test_whole_number_parameters_are_played_rounded() -> None:
    depth = TuneParam(value=5.0, min=1.0, max=9.0, c_end=0.8, r_end=0.02, integer=True)
    spsa = Spsa({"depth": depth}, 10, seed=1)
    plus, minus = spsa.perturbed({"depth": 5.2}, 1)
    assert plus["depth"].is_integer() and minus["depth"].is_integer()
    assert plus["depth"] != minus["depth"]
    assert spsa.updated({"depth": 5.2}, 1, 1.0)["depth"] != round(5.2)  # theta stays real
    with pytest.raises(ValueError, match="must be whole"):
        TuneParam(value=1.0, min=0.5, max=9.0, c_end=1.0, r_end=0.02, integer=True)


def _distance(theta: dict[str, float], optimum: dict[str, float]) -> float:
    return math.sqrt(
        sum(((theta[n] - optimum[n]) / (p.max - p.min)) ** 2 for n, p in PARAMS.items())
    )


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_spsa_climbs_a_noisy_objective_towards_its_optimum(seed: int) -> None:
    """Pairs of games scored by chance: the side nearer the optimum wins more often, 40% of
    games are drawn; 1000 iterations at the starting file's c_end and r_end."""
    optimum = {"a": 7.0, "b": -1.0, "c": 0.3}

    def strength(values: dict[str, float]) -> float:
        return -8 * _distance(values, optimum) ** 2

    chance = random.Random(seed)
    spsa = Spsa(PARAMS, 1000, seed)
    theta = {name: param.value for name, param in PARAMS.items()}
    start = _distance(theta, optimum)
    for k in range(1, 1001):
        plus, minus = spsa.perturbed(theta, k)
        win = 0.6 / (1 + math.exp(strength(minus) - strength(plus)))
        result = 0.0
        for _ in range(2):
            draw = chance.random()
            result += 0 if draw < 0.4 else 1 if draw < 0.4 + win else -1
        theta = spsa.updated(theta, k, result)
    assert _distance(theta, optimum) < 0.4 * start
    for name, param in PARAMS.items():
        assert abs(theta[name] - optimum[name]) < abs(param.value - optimum[name])


def write(path: Path, text: str) -> Path:
    path.write_text(text, encoding="utf-8")
    return path


TABLE = "[safe_factor]\nvalue = 1.5\nmin = 1.0\nmax = 2.0\nc_end = 0.05\nr_end = 0.02\n"


def test_a_parameter_file_reads_in_its_order(tmp_path: Path) -> None:
    text = TABLE + "\n[other_name]\nvalue = 3\nmin = 0\nmax = 10\nc_end = 1\nr_end = 0.002\n"
    params = read_param_file(write(tmp_path / "p.toml", text))
    assert list(params) == ["safe_factor", "other_name"]
    assert params["other_name"] == TuneParam(value=3, min=0, max=10, c_end=1, r_end=0.002)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("", "has no parameters"),
        ("[x\n", "is not valid TOML"),
        ("x = 1\n", "x must be a table [x] with value, min, max, c_end and r_end"),
        (TABLE.replace("min = 1.0", "min = 2.5"), "min 2.5 must be below max 2"),
        (TABLE.replace("max = 2.0", "max = 1.0"), "min 1 must be below max 1"),
        (TABLE.replace("value = 1.5", "value = 3"), "value 3 is outside [min, max] = [1, 2]"),
        (TABLE.replace("c_end = 0.05", "c_end = 0"), "safe_factor.c_end: Input should be greater"),
        (TABLE.replace("c_end = 0.05", "c_end = 5"), "c_end 5 is larger than the whole range"),
        (TABLE.replace("r_end = 0.02\n", ""), "safe_factor.r_end: Field required"),
        (TABLE.replace("1.5", '"1.5"'), "safe_factor.value: Input should be a valid number"),
        (TABLE.replace("1.5", "nan"), "safe_factor.value: Input should be a finite number"),
        (TABLE + "step = 1\n", "safe_factor.step: Extra inputs are not permitted"),
    ],
)
def test_a_bad_parameter_file_is_refused_saying_what_is_wrong(
    tmp_path: Path, text: str, message: str
) -> None:
    path = write(tmp_path / "p.toml", text)
    with pytest.raises(ParamFileError) as refused:
        read_param_file(path)
    assert message in str(refused.value)
    assert str(path) in str(refused.value)


def test_a_missing_parameter_file_is_named(tmp_path: Path) -> None:
    with pytest.raises(ParamFileError, match=r"cannot read the parameter file .*: No such file"):
        read_param_file(tmp_path / "none.toml")


def test_the_starting_file_is_every_evaluation_parameter_at_its_default(tmp_path: Path) -> None:
    params = default_params()
    assert list(params) == list(EvalParams.model_fields)
    for name, param in params.items():
        assert param.value == getattr(DEFAULT_PARAMS, name)
        assert param.c_end == pytest.approx((param.max - param.min) / 20)
        assert param.r_end == 0.02
        params_with([f"{name}={param.min!r}", f"{name}={param.max!r}"])  # the engine's bounds
    text = param_file_text(params, "a header\n\nover lines")
    assert text.startswith("# a header\n#\n# over lines\n")
    assert f"# {EvalParams.model_fields['safe_factor'].description}\n[safe_factor]\n" in text
    assert read_param_file(write(tmp_path / "p.toml", text)) == params


def test_a_file_written_reads_back_the_same_also_odd_names(tmp_path: Path) -> None:
    params = {
        "Hash Size": TuneParam(value=1 / 3, min=-1e-5, max=1e20, c_end=0.1, r_end=1e-4),
        'q"uote': TuneParam(value=2.0, min=1.0, max=3.0, c_end=0.1, r_end=0.1, integer=True),
    }
    assert read_param_file(write(tmp_path / "p.toml", param_file_text(params))) == params


def test_values_come_from_a_flat_file_or_a_tune_file(tmp_path: Path) -> None:
    flat = write(tmp_path / "flat.toml", "safe_factor = 1.5\nmobility_weight = 1\n")
    assert read_param_values(flat) == {"safe_factor": 1.5, "mobility_weight": 1.0}
    mixed = write(tmp_path / "t.toml", "chase_weight = 0.7\n" + TABLE)
    assert read_param_values(mixed) == {"chase_weight": 0.7, "safe_factor": 1.5}
    for bad, message in [
        ('x = "1"', "x = '1' is neither a number nor a [x] table"),
        ("x = true", "x = True is neither a number nor a [x] table"),
        ("x = inf", "x = inf is not a finite number"),
        ("[x]\nvalue = 1", "x.min: Field required"),
    ]:
        with pytest.raises(ParamFileError, match=message.replace("[", r"\[")):
            read_param_values(write(tmp_path / "bad.toml", bad))


def test_parameters_become_arguments_by_the_format() -> None:
    values = {"safe_factor": 1.25, "depth": 6.0, "Hash Size": 0.5}
    assert param_args(DEFAULT_PARAM_FORMAT, values) == [
        *("--param", "safe_factor=1.25", "--param", "depth=6", "--param", "Hash Size=0.5")
    ]
    assert param_args("-{name} {value}", {"a": 1.5, "b": -2.0}) == ["-a", "1.5", "-b", "-2"]
    assert param_args("'--set={name} = {value:.1f}'", {"x": 0.25}) == ["--set=x = 0.2"]
    assert param_args("--{name}={value:.0f}", {"x": 2.5}) == ["--x=2"]


@pytest.mark.parametrize(
    ("param_format", "message"),
    [
        ("{name}", "must contain both {name} and {value}"),
        ("--fixed", "must contain both {name} and {value}"),
        ("{name}={val}", "names {val}; only {name} and {value} are filled in"),
        ("{name} {0}", "names {0}"),
        ("{name}={value:d}", "cannot format a value: Unknown format code 'd'"),
        ("{name}={value!z}", "cannot format a value"),
        ("{name}={value", "expected '}' before end of string"),
        ('"{name} {value}', "does not split like a shell: No closing quotation"),
    ],
)
def test_a_bad_format_is_refused(param_format: str, message: str) -> None:
    with pytest.raises(ValueError) as refused:
        check_param_format(param_format)
    assert message in str(refused.value)


def test_good_formats_pass() -> None:
    for good in (DEFAULT_PARAM_FORMAT, "-{name} {value}", "--{name}={value:.0f}", "{name}:{value}"):
        check_param_format(good)


def engine(monkeypatch: pytest.MonkeyPatch, *args: str) -> tuple[Any, EvalParams | None]:
    """``banqi engine ARGS`` in-process, its DCTP loop left out; the params its player got."""
    made: list[EvalParams] = []
    real = players.make_player

    def make_player(level: int, seed: int | None, rules: RuleSet, params: EvalParams) -> Player:
        made.append(params)
        return real(level, seed, rules, params)

    monkeypatch.setattr("banqi_cli.engine.make_player", make_player)
    monkeypatch.setattr("banqi_cli.engine.run_engine", lambda engine, stdin, stdout: 0)
    result = CliRunner().invoke(cli, ["engine", "--level", "3", *args])
    assert "Traceback" not in result.output
    return result, made[0] if made else None


def test_the_engine_plays_with_its_params_file_then_each_param(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    tuned = write(tmp_path / "tuned.toml", "jumping_cannon_value = 40\n" + TABLE)
    result, params = engine(
        monkeypatch,
        "--params",
        str(tuned),
        "--param",
        "safe_factor=1.7",
        "--param",
        "chase_weight=2",
    )
    assert result.exit_code == 0, result.output
    assert params == DEFAULT_PARAMS.model_copy(
        update={"safe_factor": 1.7, "jumping_cannon_value": 40.0, "chase_weight": 2.0}
    )
    rules = resolve_rules("olympiad")
    position = parse_position(CANNONS)
    assert Evaluator(rules, params).evaluate(position) != Evaluator(rules).evaluate(position)
    assert engine(monkeypatch)[1] == DEFAULT_PARAMS


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--param", "nope=1"], "Invalid value for '--param': unknown parameter 'nope'; allowed: "),
        (["--param", "safe_factor"], "bad parameter 'safe_factor': expected NAME=VALUE"),
        (["--param", "safe_factor=x"], "parameter safe_factor: 'x' is not a number"),
        (["--param", "safe_factor=9"], "safe_factor: Input should be less than or equal to 2"),
        (["--params", "{dir}/none.toml"], "cannot read the parameter file"),
        (["--params", "{dir}/bad.toml"], "{dir}/bad.toml: unknown parameter 'nope'; allowed: "),
    ],
)
def test_bad_engine_parameters_are_usage_errors(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, args: list[str], message: str
) -> None:
    write(tmp_path / "bad.toml", "nope = 1\n")
    result, params = engine(monkeypatch, *(a.format(dir=tmp_path) for a in args))
    assert result.exit_code == 2
    assert params is None
    assert message.format(dir=tmp_path) in result.output
    if "allowed" in message:
        assert ", ".join(EvalParams.model_fields) in result.output


def test_the_engine_process_takes_its_parameters(tmp_path: Path) -> None:
    """``banqi-engine --param`` as an arena starts it: it answers; a bad one exits 2."""
    engine_main = "from banqi_cli.engine import main; main()"
    tuned = write(tmp_path / "tuned.toml", TABLE)
    good = subprocess.run(
        [sys.executable, "-c", engine_main, "--params", str(tuned), "--param", "chase_weight=1"],
        input=b"1 protocol_version\n2 quit\n",
        capture_output=True,
        timeout=30,
        check=False,
    )
    assert (good.returncode, good.stderr) == (0, b"")
    assert good.stdout.startswith(b"=1 ")
    bad = subprocess.run(
        [sys.executable, "-c", engine_main, "--param", "chase_weight=7"],
        capture_output=True,
        timeout=30,
        check=False,
    )
    assert bad.returncode == 2 and bad.stdout == b""
    assert b"chase_weight: Input should be less than or equal to 3" in bad.stderr


def _tune_config(opponent: tuple[str, ...] | None) -> TuneConfig:
    return TuneConfig(
        rules=resolve_rules("casual"),
        params={"safe_factor": TuneParam(value=1.2, min=1.0, max=2.0, c_end=0.05, r_end=0.02)},
        iterations=10,
        seed=3,
        out=Path("run"),
        opponent=opponent,
    )


def test_an_iteration_is_a_pair_or_against_an_opponent_two_on_the_same_deal() -> None:
    plus = EngineSpec(name="plus", command=("p",))
    minus = EngineSpec(name="minus", command=("m",))
    alone = iteration_setups(_tune_config(None), 7, plus, minus)
    assert [(s.game_id, s.deal, s.first) for s in alone] == [
        ("i000007-1", "7", 0),
        ("i000007-2", "7", 1),
    ]
    assert [s.players for s in alone] == [(plus, minus), (plus, minus)]
    against = iteration_setups(_tune_config(("strong", "--fast")), 7, plus, minus)
    opponent = EngineSpec(name="opponent", command=("strong", "--fast"))
    assert [(s.game_id, s.deal, s.first, s.players) for s in against] == [
        ("i000007-1", "7", 0, (plus, opponent)),
        ("i000007-2", "7", 1, (plus, opponent)),
        ("i000007-3", "7", 0, (minus, opponent)),
        ("i000007-4", "7", 1, (minus, opponent)),
    ]


def test_a_tuning_game_has_a_tuned_engine_in_it() -> None:
    reason = next(iter(Reason))
    TuneGame(plus_points=1.0, minus_points=None, reason=reason, plies=3)
    with pytest.raises(ValidationError, match="has the plus or the minus engine in it"):
        TuneGame(plus_points=None, minus_points=None, reason=reason, plies=3)


def test_an_iteration_holds_the_games_its_schedule_plays() -> None:
    reason = next(iter(Reason))

    def game(plus: float | None, minus: float | None) -> TuneGame:
        return TuneGame(plus_points=plus, minus_points=minus, reason=reason, plies=9)

    both, plus, minus = game(1.0, 0.0), game(1.0, None), game(None, 0.5)
    PairResult(iteration=1, result=0.0, games=(both, both))
    PairResult(iteration=1, result=1.0, games=(plus, plus, minus, minus))
    for games in [(plus, plus), (both, both, both), (plus, minus, plus, minus), (both,) * 4]:
        with pytest.raises(ValidationError, match="an iteration is two games between plus"):
            PairResult(iteration=1, result=0.0, games=games)
