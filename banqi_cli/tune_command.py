"""``banqi tune``: SPSA tuning of an engine's parameters over pairs of self-play games."""

import re
import shlex
import time
from pathlib import Path
from typing import Final

import click

from banqi_common.errors import InputError
from banqi_common.interrupt import run_interruptible
from banqi_engine.eval_params import EvalParams, ParamsError, params_with
from banqi_engine.rules import RuleSet
from referee.deals import new_seed
from referee.engine_spec import EngineSpecError, split_command
from referee.engine_start import EngineFactory
from referee.sandbox import SandboxMode
from referee.timecontrol import TimeControl
from tournaments.run_folder import locked_run
from tournaments.tune import (
    ALPHA,
    GAMMA,
    PairResult,
    ParamFileError,
    TuneParam,
    TuneState,
    default_params,
    param_file_text,
    read_param_file,
)
from tournaments.tune_run import (
    DEFAULT_PARAM_FORMAT,
    MAX_ITERATIONS,
    STATE_FILE,
    TUNED_FILE,
    TuneConfig,
    TuneEvents,
    check_param_format,
    engine_spec,
    open_tune,
    read_state,
    run_tune,
    start_tune_folder,
    write_tuned,
)

from .options import (
    RUNS_FOLDER,
    check_before_games,
    engine_factory,
    field_option,
    referee_key,
    rules_option,
    run_options,
    seed_words,
    time_control_options,
)

DEFAULT_ITERATIONS: Final = 1000
DEFAULT_TIME: Final = {"time_": 10.0, "increment": 0.1}
"""The clock of a tuning run unless given: 10 s a side and 0.1 s a move, as fishtest's short
tests, so that pairs are quick (the built-in engine at level 3 spends its clock over the
moves it expects to be left)."""
THETA_SHOWN: Final = 3
"""Parameters whose theta a progress line shows: those that moved furthest."""
BUILTIN: Final = "banqi-engine --level 3"
"""The built-in engine as a user would start it (for the lines that say so)."""


def default_tune_folder(params_file: Path) -> Path:
    """``banqi-runs/tune-<PARAMS file stem>``: the same command again resumes there."""
    return RUNS_FOLDER / f"tune-{re.sub(r'[^A-Za-z0-9._+-]+', '_', params_file.stem)}"


def write_starting_file(path: Path) -> None:
    """Write the built-in engine's starting parameter file at ``path`` (never over a file)."""
    header = (
        "Parameters of banqi-engine's evaluation for 'banqi tune': each at its default and\n"
        "within its bounds; c_end a twentieth of max - min, r_end 0.02 (about 20 / N suits\n"
        "a run of N iterations). Delete the tables of parameters not to tune."
    )
    try:
        with path.open("x", encoding="utf-8") as handle:
            handle.write(param_file_text(default_params(), header))
    except FileExistsError:
        raise click.ClickException(
            f"{path} exists: not replaced (remove it or name another file)"
        ) from None
    except OSError as error:
        raise click.ClickException(f"cannot write {path}: {error.strerror or error}") from None


def check_builtin_params(params: dict[str, TuneParam], params_file: Path) -> None:
    """Refuse parameters the built-in engine does not have, or bounds beyond its own."""
    names = EvalParams.model_fields
    for name, param in params.items():
        if name not in names:
            raise click.ClickException(
                f"{params_file}: unknown parameter {name!r}: the built-in engine's parameters "
                f"are {', '.join(names)}"
            )
        for key in ("min", "max"):
            bound = getattr(param, key)
            try:
                params_with([f"{name}={bound!r}"])
            except ParamsError as error:
                raise click.ClickException(
                    f"{params_file}: {name}.{key} = {bound:g} is beyond the built-in engine's "
                    f"bounds ({error})"
                ) from None


def _duration(seconds: float) -> str:
    """``42s``, ``3m 05s``, ``2h 07m``."""
    whole = round(seconds)
    if whole < 60:
        return f"{whole}s"
    if whole < 3600:
        return f"{whole // 60}m {whole % 60:02d}s"
    return f"{whole // 3600}h {whole // 60 % 60:02d}m"


def theta_words(config: TuneConfig, theta: dict[str, float]) -> str:
    """Theta of the parameters that moved furthest from their start (by share of their
    range), with the change."""
    moved = sorted(
        config.params.items(),
        key=lambda item: -abs(theta[item[0]] - item[1].value) / (item[1].max - item[1].min),
    )
    shown = [f"{name} {theta[name]:.4g} ({theta[name] - p.value:+.3g})" for name, p in moved]
    more = len(shown) - THETA_SHOWN
    return ", ".join(shown[:THETA_SHOWN]) + (f" (+{more} more)" if more > 0 else "")


def pair_line(config: TuneConfig, pair: PairResult, state: TuneState) -> str:
    """The line after a pair: which, its games, its result, theta."""
    games = ", ".join(
        f"{game.plus_points:g}-{game.minus_points:g} {game.reason.value}" for game in pair.games
    )
    return (
        f"iteration {pair.iteration}/{config.iterations} ({len(state.pairs)} done): plus-minus "
        f"{games}; result {pair.result:+g}; theta {theta_words(config, state.theta)}"
    )


class Progress:
    """Elapsed time and ETA from the pairs played by this command."""

    def __init__(self, config: TuneConfig, done: int) -> None:
        self.config = config
        self.started = time.monotonic()
        self.done_at_start = done

    def words(self, done: int) -> str:
        """``elapsed 1m 02s, ETA 20m 10s``."""
        elapsed = time.monotonic() - self.started
        played = done - self.done_at_start
        left = self.config.iterations - done
        eta = _duration(elapsed / played * left) if played else "-"
        return f"elapsed {_duration(elapsed)}, ETA {eta}"


def _header(config: TuneConfig, state: TuneState, seed: int | None, engine: str) -> list[str]:
    done = len(state.pairs)
    spsa = config.spsa()
    count = len(config.params)
    line = (
        f"tune: {count} parameter{'s' if count > 1 else ''} of {engine}, {config.iterations} "
        f"iterations (pairs of games on one hidden layout, seats swapped), rules "
        f"{config.rules.name}, time {config.time_control.describe()}, {seed_words(seed)}, "
        f"{config.concurrency} pair{'s' if config.concurrency > 1 else ''} at once, run folder "
        f"{config.out}"
    )
    if done == config.iterations:
        line += f"; finished ({done} iterations)"
    elif done:
        line += f"; resuming with {done} of {config.iterations} iterations done"
    return [
        line,
        f"SPSA: alpha {ALPHA}, gamma {GAMMA}, A {spsa.big_a:g} (a tenth of the iterations); "
        "c_k = c / k^gamma, a_k = a / (A + k)^alpha, theta += a_k / c_k * result * delta",
    ]


def verify_lines(config: TuneConfig, params_file: Path, theta: dict[str, float]) -> list[str]:
    """How to check the tuned values with an SPRT against the start (for the built-in engine,
    tuned.toml copied out of the run folder first: sandboxed engines cannot see it)."""
    clock = config.time_control
    options = f"--rules {shlex.quote(config.rules.name)} --time {clock.time:g}"
    options += f" --increment {clock.increment:g}"
    if clock.move_time is not None:
        options += f" --move-time {clock.move_time:g}"
    lines = ["verify it with an SPRT against the start:"]
    if config.engine is None:
        lines.append(f"  cp {shlex.quote(str(config.out / TUNED_FILE))} {TUNED_FILE}")
        tuned = f"{BUILTIN} --params {TUNED_FILE}"
        base = f"{BUILTIN} --params {shlex.quote(str(params_file))}"
    else:
        tuned = shlex.join(engine_spec(config, "tuned", theta).command)
        base = shlex.join(engine_spec(config, "base", config.start()).command)
    quoted = f"{shlex.quote('tuned=' + tuned)} {shlex.quote('base=' + base)}"
    lines.append(f"  banqi sprt {quoted} {options}")
    return lines


def play_with_progress(
    config: TuneConfig, state: TuneState, key: bytes, start_engine: EngineFactory
) -> TuneState:
    """Play the iterations left, a line per pair; Ctrl-C exits 130 keeping the pairs played."""
    progress = Progress(config, len(state.pairs))
    done = [len(state.pairs)]

    def pair_done(pair: PairResult, now: TuneState) -> None:
        done[0] = len(now.pairs)
        click.echo(f"{pair_line(config, pair, now)}; {progress.words(done[0])}")

    try:
        return run_interruptible(run_tune(config, state, key, TuneEvents(pair_done), start_engine))
    except KeyboardInterrupt:
        click.echo(
            f"interrupted: {done[0]} of {config.iterations} iterations done, theta in "
            f"{config.out / STATE_FILE}; run the same command to resume",
            err=True,
        )
        raise SystemExit(130) from None


@click.command("tune", context_settings={"default_map": DEFAULT_TIME})
@click.argument(
    "params_file", metavar="PARAMS.toml", type=click.Path(dir_okay=False, path_type=Path)
)
@click.option(
    "--write-params",
    is_flag=True,
    help="Write a starting PARAMS.toml for the built-in engine (every evaluation parameter at "
    "its default, within its bounds) and exit.",
)
@click.option(
    "--iterations",
    type=click.IntRange(1, MAX_ITERATIONS),
    default=DEFAULT_ITERATIONS,
    show_default=True,
    help="SPSA iterations, a pair of games each.",
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
@field_option(
    "--concurrency",
    model=TuneConfig,
    field="concurrency",
    help="Pairs played at once (each plays its two games one after the other).",
)
@rules_option
@time_control_options
@run_options
@click.option(
    "--out",
    type=click.Path(file_okay=False, path_type=Path),
    default=None,
    help="Run folder; the same folder resumes the run. Default: banqi-runs/tune-<PARAMS>.",
)
def tune_command(
    params_file: Path,
    write_params: bool,
    iterations: int,
    engine: str | None,
    param_format: str,
    concurrency: int,
    rules: RuleSet,
    time_control: TimeControl,
    stall_timeout: float,
    seed: int | None,
    log_traffic: bool,
    sandbox: str,
    key_file: Path | None,
    out: Path | None,
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
    """
    if write_params:
        if engine is not None:
            raise click.UsageError(
                "--write-params writes the built-in engine's parameters; write your "
                "engine's by hand"
            )
        write_starting_file(params_file)
        click.echo(f"wrote {params_file}: edit it, then run: banqi tune {params_file}")
        return
    try:
        check_param_format(param_format)
    except ValueError as error:
        raise click.BadParameter(str(error), param_hint="'--param-format'") from None
    try:
        params = read_param_file(params_file)
        command = None if engine is None else split_command(engine)
    except (ParamFileError, EngineSpecError) as error:
        raise click.ClickException(str(error)) from None
    if command is None:
        check_builtin_params(params, params_file)
    folder = out if out is not None else default_tune_folder(params_file)
    config = TuneConfig(
        engine=command,
        param_format=param_format,
        params=params,
        iterations=iterations,
        rules=rules,
        time_control=time_control,
        stall_timeout=stall_timeout,
        seed=new_seed() if seed is None else seed,
        out=folder,
        concurrency=concurrency,
        sandbox=SandboxMode(sandbox),
        log_traffic=log_traffic,
    )
    key = referee_key(key_file)
    try:
        settings = open_tune(config, seed is not None)
        config = settings.config
        with locked_run(folder):
            state = read_state(config)
            words = BUILTIN if command is None else shlex.join(command)
            for line in _header(config, state, seed, words):
                click.echo(line)
            if len(state.pairs) < config.iterations:
                start = engine_spec(config, "theta", state.theta)
                start_engine = engine_factory(config.sandbox, key_file, folder, (start,))
                check_before_games(
                    (start,), start_engine, time_control, stall_timeout, config.rules
                )
                start_tune_folder(settings)
                state = play_with_progress(config, state, key, start_engine)
            tuned = write_tuned(config, state)
    except (InputError, OSError) as error:
        raise click.ClickException(str(error)) from None
    click.echo(f"{STATE_FILE} and {tuned.name} in {folder}")
    for line in verify_lines(config, params_file, state.theta):
        click.echo(line)
