"""``banqi tournament``: a round-robin or a gauntlet between engine executables, resumable,
and extendable with more rounds."""

import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import click

from banqi_common.errors import InputError
from banqi_engine.errors import RulesInputError
from referee.record import GameRecord
from referee.timecontrol import TimeControl
from tournaments.config import (
    TournamentConfig,
    TournamentFormat,
    config_from_data,
    demo_engines,
    load_config,
)
from tournaments.reports import format_standings_text
from tournaments.results import Standings
from tournaments.run_access import RUNS_FOLDER
from tournaments.tournament_job import (
    TournamentEvents,
    TournamentJob,
    TournamentStart,
    run_tournament_job,
)

from . import output
from .engine_args import (
    CWD_HELP,
    check_names,
    distinct_specs,
    env_from,
    env_options,
    limit_option,
    limits_from,
    pass_env_from,
    rooms_from,
)
from .live_line import Live, live_line
from .param_types import choice_option, field_option
from .run_options import (
    AccessFlags,
    out_option,
    played_run_options,
    progress_option,
    quiet_option,
)
from .tournament_lines import Progress, header

DEFAULT_OUT = RUNS_FOLDER / "tournament"
DEMO_DEFAULTS: dict[str, Any] = {
    "time_control": TimeControl(time=10.0),
    "concurrency": max(1, min(4, os.cpu_count() or 1)),
}
"""The demo's own defaults (any flag given still wins): short games, one per core."""
CONFIG_SUFFIXES = (".toml",)
"""An argument with this ending is the config file; any other is an engine."""


def _engines_from_texts(values: Sequence[str]) -> list[dict[str, Any]]:
    return [{"name": spec.name, "command": list(spec.command)} for spec in distinct_specs(values)]


def _split_items(items: tuple[str, ...]) -> tuple[Path | None, list[str]]:
    """The config file among the arguments (a ``.toml`` name), and the engines."""
    configs = [item for item in items if Path(item).suffix.lower() in CONFIG_SUFFIXES]
    if len(configs) > 1:
        raise click.UsageError(f"one CONFIG at most, got {', '.join(configs)}")
    for config in configs:
        if not Path(config).is_file():
            raise click.BadParameter(
                f"file {config!r} does not exist", param_hint="'[CONFIG.toml]'"
            )
    engines = [item for item in items if item not in configs]
    return (Path(configs[0]) if configs else None), engines


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
    ctx: click.Context,
    config_file: Path | None,
    engine: tuple[str, ...],
    cwd: tuple[str, ...],
    env: tuple[str, ...],
    pass_env: tuple[str, ...],
    limit: tuple[str, ...],
    **flags: Any,
) -> TournamentConfig:
    """The config from CONFIG or from the flags; a flag given on the command line wins
    over the file or the demo's defaults, a time option only over its own field of the
    run's time control (an engine's own ``time`` table still wins for that engine), and
    ``--env``, ``--pass-env`` and ``--limit`` add to (or override) every engine's own."""
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
            raise click.UsageError("give engines either in CONFIG or on the command line, not both")
        base = load_config(config_file)
        data: dict[str, Any] = base.model_dump()
    elif engine:
        data = {**flags, "engines": _engines_from_texts(engine)}
        if len(data["engines"]) < 2:
            raise click.UsageError("a tournament needs at least two engines")
    else:
        data = {**flags, **DEMO_DEFAULTS, "engines": [e.model_dump() for e in demo_engines()]}
    data.update(given)
    rooms = rooms_from(cwd)
    check_names(rooms, [entry["name"] for entry in data["engines"]], "--cwd")
    variables, passed = env_from(env), pass_env_from(pass_env)
    limits = limits_from(limit)
    limits_given = {} if limits is None else limits.model_dump(exclude_unset=True)
    for entry in data["engines"]:
        entry["cwd"] = rooms.get(entry["name"], entry.get("cwd"))
        entry["env"] = {**entry.get("env", {}), **variables}
        entry["pass_env"] = [*entry.get("pass_env", ()), *passed]
        entry["limits"] = {**entry.get("limits", {}), **limits_given}
    if time_given:
        data["time_control"] = {
            **TimeControl.model_validate(data["time_control"]).model_dump(),
            **time_given,
        }
    return config_from_data(data, str(config_file) if config_file else "the command line")


class TournamentProgress:
    """The header and the progress lines, unless quiet."""

    def __init__(self, out: Path, seed: int | None, quiet: bool, live: Live) -> None:
        self.out = out
        self.live = live
        self.seed = seed
        self.quiet = quiet
        self.progress: Progress | None = None

    def started(self, start: TournamentStart) -> None:
        self.live.watch(self.out)
        if not self.quiet:
            output.say(header(start, self.out, self.seed))
        self.progress = Progress(start.games, start.already, self.quiet, start.status)

    def game_done(self, record: GameRecord, standings: Standings) -> None:
        assert self.progress is not None  # started before the first game
        self.progress.game_done(record, standings)

    def faults(self) -> str:
        """The summary line of the engines' faults in the games played, or empty."""
        return "" if self.progress is None else self.progress.faults()

    def events(self) -> TournamentEvents:
        notices = output.notices(self.quiet)
        return TournamentEvents(notices, self.started, self.game_done, output.engine_out)


@click.command("tournament")
@click.argument("items", metavar="[CONFIG.toml] [[NAME=]COMMAND]...", nargs=-1)
@click.option(
    "--engine",
    multiple=True,
    metavar="[NAME=]COMMAND",
    help="An engine (repeat), as the arguments give them. Without engines or CONFIG: the "
    "built-in demo field.",
)
@click.option("--cwd", multiple=True, metavar="NAME=DIR", help=CWD_HELP)
@env_options
@limit_option("Of every engine, over its own limits in CONFIG.")
@field_option(
    "--rounds",
    model=TournamentConfig,
    field="rounds",
    help="In each round every pairing plays one hidden layout twice, seats swapped. More "
    "rounds than a run has resume it with the new rounds added.",
)
@choice_option(
    "--format",
    "format_",
    choices=TournamentFormat,
    default=TournamentFormat.ROUND_ROBIN,
    help="round-robin: every two engines meet; gauntlet: the first engine (or those marked "
    "gauntlet = true in CONFIG) meets every other engine.",
)
@field_option(
    "--concurrency",
    model=TournamentConfig,
    field="concurrency",
    help="Games played at once (the demo: one per core, up to 4).",
)
@played_run_options
@out_option(
    DEFAULT_OUT,
    "Run folder; the same folder resumes the run.",
)
@quiet_option("the final standings")
@progress_option
@click.pass_context
def tournament_command(
    ctx: click.Context,
    /,
    items: tuple[str, ...],
    engine: tuple[str, ...],
    format_: str,
    seed: int | None,
    out: Path,
    log_traffic: bool,
    quiet: bool,
    live: bool,
    access: AccessFlags,
    **flags: Any,
) -> None:
    """Run a round-robin or a gauntlet between DCTP engines; run it again to resume.

    Engines come from CONFIG.toml or the arguments ([NAME=]COMMAND, or --engine); with
    neither, a demo
    between our engine's levels and a random player, at 10 s per side unless
    --time says otherwise. Standings (Elo with 95% error margins, crosstable,
    paired statistics) are printed at the end and written to the run folder
    with every game's record.
    """
    config_file, given = _split_items(items)
    try:
        config = _build_config(
            ctx,
            config_file,
            (*given, *engine),
            **flags,
            format=TournamentFormat(format_),
            seed=seed,
            cluster=access.cluster,
        )
    except (RulesInputError, InputError) as error:
        output.fail(error)
    job = TournamentJob(
        config=config, out=out, log_traffic=log_traffic, access=access.access(config.cluster)
    )
    with live_line(live, quiet) as shown:
        progress = TournamentProgress(out, config.seed, quiet, shown)
        events = progress.events()
        standings = output.run_job(
            lambda: run_tournament_job(job, events),
            lambda: output.interrupted(
                f"interrupted; finished games are saved in {out}; run the same command to resume"
            ),
        )
    say_standings(standings, config, progress, out)


def say_standings(
    standings: Standings, config: TournamentConfig, progress: TournamentProgress, out: Path
) -> None:
    """The final standings, the engines' faults, and where the reports are."""
    output.say(format_standings_text(standings, config.gauntlet_names()), nl=False)
    faults = progress.faults()
    if faults:
        output.say(faults)
    output.say(
        f"standings: {out / 'standings.json'}  page: {out / 'report.html'}  "
        f"report: {out / 'report.md'}"
    )
