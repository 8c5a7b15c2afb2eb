"""The CLI's option defaults and bounds are the models' own, not restated."""

import annotated_types
import click
import pytest
from click.testing import CliRunner
from pydantic import BaseModel

from banqi_cli.game_options import QUICK_TIME
from banqi_cli.match_command import match_command
from banqi_cli.tournament_command import tournament_command
from referee.game_setup import GameSetup
from referee.timecontrol import TimeControl
from tournaments.config import TournamentConfig
from tournaments.match_config import MatchConfig

OPTIONS: list[tuple[click.Command, str, type[BaseModel], str]] = [
    (match_command, "games", MatchConfig, "games"),
    (tournament_command, "rounds", TournamentConfig, "rounds"),
    (tournament_command, "concurrency", TournamentConfig, "concurrency"),
    *(
        (command, parameter, TimeControl, field)
        for command in (match_command, tournament_command)
        for parameter, field in (
            ("time_", "time"),
            ("increment", "increment"),
            ("move_time", "move_time"),
            ("margin_ms", "margin_ms"),
            ("idle_limit", "idle_limit"),
        )
    ),
    (match_command, "stall_timeout", GameSetup, "stall_timeout"),
    (tournament_command, "stall_timeout", TournamentConfig, "stall_timeout"),
]


@pytest.mark.parametrize(("command", "parameter", "model", "field"), OPTIONS)
def test_an_option_takes_its_default_and_bounds_from_the_model(
    command: click.Command, parameter: str, model: type[BaseModel], field: str
) -> None:
    option = next(p for p in command.params if p.name == parameter)
    info = model.model_fields[field]
    if command is match_command and parameter == "time_":
        # a match's own short clock, so that a first match ends while one waits
        assert option.default == QUICK_TIME < info.default
    else:
        assert option.default == info.default
    bounds = {
        type(rule).__name__: getattr(rule, type(rule).__name__.lower())
        for rule in info.metadata
        if isinstance(rule, annotated_types.Gt | annotated_types.Ge | annotated_types.Le)
    }
    kind = option.type
    assert isinstance(kind, click.IntRange | click.FloatRange)
    assert kind.max == bounds["Le"]
    assert kind.min == bounds.get("Gt", bounds.get("Ge"))
    assert kind.min_open == ("Gt" in bounds)


def test_a_value_the_model_refuses_is_refused_by_the_option() -> None:
    result = CliRunner().invoke(match_command, ["a", "b", "--time", "0"])
    assert result.exit_code == 2
    assert "0<x<=86400" in result.output
