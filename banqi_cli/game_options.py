"""The options that say how games are played: the rules and the clock."""

import functools
from collections.abc import Callable
from typing import Any, Final, TypeVar, cast

import click

from banqi_engine.rules import DEFAULT_RULES, PRESETS
from referee.game_setup import GameSetup
from referee.timecontrol import TimeControl

from .param_types import field_option, rules_type

F = TypeVar("F", bound=Callable[..., Any])


def rules_option(function: F) -> F:
    """``--rules NAME|FILE``, default ``olympiad``."""
    return click.option(
        "--rules",
        type=rules_type(),
        default=DEFAULT_RULES,
        show_default=True,
        help=f"Rule set: {', '.join(PRESETS)}, or a .toml/.json rule-set file.",
    )(function)


TIME_OPTIONS = [
    field_option(
        "--time",
        "time_",
        model=TimeControl,
        field="time",
        help="Seconds per side for the game.",
    ),
    field_option(
        "--increment",
        model=TimeControl,
        field="increment",
        help="Seconds added after each move.",
    ),
    field_option(
        "--move-time",
        model=TimeControl,
        field="move_time",
        help="Most seconds one move may take (default: no per-move limit).",
    ),
    field_option(
        "--margin",
        "margin_ms",
        model=TimeControl,
        field="margin_ms",
        help="Grace in ms before a time loss.",
    ),
    field_option(
        "--idle-limit",
        model=TimeControl,
        field="idle_limit",
        help="Seconds an engine that owes a move may go without using any CPU before it "
        "loses by stall (default: off; only its clock judges its thinking time).",
    ),
    field_option(
        "--stall-timeout",
        model=GameSetup,
        field="stall_timeout",
        help="Seconds an engine gets to answer anything but genmove, and to answer a "
        "move it lost on time before it counts as having stopped answering.",
    ),
]
"""The clock's options, in ``--help`` order."""

QUICK_TIME: Final = 10.0
"""Seconds a side of a match given no ``--time``: a first match one can wait for (the
platform's 900 s stays one flag away)."""


def quick_time(command: click.Command) -> click.Command:
    """``command`` with ``--time`` defaulting to :data:`QUICK_TIME` (its help says so)."""
    (option,) = (param for param in command.params if param.name == "time_")
    option.default = QUICK_TIME
    return command


def time_control_options(function: F) -> F:
    """``--time``, ``--increment``, ``--move-time``, ``--margin``, ``--idle-limit``,
    ``--stall-timeout``.

    The callback receives ``time_control`` (a TimeControl) and ``stall_timeout``.
    """

    @functools.wraps(function)
    def wrapper(
        *args: Any,
        time_: float,
        increment: float,
        move_time: float | None,
        margin_ms: int,
        idle_limit: float | None,
        **kwargs: Any,
    ) -> Any:
        kwargs["time_control"] = TimeControl(
            time=time_,
            increment=increment,
            move_time=move_time,
            margin_ms=margin_ms,
            idle_limit=idle_limit,
        )
        return function(*args, **kwargs)

    command: Any = wrapper
    for option in reversed(TIME_OPTIONS):
        command = option(command)
    return cast(F, command)
