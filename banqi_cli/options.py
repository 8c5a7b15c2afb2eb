"""Options and argument types shared by several commands."""

import functools
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar, cast

import annotated_types
import click
from pydantic import BaseModel

from banqi_engine.errors import BanqiError
from banqi_engine.rules import DEFAULT_RULES, PRESETS, RuleSet, resolve_rules
from referee.deals import KeyFileError, default_key_path, key_locations, load_or_create_key
from referee.engine_spec import EngineSpec
from referee.engine_start import EngineFactory, process_engines
from referee.errors import InputError
from referee.game_setup import GameSetup
from referee.sandbox import (
    INSTALL_HINT,
    Isolation,
    SandboxMode,
    engine_view,
    keep_referee_private,
    referee_secrets,
)
from referee.timecontrol import TimeControl

F = TypeVar("F", bound=Callable[..., Any])

RUNS_FOLDER = Path("banqi-runs")
"""Where runs keep their records by default (hidden from engines, earlier runs too)."""


class RulesType(click.ParamType):  # type: ignore[type-arg]
    """A preset name or the path of a rule-set file, converted to a RuleSet."""

    name = "RULES"

    def convert(
        self, value: Any, param: click.Parameter | None, ctx: click.Context | None
    ) -> RuleSet:
        if isinstance(value, RuleSet):
            return value
        try:
            return resolve_rules(str(value))
        except BanqiError as error:
            self.fail(str(error), param, ctx)


def rules_option(function: F) -> F:
    """``--rules NAME|FILE``, default ``olympiad``."""
    return click.option(
        "--rules",
        type=RulesType(),
        default=DEFAULT_RULES,
        show_default=True,
        help=f"Rule set: {', '.join(PRESETS)}, or a .toml/.json rule-set file.",
    )(function)


def field_option(
    *declarations: str, model: type[BaseModel], field: str, help: str
) -> Callable[[F], F]:
    """A click option whose type, bounds and default are those of a model's field."""
    info = model.model_fields[field]
    bounds: dict[str, Any] = {}
    for rule in info.metadata:
        if isinstance(rule, annotated_types.Gt):
            bounds.update(min=rule.gt, min_open=True)
        elif isinstance(rule, annotated_types.Ge):
            bounds.update(min=rule.ge)
        elif isinstance(rule, annotated_types.Lt):
            bounds.update(max=rule.lt, max_open=True)
        elif isinstance(rule, annotated_types.Le):
            bounds.update(max=rule.le)
    kind = click.IntRange(**bounds) if info.annotation is int else click.FloatRange(**bounds)
    default = info.get_default(call_default_factory=True)
    return click.option(
        *declarations, type=kind, default=default, show_default=default is not None, help=help
    )


def time_control_options(function: F) -> F:
    """``--time``, ``--increment``, ``--move-time``, ``--margin``, ``--stall-timeout``.

    The callback receives ``time_control`` (a TimeControl) and ``stall_timeout``.
    """
    options = [
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
            "--stall-timeout",
            model=GameSetup,
            field="stall_timeout",
            help="Seconds an engine gets to answer anything but genmove, to go without "
            "using any CPU while it owes a move, and to answer a move it lost on time "
            "before it counts as having stopped answering.",
        ),
    ]

    @functools.wraps(function)
    def wrapper(
        *args: Any,
        time_: float,
        increment: float,
        move_time: float | None,
        margin_ms: int,
        **kwargs: Any,
    ) -> Any:
        kwargs["time_control"] = TimeControl(
            time=time_, increment=increment, move_time=move_time, margin_ms=margin_ms
        )
        return function(*args, **kwargs)

    command: Any = wrapper
    for option in reversed(options):
        command = option(command)
    return cast(F, command)


def run_options(function: F) -> F:
    """``--seed``, ``--log-traffic``, ``--sandbox`` and ``--key-file``, shared by match and
    tournament."""
    options = [
        click.option(
            "--seed",
            type=click.IntRange(0),
            default=None,
            help="Run seed: with the same referee key, the same layouts. Default: random.",
        ),
        click.option("--log-traffic", is_flag=True, help="Write each game's DCTP transcript."),
        click.option(
            "--sandbox",
            type=click.Choice([mode.value for mode in SandboxMode]),
            default=SandboxMode.AUTO.value,
            show_default=True,
            help="Run engines isolated: auto = the best sandbox available (bubblewrap, else "
            "unshare), warning if none; required = refuse to run without one; off = plain "
            "processes.",
        ),
        click.option(
            "--key-file",
            type=click.Path(dir_okay=False, path_type=Path),
            default=None,
            help="Referee key the layouts are derived from (created if missing). "
            "Default: $BANQI_REFEREE_KEY or ~/.config/banqi/referee.key.",
        ),
    ]
    for option in reversed(options):
        function = option(function)
    return function


def referee_key(key_file: Path | None) -> bytes:
    """The referee key from ``--key-file`` or its default place; a clean error otherwise."""
    try:
        return load_or_create_key(key_file or default_key_path())
    except KeyFileError as error:
        raise click.ClickException(str(error)) from None


def seed_words(seed: int | None) -> str:
    """The run seed for a header line, only if the user gave it: a drawn seed is kept in
    the run's files, never printed where an engine could read the referee's output."""
    return "seed drawn at random" if seed is None else f"seed {seed}"


def engine_factory(
    mode: SandboxMode,
    key_file: Path | None,
    out: Path,
    engines: tuple[EngineSpec, ...],
    *,
    quiet: bool = False,
) -> EngineFactory:
    """How the run starts its engines; says once, on stderr, how they are isolated (unless
    ``quiet``; the warning that they are not isolated is always given).

    Engines cannot see the key files nor the run folder, nor (the referee being made
    non-dumpable) the referee's memory; a run that cannot give them what its mode asks, or
    an engine that would have to see a secret, is refused here.
    """
    keep_referee_private()
    hidden = referee_secrets(key_locations(key_file), [out, RUNS_FOLDER])
    try:
        factory, isolation = process_engines(mode, hidden)
        if isolation is not Isolation.NONE:
            for spec in engines:
                engine_view(spec.command, spec.cwd or Path.cwd(), spec.read_only, hidden, None)
    except InputError as error:
        raise click.ClickException(str(error)) from None
    if isolation is Isolation.NONE and mode is SandboxMode.AUTO:
        click.echo(
            f"warning: no sandbox works on this machine, engines are NOT isolated: they can "
            f"read the referee's files and outlive their games; {INSTALL_HINT}",
            err=True,
        )
    elif not quiet:
        click.echo(f"sandbox: {isolation.value} ({isolation.words})", err=True)
    return factory
