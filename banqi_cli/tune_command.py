"""``banqi tune``: SPSA tuning of an engine's parameters over pairs of self-play games, or
of games against a fixed opponent."""

import re
import shlex
from collections.abc import Callable
from pathlib import Path
from typing import Final, NoReturn

import click

from banqi_common.errors import InputError
from referee.deals import new_seed
from referee.engine_spec import split_command
from tournaments.run_access import RUNS_FOLDER
from tournaments.tune import (
    PairResult,
    TuneState,
    check_builtin_params,
    read_param_file,
    write_starting_file,
)
from tournaments.tune_job import TuneJob, TuneJobEvents, run_tune_job
from tournaments.tune_run import (
    DEFAULT_PARAM_FORMAT,
    MAX_ITERATIONS,
    STATE_FILE,
    TuneConfig,
    TuneEvents,
    check_param_format,
)

from . import output
from .game_options import rules_option, time_control_options
from .param_types import field_option
from .run_options import AccessFlags, access_options, out_option, run_options
from .tune_lines import BUILTIN, Progress, header, pair_line, verify_lines

DEFAULT_ITERATIONS: Final = 1000
DEFAULT_TIME: Final = {"time_": 10.0, "increment": 0.1}
"""The clock of a tuning run unless given: 10 s a side and 0.1 s a move, as fishtest's short
tests, so that pairs are quick (the built-in engine at level 3 spends its clock over the
moves it expects to be left)."""


def default_tune_folder(params_file: Path) -> Path:
    """``banqi-runs/tune-<PARAMS file stem>``: the same command again resumes there."""
    return RUNS_FOLDER / f"tune-{re.sub(r'[^A-Za-z0-9._+-]+', '_', params_file.stem)}"


class TuneProgress:
    """The run's lines as it goes, and what Ctrl-C leaves."""

    def __init__(self, seed: int | None, engine: str) -> None:
        self.seed = seed
        self.engine = engine
        self.done = 0
        self.config: TuneConfig | None = None
        self.progress: Progress | None = None
        self.status: Callable[[], str] = lambda: ""

    def started(
        self, config: TuneConfig, state: TuneState, at_once: str, status: Callable[[], str]
    ) -> None:
        self.config = config
        self.done = len(state.pairs)
        self.progress = Progress(config, self.done)
        self.status = status
        for line in header(config, state, self.seed, self.engine, at_once):
            output.say(line)

    def pair_done(self, pair: PairResult, now: TuneState) -> None:
        assert self.config is not None and self.progress is not None  # started first
        self.done = len(now.pairs)
        line = f"{pair_line(self.config, pair, now)}; {self.progress.words(self.done)}"
        output.say(line + self.status())

    def events(self) -> TuneJobEvents:
        return TuneJobEvents(output.notices(), self.started, TuneEvents(self.pair_done))

    def interrupted(self, config: TuneConfig) -> NoReturn:
        output.interrupted(
            f"interrupted: {self.done} of {config.iterations} iterations done, theta in "
            f"{config.out / STATE_FILE}; run the same command to resume"
        )


def tune_config(
    params_file: Path,
    engine: str | None,
    param_format: str,
    opponent: str | None = None,
    **settings: object,
) -> TuneConfig:
    """The run's config from its options; a clean error for a bad format, parameter file or
    engine command."""
    try:
        check_param_format(param_format)
    except ValueError as error:
        raise click.BadParameter(str(error), param_hint="'--param-format'") from None
    try:
        params = read_param_file(params_file)
        command = None if engine is None else split_command(engine)
        if command is None:
            check_builtin_params(params, params_file)
    except InputError as error:
        output.fail(error)
    try:
        against = None if opponent is None else split_command(opponent)
    except InputError as error:
        raise click.BadParameter(str(error), param_hint="'--opponent'") from None
    data = {
        **settings,
        "engine": command,
        "param_format": param_format,
        "opponent": against,
        "params": params,
    }
    return TuneConfig.model_validate(data)


@click.command("tune", context_settings={"default_map": DEFAULT_TIME})
@click.argument(
    "params_file", metavar="PARAMS.toml", type=click.Path(dir_okay=False, path_type=Path)
)
@click.option(
    "--write-params",
    is_flag=True,
    help="Write a starting PARAMS.toml for the built-in engine (every evaluation and search "
    "parameter at its default, within its bounds) and exit.",
)
@click.option(
    "--iterations",
    type=click.IntRange(1, MAX_ITERATIONS),
    default=DEFAULT_ITERATIONS,
    show_default=True,
    help="SPSA iterations: a pair of games each (two pairs with --opponent).",
)
@click.option(
    "--engine",
    "engine",
    metavar="COMMAND",
    default=None,
    help=f"The engine to tune, a command line; its parameters are added as arguments by "
    f"--param-format. Default: the built-in engine at its top level ({BUILTIN}).",
)
@click.option(
    "--param-format",
    default=DEFAULT_PARAM_FORMAT,
    show_default=True,
    help="How the engine is given a parameter on its command line: split like a shell, "
    "{name} and {value} filled in for each parameter (e.g. '-{name} {value}' for two "
    "arguments; '{value:.0f}' rounds).",
)
@click.option(
    "--opponent",
    metavar="COMMAND",
    default=None,
    help="Tune against this engine (a command line, started as it is): each iteration the "
    "engine at theta + c_k*delta and at theta - c_k*delta each play a pair of games "
    "against it on the iteration's layout, and theta moves towards the one that scored "
    "more. Default: they play each other.",
)
@field_option(
    "--concurrency",
    model=TuneConfig,
    field="concurrency",
    help="Iterations played at once (each plays its games one after the other: two, or "
    "four with --opponent); on a --cluster, default: its workers' game slots.",
)
@rules_option
@time_control_options
@run_options
@access_options()
@out_option(
    None,
    "Run folder; the same folder resumes the run. Default: banqi-runs/tune-<PARAMS>.",
)
def tune_command(
    params_file: Path,
    write_params: bool,
    engine: str | None,
    param_format: str,
    opponent: str | None,
    seed: int | None,
    out: Path | None,
    access: AccessFlags,
    **settings: object,
) -> None:
    """Tune an engine's parameters by SPSA, as fishtest does: each iteration plays the
    engine at theta + c_k*delta against it at theta - c_k*delta (one pair of games on one
    hidden layout, seats swapped) and moves theta towards the side that scored more.

    PARAMS.toml has a [NAME] table per parameter with value, min, max, c_end and r_end
    (fishtest's SPSA columns); --write-params writes one for the built-in engine. Prints a
    line per iteration; tune-state.json in the run folder follows every pair, and the same
    command resumes a stopped run. At the end tuned.toml holds the tuned values.

    Each engine is started with its parameters as command-line arguments, by
    --param-format: banqi-engine takes --param NAME=VALUE (and --params FILE).

    With --opponent COMMAND the two engines do not meet: each plays a pair against that
    engine on the iteration's layout, and theta moves towards the one that scored more
    (tuning against a stronger engine than one's own).

    With --deals BOOK, iteration k plays the book's entry (k - 1) mod its size; a book of
    openings (banqi deals --from RUN --at last-flip) tunes on the positions it holds,
    the face-up endgame alone say.
    """
    if write_params:
        if engine is not None:
            raise click.UsageError(
                "--write-params writes the built-in engine's parameters; write your "
                "engine's by hand"
            )
        try:
            write_starting_file(params_file)
        except InputError as error:
            output.fail(error)
        output.say(f"wrote {params_file}: edit it, then run: banqi tune {params_file}")
        return
    folder = out if out is not None else default_tune_folder(params_file)
    given = {"seed": new_seed() if seed is None else seed, "out": folder}
    config = tune_config(params_file, engine, param_format, opponent, **settings, **given)
    words = BUILTIN if config.engine is None else shlex.join(config.engine)
    progress = TuneProgress(seed, words)
    job = TuneJob(config=config, seed_given=seed is not None, access=access.access())
    outcome = output.run_job(
        lambda: run_tune_job(job, progress.events()),
        lambda: progress.interrupted(progress.config or config),
    )
    output.say(f"{STATE_FILE} and {outcome.tuned.name} in {folder}")
    for line in verify_lines(outcome.config, params_file, outcome.state.theta):
        output.say(line)
