"""Options and argument types shared by several commands."""

import functools
import math
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar, cast

import annotated_types
import click
from pydantic import BaseModel

from banqi_common.errors import InputError
from banqi_common.interrupt import run_interruptible
from banqi_engine.errors import RulesInputError
from banqi_engine.rules import DEFAULT_RULES, PRESETS, RuleSet, resolve_rules
from referee.deal_book import LoadedBook, read_deal_book
from referee.deals import KeyFileError, key_locations, load_referee_key
from referee.engine_check import EngineCheckError, check_engines
from referee.engine_spec import EngineSpec
from referee.engine_start import EngineFactory, process_engines, start_engine_process
from referee.game_setup import GameSetup
from referee.record import GameRecord
from referee.sandbox import (
    INSTALL_HINT,
    Isolation,
    SandboxMode,
    choose_isolation,
    engine_view,
    keep_referee_private,
    referee_secrets,
)
from referee.timecontrol import TimeControl
from tournaments.cluster import NEEDS_DASK, Cluster, WorkerEngines
from tournaments.runner import PlayPlace

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
        except RulesInputError as error:
            self.fail(str(error), param, ctx)


POSITION_LIKE = re.compile(r"-[-A-Za-z]*[/\s]")
"""An argument that starts like a position string whose first square is empty
(``-M-P/GX-c/...``): dashes and letters up to a ``/`` or a space, which no option has."""


class PositionCommand(click.Command):
    """A command taking a position string, which may start with ``-`` (an empty square)
    with no ``--`` before it.

    Such an argument is given to click with a leading space, so that it is never read as
    options; the position parser ignores the space.
    """

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        return super().parse_args(
            ctx, [f" {arg}" if POSITION_LIKE.match(arg) else arg for arg in args]
        )


def rules_option(function: F) -> F:
    """``--rules NAME|FILE``, default ``olympiad``."""
    return click.option(
        "--rules",
        type=RulesType(),
        default=DEFAULT_RULES,
        show_default=True,
        help=f"Rule set: {', '.join(PRESETS)}, or a .toml/.json rule-set file.",
    )(function)


class FiniteFloatRange(click.FloatRange):
    """A float within bounds that also refuses ``nan`` and the infinities (``nan`` compares
    false with both bounds, so a plain range lets it through)."""

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        number = click.FLOAT.convert(value, param, ctx)
        if not math.isfinite(number):
            self.fail(f"{value!r} is not a finite number", param, ctx)
        return super().convert(number, param, ctx)


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
    kind = click.IntRange(**bounds) if info.annotation is int else FiniteFloatRange(**bounds)
    default = info.get_default(call_default_factory=True)
    return click.option(
        *declarations, type=kind, default=default, show_default=default is not None, help=help
    )


def time_control_options(function: F) -> F:
    """``--time``, ``--increment``, ``--move-time``, ``--margin``, ``--idle-limit``,
    ``--stall-timeout``.

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
    for option in reversed(options):
        command = option(command)
    return cast(F, command)


def key_file_option(function: F) -> F:
    """``--key-file KEY``: the referee key, if not in its default place."""
    return click.option(
        "--key-file",
        type=click.Path(dir_okay=False, path_type=Path),
        default=None,
        help="Referee key the layouts are derived from (created if missing, in a folder "
        "that must exist). "
        "Default: $BANQI_REFEREE_KEY or ~/.config/banqi/referee.key.",
    )(function)


def deals_option(function: F) -> F:
    """``--deals BOOK``: deal the run from a deal book; the callback receives ``deals`` (a
    Path or None), for ``load_deal_book`` and ``engine_factory(deal_book=...)``."""
    return click.option(
        "--deals",
        type=click.Path(dir_okay=False, path_type=Path),
        default=None,
        metavar="BOOK",
        help="Deal book (written by 'banqi deals', or by hand) whose deals the run plays in "
        "order, its k-th deal from entry k, so that runs with other engines meet the same "
        "layouts. Hidden from engines. Default: layouts derived from the referee key.",
    )(function)


def load_deal_book(path: Path | None) -> LoadedBook | None:
    """The deal book of ``--deals``, read and checked (None without it); a clean error
    naming the file, the entry and what is wrong."""
    if path is None:
        return None
    try:
        return read_deal_book(path)
    except InputError as error:
        raise click.ClickException(str(error)) from None


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
        key_file_option,
    ]
    for option in reversed(options):
        function = option(function)
    return function


def referee_key(key_file: Path | None) -> bytes:
    """The referee key from ``--key-file`` or its default place; a clean error otherwise."""
    try:
        return load_referee_key(key_file)
    except KeyFileError as error:
        raise click.ClickException(str(error)) from None


def seed_words(seed: int | None) -> str:
    """The run seed for a header line, only if the user gave it: a drawn seed is kept in
    the run's files, never printed where an engine could read the referee's output."""
    return "seed drawn at random" if seed is None else f"seed {seed}"


def hidden_paths(key_file: Path | None, out: Path, deal_book: Path | None) -> list[Path]:
    """What engines must not see: the key files, the deal book, the run folders."""
    books = [deal_book] if deal_book is not None else []
    return referee_secrets([*key_locations(key_file), *books], [out, RUNS_FOLDER])


def cluster_options(function: F) -> F:
    """``--cluster`` and the TLS files that reach a secured scheduler."""
    tls_file = click.Path(exists=True, dir_okay=False, path_type=Path)
    options = [
        click.option(
            "--cluster",
            metavar="ADDRESS",
            default=None,
            help="Play each game as a task on the Dask scheduler at ADDRESS (tcp://HOST:8786, "
            "tls://HOST:8786), or local:N for N worker processes on this machine "
            "(pip install 'banqi[cluster]'). Games at once: the workers' game slots, unless "
            "--concurrency is given.",
        ),
        click.option("--tls-ca-file", type=tls_file, default=None, help="TLS: the CA file."),
        click.option("--tls-cert", type=tls_file, default=None, help="TLS: this client's cert."),
        click.option("--tls-key", type=tls_file, default=None, help="TLS: this client's key."),
    ]
    for option in reversed(options):
        function = option(function)
    return function


def make_cluster(
    address: str | None,
    tls: tuple[Path | None, Path | None, Path | None],
    mode: SandboxMode,
    hidden: Sequence[Path],
) -> Cluster | None:
    """The cluster a run's games are played on (None: here), its workers' engines
    sandboxed with ``mode``, the ``hidden`` paths out of their sight; ``tls`` (CA file, cert,
    key: all or none) secures the connection."""
    if address is None:
        if any(tls):
            raise click.UsageError("--tls-ca-file, --tls-cert and --tls-key need --cluster")
        return None
    security = None
    if any(tls):
        if not all(tls):
            raise click.UsageError("--tls-ca-file, --tls-cert and --tls-key go together")
        try:
            from distributed.security import Security
        except ImportError:
            raise click.ClickException(NEEDS_DASK) from None
        ca, cert, key = (str(path) for path in tls)
        security = Security(  # type: ignore[no-untyped-call]
            tls_ca_file=ca, tls_client_cert=cert, tls_client_key=key, require_encryption=True
        )
    click.echo(
        f"games played on the Dask cluster {address}, engines sandboxed: {mode.value}", err=True
    )
    return Cluster(address, WorkerEngines(mode, tuple(str(path) for path in hidden)), security)


def _no_status() -> str:
    return ""


@dataclass(frozen=True)
class Playing:
    """Where a command's games are played: here, engines started by ``start_engine``, or at
    ``place`` (a cluster), whose ``status`` ends each progress line."""

    start_engine: EngineFactory
    place: PlayPlace | None = None
    status: Callable[[], str] = _no_status

    def at_once(self, concurrency: int) -> str:
        """How many games at once, for a header line."""
        if self.place is None:
            return f"{concurrency} at once"
        return f"{concurrency_given() or 'as many as the cluster has game slots'} at once"


def on_cluster(
    cluster: Cluster,
    engines: Sequence[EngineSpec],
    time_control: TimeControl,
    timeout: float,
    rules: RuleSet,
) -> Playing:
    """Games played on the cluster, each engine checked on every worker first (with
    ``rules``); as many at once as ``--concurrency`` if given, else the cluster's game
    slots."""
    place = cluster.place(engines, time_control.time_ms, timeout, rules, concurrency_given())
    return Playing(start_engine_process, place, cluster.status)


def concurrency_given() -> int | None:
    """``--concurrency`` if it was given on the command line (a cluster's default is its
    game slots)."""
    ctx = click.get_current_context()
    if ctx.get_parameter_source("concurrency") != click.core.ParameterSource.COMMANDLINE:
        return None
    value: int = ctx.params["concurrency"]
    return value


def engine_factory(
    mode: SandboxMode,
    key_file: Path | None,
    out: Path,
    engines: tuple[EngineSpec, ...],
    *,
    quiet: bool = False,
    deal_book: Path | None = None,
) -> EngineFactory:
    """How the run starts its engines; says once, on stderr, how they are isolated (unless
    ``quiet``; the warning that they are not isolated is always given).

    Engines cannot see the key files, the run's ``deal_book`` nor the run folder, nor (the
    referee being made non-dumpable) the referee's memory; a run that cannot give them what
    its mode asks, or an engine that would have to see a secret, is refused here.
    """
    keep_referee_private()
    hidden = hidden_paths(key_file, out, deal_book)
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


def check_before_games(
    engines: Sequence[EngineSpec],
    start_engine: EngineFactory,
    time_control: TimeControl,
    timeout: float,
    rules: RuleSet,
) -> None:
    """Start and handshake each engine once; an engine that cannot play (or cannot play
    ``rules``) stops the run here with one line naming it, its command and the cause
    (exit 1)."""
    try:
        checks = check_engines(engines, start_engine, time_control.time_ms, timeout, rules)
        run_interruptible(checks)
    except EngineCheckError as error:
        raise click.ClickException(str(error)) from None
    except KeyboardInterrupt:
        click.echo("interrupted while checking the engines, before the first game", err=True)
        raise SystemExit(130) from None


class UntoldRules:
    """Says once per engine, on stderr, that it was not told the rules it is judged by."""

    def __init__(self) -> None:
        self.warned: set[str] = set()

    def note(self, record: GameRecord) -> None:
        """Warn about each engine of the game that was not told its rules, once per run."""
        for player in record.players:
            if player.rules_told is False and player.name not in self.warned:
                self.warned.add(player.name)
                click.echo(
                    f"warning: engine {player.name!r} does not take the rule_set command, so it "
                    f"was not told the rules it is judged by ({record.rules.name}); its illegal "
                    "moves under them lose games",
                    err=True,
                )


def engine_out(name: str, remaining: int | None, last: str) -> None:
    """Say on stderr that an engine failed too many games in a row and is out of the run
    (``remaining`` of its games forfeited, or None: every game from now on)."""
    games = "games from now on" if remaining is None else f"{remaining} remaining games"
    click.echo(
        f"ENGINE FAILING: {name} failed too many games in a row (last: {last}); its "
        f"{games} are forfeited",
        err=True,
    )


def live_views_safe(mode: SandboxMode, concurrency: int) -> bool:
    """Whether a run may write its games' live views: engines sandboxed (they cannot see the
    run folder), or one game at a time (no game of a deal is played beside another)."""
    return concurrency == 1 or choose_isolation(mode) is not Isolation.NONE
