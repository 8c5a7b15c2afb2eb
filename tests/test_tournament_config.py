"""Tournament configs: TOML files, flags, their error messages, and the demo field."""

import subprocess
from pathlib import Path
from textwrap import dedent

import pytest
from tournament_capture import Captured, capture, invoke

from banqi_engine.rules import PRESETS
from referee.timecontrol import TimeControl
from tournaments.config import ConfigError, demo_engines, load_config
from tournaments.schedule import schedule

TWO_ENGINES = """
[[engines]]
name = "alpha"
command = "alpha"

[[engines]]
name = "beta"
command = "beta"
"""


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "tournament.toml"
    path.write_text(dedent(text))
    return path


def test_full_config_loads(tmp_path: Path) -> None:
    (tmp_path / "engines" / "alpha").mkdir(parents=True)
    path = write(
        tmp_path,
        """
        rounds = 3
        rules = "casual"
        seed = 42
        concurrency = 2
        stall_timeout = 2.5
        max_failures = 5

        [time]
        time = 60
        increment = 0.5
        move_time = 5
        margin_ms = 100

        [[engines]]
        name = "alpha"
        command = "./alpha --depth 4 --book 'my book.bin'"
        cwd = "engines/alpha"
        env = { ALPHA_HASH = "64", LANG = "C" }

        [[engines]]
        name = "beta"
        command = ["beta", "--fast"]
        """,
    )
    config = load_config(path)
    alpha, beta = config.engines
    assert alpha.name == "alpha"
    assert alpha.command == ("./alpha", "--depth", "4", "--book", "my book.bin")
    assert alpha.cwd == (tmp_path / "engines" / "alpha").resolve()
    assert alpha.env == {"ALPHA_HASH": "64", "LANG": "C"}
    assert beta.command == ("beta", "--fast")
    assert beta.cwd is None
    assert beta.env == {}
    assert config.rounds == 3
    assert config.rules == PRESETS["casual"]
    assert config.time_control == TimeControl(time=60, increment=0.5, move_time=5, margin_ms=100)
    assert config.seed == 42
    assert config.concurrency == 2
    assert config.stall_timeout == 2.5
    assert config.max_failures == 5
    assert config.games_total() == 6
    assert len(list(schedule(config, 42))) == 6


def test_defaults(tmp_path: Path) -> None:
    config = load_config(write(tmp_path, TWO_ENGINES))
    assert config.rounds == 1
    assert config.rules == PRESETS["olympiad"]
    assert config.time_control == TimeControl()
    assert config.seed is None
    assert config.concurrency == 1
    assert config.max_failures == 3


def test_rules_as_a_table(tmp_path: Path) -> None:
    based = load_config(
        write(tmp_path, TWO_ENGINES + '[rules]\npreset = "hong-kong"\nno_progress_limit = 40\n')
    )
    assert based.rules.capture_order == PRESETS["hong-kong"].capture_order
    assert based.rules.cannon_capture == "step"
    assert based.rules.no_progress_limit == 40
    assert based.rules.name == "custom-hong-kong"
    full = load_config(
        write(tmp_path, TWO_ENGINES + '[rules]\nname = "mine"\ncannon_move = "slide"\n')
    )
    assert full.rules.name == "mine"
    assert full.rules.cannon_move == "slide"
    assert full.rules.capture_order == PRESETS["olympiad"].capture_order


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ('colour = "red"\n' + TWO_ENGINES, "colour: unknown field"),
        (TWO_ENGINES + "[time]\nseconds = 5\n", "time.seconds: unknown field"),
        (TWO_ENGINES + "[time]\ntime = -5\n", "time.time: Input should be greater than 0"),
        (
            TWO_ENGINES.replace('command = "beta"', 'command = "beta"\ndepth = 4'),
            "engines.1.depth: unknown field",
        ),
        (
            TWO_ENGINES.replace('"beta"', '"alpha"'),
            "engines: engine names must differ; repeated: alpha",
        ),
        ("rounds = 0\n" + TWO_ENGINES, "rounds: Input should be greater than or equal to 1"),
        ('rounds = "many"\n' + TWO_ENGINES, "rounds: Input should be a valid integer"),
        ("concurrency = 0\n" + TWO_ENGINES, "concurrency: Input should be greater than or equal"),
        ("seed = -1\n" + TWO_ENGINES, "seed: Input should be greater than or equal to 0"),
        ('rules = "chess"\n' + TWO_ENGINES, "rules: unknown rule set 'chess'"),
        (
            TWO_ENGINES + '[rules]\npreset = "casual"\nno_progress_limit = 0\n',
            "rules: bad rule set in rules: no_progress_limit",
        ),
        (
            TWO_ENGINES.replace('command = "beta"', 'command = "beta \'unclosed"'),
            'engines: engine beta: engine command "beta \'unclosed" does not parse',
        ),
        (
            TWO_ENGINES.replace('command = "beta"', 'command = "  "'),
            "engines: engine beta: engine command is empty",
        ),
        (
            TWO_ENGINES.replace('command = "beta"', 'command = "beta"\nenv = { HASH = 64 }'),
            "engines.1.env.HASH: Input should be a valid string",
        ),
        (
            TWO_ENGINES.replace('name = "beta"', 'name = "be/ta"'),
            "engines.1.name: must not have",
        ),
        ("rounds = 2\n", "engines: Field required"),
        (
            '[[engines]]\nname = "solo"\ncommand = "solo"\n',
            "engines: a tournament needs 2 to 64 engines, not 1",
        ),
        ("rounds = [\n", "is not valid TOML"),
    ],
)
def test_bad_field_is_named(tmp_path: Path, text: str, expected: str) -> None:
    path = write(tmp_path, text)
    with pytest.raises(ConfigError) as error:
        load_config(path)
    message = str(error.value)
    assert str(path) in message
    assert expected in message
    assert "Tuple should have" not in message


def test_missing_file(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="cannot read"):
        load_config(tmp_path / "absent.toml")


@pytest.fixture
def captured(monkeypatch: pytest.MonkeyPatch) -> Captured:
    return capture(monkeypatch)


def test_flags_override_the_file(tmp_path: Path, captured: Captured) -> None:
    path = write(tmp_path, 'rounds = 3\nrules = "casual"\n' + TWO_ENGINES)
    code, output = invoke(tmp_path, str(path), "--rounds", "2", "--time", "30")
    assert code == 0, output
    (config,) = captured.configs
    assert config.rounds == 2
    assert config.rules == PRESETS["casual"]
    assert config.time_control == TimeControl(time=30)
    assert [e.name for e in config.engines] == ["alpha", "beta"]


def test_a_time_flag_overrides_only_its_own_field_of_the_file(
    tmp_path: Path, captured: Captured
) -> None:
    path = write(tmp_path, "[time]\ntime = 60\nmargin_ms = 50\n" + TWO_ENGINES)
    code, output = invoke(tmp_path, str(path), "--increment", "1")
    assert code == 0, output
    (config,) = captured.configs
    assert config.time_control == TimeControl(time=60, increment=1, margin_ms=50)


def test_engine_flags(tmp_path: Path, captured: Captured) -> None:
    code, output = invoke(
        tmp_path, "--engine", "a=./a --hash 64", "--engine", "b='my b'", "--seed", "3"
    )
    assert code == 0, output
    (config,) = captured.configs
    assert [(e.name, e.command) for e in config.engines] == [
        ("a", ("./a", "--hash", "64")),
        ("b", ("my b",)),
    ]
    assert config.seed == 3


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        (["--engine", "a=x 'y", "--engine", "b=b"], "does not parse"),
        (["--engine", "a=x"], "at least two engines"),
        (["a=x"], "at least two engines"),
        (["--engine", "a=x", "--engine", "a=y"], "both engines are named 'a'"),
        (["a=x", "b=y", "a=z"], "two engines are named 'a'"),
        (["a.toml", "b.toml"], "one CONFIG at most"),
    ],
)
def test_bad_engine_flags_are_usage_errors(
    tmp_path: Path, captured: Captured, args: list[str], expected: str
) -> None:
    code, output = invoke(tmp_path, *args)
    assert code != 0
    assert expected in output
    assert captured.configs == []


def test_engines_are_given_as_arguments_or_flags_named_or_not(
    tmp_path: Path, captured: Captured
) -> None:
    """One form everywhere: ``[NAME=]COMMAND``, as arguments or with ``--engine``."""
    code, output = invoke(tmp_path, "./alpha --depth 4", "b=./beta", "--engine", "./alpha")
    assert code == 0, output
    (config,) = captured.configs
    assert [(e.name, e.command) for e in config.engines] == [
        ("alpha --depth 4", ("./alpha", "--depth", "4")),
        ("b", ("./beta",)),
        ("alpha", ("./alpha",)),
    ]


def test_bad_file_is_an_error_without_traceback(tmp_path: Path, captured: Captured) -> None:
    path = write(tmp_path, "rounds = 0\n" + TWO_ENGINES)
    code, output = invoke(tmp_path, str(path))
    assert code == 1
    assert f"Error: bad tournament config in {path}: rounds" in output
    code, output = invoke(tmp_path, str(path), "--engine", "a=a", "--engine", "b=b")
    assert code == 2
    assert "not both" in output
    assert captured.configs == []


def test_demo_schedules_the_builtin_field(tmp_path: Path, captured: Captured) -> None:
    code, output = invoke(tmp_path, "--rules", "casual")
    assert code == 0, output
    (config,) = captured.configs
    assert config.engines == demo_engines()
    names = [e.name for e in config.engines]
    assert names[:2] == ["random", "greedy"]
    assert len(set(names)) == len(names) >= 2
    games = list(schedule(config, 1))
    assert len(games) == len(names) * (len(names) - 1)
    assert {e.name for g in games for e in g.setup.players} == set(names)


def test_demo_engines_answer(tmp_path: Path) -> None:
    started = [
        subprocess.Popen(
            engine.command,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            cwd=tmp_path,
        )
        for engine in demo_engines()
    ]
    for engine, process in zip(demo_engines(), started, strict=True):
        out, err = process.communicate("1 name\n2 version\n5 quit\n", timeout=60)
        assert process.returncode == 0, (engine.name, err)
        assert out.splitlines()[0].startswith("=1 "), (engine.name, out, err)
