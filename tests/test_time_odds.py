"""Per-engine time controls (time odds): the override, the config, the flags, the schedule,
the clock, a real game's handshake, clocks and record."""

import asyncio
import json
import re
from pathlib import Path

import pytest
from click.testing import CliRunner
from in_process_engines import engine_spec, in_process
from pydantic import ValidationError
from tournament_capture import capture

import banqi_cli.tournament_command as command_module
from banqi_engine.rules import PRESETS
from referee.deals import deal_secret
from referee.game_runner import play_game
from referee.game_setup import GameSetup
from referee.record import GameRecord, read_record, write_record
from referee.timecontrol import Clock, TimeControl, TimeOverride
from tournaments.config import ConfigError, TournamentConfig, load_config
from tournaments.schedule import schedule

RUN_TIME = TimeControl(time=60, increment=1, margin_ms=300)

ODDS = """
[time]
time = 60
increment = 1
margin_ms = 300

[[engines]]
name = "strong"
command = "strong"
time = { time = 20, move_time = 2 }

[[engines]]
name = "weak"
command = "weak"

[[engines]]
name = "same"
command = "same"
time = { increment = 1 }
"""


def test_an_override_sets_only_its_own_fields() -> None:
    assert TimeOverride(time=20).over(RUN_TIME) == TimeControl(time=20, increment=1, margin_ms=300)
    assert TimeOverride().over(RUN_TIME) == RUN_TIME
    with pytest.raises(ValidationError):
        TimeOverride(margin_ms=-1)


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "odds.toml"
    path.write_text(text)
    return path


def test_an_engines_own_time_is_laid_over_the_runs(tmp_path: Path) -> None:
    config = load_config(write(tmp_path, ODDS))
    assert config.time_control == RUN_TIME
    assert config.own_time(0) == TimeControl(time=20, increment=1, move_time=2, margin_ms=300)
    assert config.own_time(1) is None
    assert config.own_time(2) is None  # the same as the run's: no odds


@pytest.mark.parametrize(
    ("table", "expected"),
    [
        ("{ time = 0 }", "engines.0.time.time: Input should be greater than 0"),
        ("{ seconds = 5 }", "engines.0.time.seconds: unknown field"),
    ],
)
def test_a_bad_own_time_is_named(tmp_path: Path, table: str, expected: str) -> None:
    text = ODDS.replace("{ time = 20, move_time = 2 }", table)
    with pytest.raises(ConfigError) as error:
        load_config(write(tmp_path, text))
    assert expected in str(error.value)


def test_each_seat_of_the_schedule_has_its_engines_time(tmp_path: Path) -> None:
    config = load_config(write(tmp_path, ODDS))
    strong = config.own_time(0)
    for game in schedule(config, 1):
        for seat, spec in enumerate(game.setup.players):
            own = strong if spec.name == "strong" else None
            assert game.setup.own_time[seat] == own
            assert game.setup.time_control_of(seat) == own or RUN_TIME
        assert game.setup.time_control == RUN_TIME


def built(monkeypatch: pytest.MonkeyPatch, tmp_path: Path, *flags: str) -> TournamentConfig:
    captured = capture(monkeypatch)
    arguments = [str(write(tmp_path, ODDS)), *flags, "--sandbox", "off"]
    arguments += ["--out", str(tmp_path / "run"), "--key-file", str(tmp_path / "key")]
    result = CliRunner().invoke(command_module.tournament_command, arguments)
    assert result.exit_code == 0, result.output
    (config,) = captured.configs
    return config


def test_time_flags_set_the_runs_time_and_an_engines_own_fields_still_win(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    config = built(monkeypatch, tmp_path, "--time", "90", "--margin", "100")
    assert config.time_control == TimeControl(time=90, increment=1, margin_ms=100)
    assert config.own_time(0) == TimeControl(time=20, increment=1, move_time=2, margin_ms=100)
    assert config.own_time(1) is None


def test_clocks_run_by_each_sides_own_control() -> None:
    clock = Clock((TimeControl(time=10, increment=2, margin_ms=0), TimeControl(time=5)))
    assert clock.charge(0, 1.0) and clock.charge(1, 1.0)
    assert clock.remaining_ms(0) == 11_000 and clock.remaining_ms(1) == 4_000
    assert clock.allowance(0) == 11.0 and clock.allowance(1) == 4.2
    limited = Clock((TimeControl(time=10, move_time=0.5), TimeControl(time=10)))
    assert (limited.limit(0), limited.limit(1)) == (0.5, 10.0)


def odds_game() -> tuple[GameRecord, str]:
    """A game of our engine where the first seat has 20 s and 1 s a move, the second the
    game's 60 s; its record and transcript."""
    own = TimeControl(time=20, increment=1)
    setup = GameSetup(
        game_id="odds",
        players=(engine_spec("fast", "--level", "1"), engine_spec("slow", "--level", "0")),
        first=0,
        deal="1",
        seed=1,
        rules=PRESETS["casual"],
        time_control=TimeControl(time=60),
        stall_timeout=5,
        own_time=(own, None),
    )
    secret = deal_secret(b"k" * 32, setup.seed, setup.deal)
    played = asyncio.run(play_game(setup, secret, keep_traffic=True, start_engine=in_process()))
    assert played.transcript is not None
    return played.record, played.transcript


def test_a_game_with_time_odds_tells_each_side_its_own_time_and_records_it(
    tmp_path: Path,
) -> None:
    record, transcript = odds_game()
    told = dict(re.findall(r"\[(\w+)\] > 15 time_settings (\d+)", transcript))
    assert told == {"fast": "20000", "slow": "60000"}
    first, second = record.plies[0], record.plies[1]
    assert first.clocks_ms == (20_000 - first.ms + 1_000, 60_000)
    assert second.clocks_ms[1] == 60_000 - second.ms
    assert record.players[0].time_control == TimeControl(time=20, increment=1)
    assert record.players[1].time_control is None
    assert record.time_control == TimeControl(time=60)

    path = tmp_path / "odds.json"
    write_record(record, path)
    players = json.loads(path.read_text())["players"]
    assert players[0]["time_control"]["time"] == 20
    assert "time_control" not in players[1]
    assert read_record(path) == record


def test_a_record_without_time_odds_is_written_and_read_as_before(tmp_path: Path) -> None:
    record, _ = odds_game()
    shared = tuple(p.model_copy(update={"time_control": None}) for p in record.players)
    even = record.model_copy(update={"players": shared})
    path = tmp_path / "even.json"
    write_record(even, path)
    data = json.loads(path.read_text())
    assert all("time_control" not in player for player in data["players"])
    assert read_record(path) == even
