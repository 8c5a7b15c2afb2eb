"""``banqi tournament``: a round-robin or a gauntlet between engine executables, resumable,
and extendable with more rounds."""

import os
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import click

from banqi_common.errors import InputError
from banqi_engine.errors import RulesInputError
from banqi_engine.rules import RuleSet
from referee.deal_book import LoadedBook
from referee.engine_spec import split_command
from referee.engine_start import EngineFactory
from referee.record import GameRecord
from referee.timecontrol import TimeControl
from tournaments.cluster import Cluster
from tournaments.config import (
    TournamentConfig,
    TournamentFormat,
    config_from_data,
    demo_engines,
    load_config,
)
from tournaments.play import prepare, run_tournament
from tournaments.reports import format_standings_text
from tournaments.results import Standings
from tournaments.run_folder import existing_records, locked_run
from tournaments.runner import RunEvents, RunOptions
from tournaments.state import start_run_folder

from .options import (
    RUNS_FOLDER,
    Playing,
    UntoldRules,
    check_before_games,
    cluster_options,
    deals_option,
    engine_factory,
    engine_out,
    field_option,
    hidden_paths,
    live_views_safe,
    load_deal_book,
    make_cluster,
    on_cluster,
    referee_key,
    rules_option,
    run_options,
    seed_words,
    time_control_options,
)

DEFAULT_OUT = RUNS_FOLDER / "tournament"
DEMO_DEFAULTS: dict[str, Any] = {
    "time_control": TimeControl(time=10.0),
    "concurrency": max(1, min(4, os.cpu_count() or 1)),
}
"""The demo's own defaults (any flag given still wins): short games, one per core."""


def _clock(seconds: float) -> str:
    seconds = int(seconds)
    return f"{seconds // 3600}:{seconds // 60 % 60:02d}:{seconds % 60:02d}"


def _engines_from_flags(values: tuple[str, ...]) -> list[dict[str, Any]]:
    engines = []
    for value in values:
        name, sep, command = value.partition("=")
        if not sep or not name.strip() or not command.strip():
            raise click.BadParameter(
                f"{value!r}: expected NAME=COMMAND, e.g. alpha='./alpha --depth 4'",
                param_hint="--engine",
            )
        try:
            engines.append({"name": name.strip(), "command": split_command(command)})
        except InputError as error:
            raise click.BadParameter(str(error), param_hint="--engine") from None
    return engines


def _from_command_line(ctx: click.Context, name: str) -> bool:
    return ctx.get_parameter_source(name) == click.core.ParameterSource.COMMANDLINE


TIME_PARAMETERS = {
    "time_": "time",
    "increment": "increment",
    "move_time": "move_time",
    "margin_ms": "margin_ms",
    "idle_limit": "idle_limit",
}
"""The time options and the TimeControl field each sets."""
RENAMED = {"format": "format_"}
"""Config fields whose option's parameter has another name (``format`` is a builtin)."""


def _build_config(
    ctx: click.Context, config_file: Path | None, engine: tuple[str, ...], **flags: Any
) -> TournamentConfig:
    """The config from CONFIG or from the flags; a flag given on the command line wins
    over the file or the demo's defaults, a time option only over its own field of the
    run's time control (an engine's own ``time`` table still wins for that engine)."""
    given = {
        name: value
        for name, value in flags.items()
        if name != "time_control" and _from_command_line(ctx, RENAMED.get(name, name))
    }
    time_given = {
        field: ctx.params[parameter]
        for parameter, field in TIME_PARAMETERS.items()
        if _from_command_line(ctx, parameter)
    }
    if config_file is not None:
        if engine:
            raise click.UsageError("give engines either in CONFIG or with --engine, not both")
        base = load_config(config_file)
        data: dict[str, Any] = base.model_dump()
    elif engine:
        data = {**flags, "engines": _engines_from_flags(engine)}
        if len(data["engines"]) < 2:
            raise click.UsageError("a tournament needs at least two engines (--engine twice)")
    else:
        data = {**flags, **DEMO_DEFAULTS, "engines": list(demo_engines())}
    data.update(given)
    if time_given:
        data["time_control"] = {
            **TimeControl.model_validate(data["time_control"]).model_dump(),
            **time_given,
        }
    return config_from_data(data, str(config_file) if config_file else "the command line")


class Progress:
    """Progress lines for a long run: done/total, times, leader, faults."""

    def __init__(
        self, total: int, already: int, quiet: bool, status: Callable[[], str] = lambda: ""
    ) -> None:
        self.total = total
        self.status = status
        self.already = already
        self.played = 0
        self.start = time.monotonic()
        self.quiet = quiet
        self.untold = UntoldRules()

    def game_done(self, record: GameRecord, standings: Standings) -> None:
        self.played += 1
        self.untold.note(record)
        if self.quiet:
            return
        done = self.already + self.played
        elapsed = time.monotonic() - self.start
        left = (self.total - done) * elapsed / self.played
        a, b = (p.name for p in record.players)
        leader = standings.rows[0]
        fault = f"  FAULT {record.detail}" if record.loser_failed else ""
        click.echo(
            f"[{done}/{self.total}] {record.game_id} {a} {record.score} {b} "
            f"{record.reason.value} ({record.end_ply} plies) | elapsed {_clock(elapsed)}, "
            f"left ~{_clock(left)} | leader {leader.name} {leader.points:g}/{leader.games}"
            f"{fault}{self.status()}"
        )


def play_tournament(
    config: TournamentConfig,
    out: Path,
    key: bytes,
    where: EngineFactory | Cluster,
    log_traffic: bool,
    quiet: bool,
    book: LoadedBook | None = None,
) -> Standings:
    """Start or resume the run in ``out`` and play it to the end, with progress lines; its
    engines started by a factory here, or on a cluster's workers.

    The folder (and the deal ``book``, if any) is checked first, then the engines (on a
    cluster, on every worker as the run starts); only then is a new run's state written.
    """
    state, games = prepare(config, out, book)
    already = len(existing_records(out, [g.setup.game_id for g in games]))
    run = state.config
    if isinstance(where, Cluster):
        play = on_cluster(where, run.engines, run.time_control, run.stall_timeout, run.rules)
    else:
        check_before_games(run.engines, where, run.time_control, run.stall_timeout, run.rules)
        play = Playing(where)
    start_run_folder(out, state)
    if not quiet:
        click.echo(
            f"{_field_words(run)}; {len(games)} games ({run.rounds} rounds), "
            f"rules {run.rules.name}, time {_time_words(run)}, "
            f"{seed_words(config.seed)}, {play.at_once(run.concurrency)}, run folder {out}"
            + (f"; resuming with {already} games done" if already else "")
        )
    progress = Progress(len(games), already, quiet, play.status)
    events = RunEvents(progress.game_done, engine_out)
    options = RunOptions(
        key=key,
        out=out,
        events=events,
        log_traffic=log_traffic,
        start_engine=play.start_engine,
        book=book,
        play_on=play.place,
        live_views=live_views_safe(state.config.sandbox, state.config.concurrency),
    )
    return run_tournament(state, games, options)


def _field_words(config: TournamentConfig) -> str:
    """``tournament: a, b, c`` or ``gauntlet: a against b, c``."""
    gauntlet = config.gauntlet_names()
    if not gauntlet:
        return "tournament: " + ", ".join(e.name for e in config.engines)
    others = [e.name for e in config.engines if e.name not in gauntlet]
    return f"gauntlet: {', '.join(gauntlet)} against {', '.join(others)}"


def _time_words(config: TournamentConfig) -> str:
    """The run's time control, and each engine's own, e.g. ``60s+0s (alpha 30s+0s)``."""
    own = [
        f"{entry.name} {own_time.describe()}"
        for index, entry in enumerate(config.engines)
        if (own_time := config.own_time(index)) is not None
    ]
    return config.time_control.describe() + (f" ({', '.join(own)})" if own else "")


@click.command("tournament")
@click.argument(
    "config_file",
    metavar="[CONFIG.toml]",
    required=False,
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
)
@click.option(
    "--engine",
    multiple=True,
    metavar="NAME=COMMAND",
    help="An engine (repeat). Without engines or CONFIG: the built-in demo field.",
)
@field_option(
    "--rounds",
    model=TournamentConfig,
    field="rounds",
    help="In each round every pairing plays one hidden layout twice, seats swapped. More "
    "rounds than a run has resume it with the new rounds added.",
)
@click.option(
    "--format",
    "format_",
    type=click.Choice([f.value for f in TournamentFormat]),
    default=TournamentFormat.ROUND_ROBIN.value,
    show_default=True,
    help="round-robin: every two engines meet; gauntlet: the first engine (or those marked "
    "gauntlet = true in CONFIG) meets every other engine.",
)
@field_option(
    "--concurrency",
    model=TournamentConfig,
    field="concurrency",
    help="Games played at once (the demo: one per core, up to 4).",
)
@rules_option
@time_control_options
@run_options
@deals_option
@cluster_options
@click.option(
    "--out",
    type=click.Path(file_okay=False, path_type=Path),
    default=DEFAULT_OUT,
    show_default=True,
    help="Run folder; the same folder resumes the run.",
)
@click.option("--quiet", is_flag=True, help="No progress lines; only the final standings.")
@click.pass_context
def tournament_command(
    ctx: click.Context,
    config_file: Path | None,
    engine: tuple[str, ...],
    rounds: int,
    format_: str,
    concurrency: int,
    rules: RuleSet,
    time_control: TimeControl,
    stall_timeout: float,
    seed: int | None,
    out: Path,
    log_traffic: bool,
    sandbox: str,
    quiet: bool,
    key_file: Path | None,
    deals: Path | None,
    cluster: str | None,
    tls_ca_file: Path | None,
    tls_cert: Path | None,
    tls_key: Path | None,
) -> None:
    """Run a round-robin or a gauntlet between DCTP engines; run it again to resume.

    Engines come from CONFIG.toml or --engine NAME=COMMAND; with neither, a demo
    between our engine's levels and a random player, at 10 s per side unless
    --time says otherwise. Standings (Elo with 95% error margins, crosstable,
    paired statistics) are printed at the end and written to the run folder
    with every game's record.
    """
    try:
        config = _build_config(
            ctx,
            config_file,
            engine,
            rounds=rounds,
            format=TournamentFormat(format_),
            concurrency=concurrency,
            rules=rules,
            time_control=time_control,
            stall_timeout=stall_timeout,
            seed=seed,
            sandbox=sandbox,
            cluster=cluster,
        )
        key = referee_key(key_file)
        book = load_deal_book(deals)
        tls = (tls_ca_file, tls_cert, tls_key)
        with locked_run(out):
            hidden = hidden_paths(key_file, out, deals)
            where = make_cluster(config.cluster, tls, config.sandbox, hidden) or engine_factory(
                config.sandbox, key_file, out, config.engines, quiet=quiet, deal_book=deals
            )
            standings = play_tournament(config, out, key, where, log_traffic, quiet, book)
    except (RulesInputError, InputError, OSError) as error:
        raise click.ClickException(str(error)) from None
    except KeyboardInterrupt:
        click.echo(
            f"interrupted; finished games are saved in {out}; run the same command to resume",
            err=True,
        )
        raise SystemExit(130) from None
    click.echo(format_standings_text(standings, config.gauntlet_names()), nl=False)
    click.echo(
        f"standings: {out / 'standings.json'}  page: {out / 'report.html'}  "
        f"report: {out / 'report.md'}"
    )
