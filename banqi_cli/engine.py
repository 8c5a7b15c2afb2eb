"""``banqi engine`` and the ``banqi-engine`` executable: a DCTP engine on stdin/stdout."""

import io
import logging
import os
import sys
from collections.abc import Sequence
from pathlib import Path

import click

from banqi_engine.eval_params import DEFAULT_PARAMS, EvalParams, ParamsError, params_with
from banqi_engine.players import MAX_LEVEL, make_player
from banqi_engine.rules import RuleSet
from protocol.engine_loop import ENGINE_VERSION, DctpEngine, run_engine
from tournaments.tune import ParamFileError, read_param_values

from .examples import epilog
from .game_options import rules_option
from .param_types import path_option

LOG_FORMAT = "%(asctime)s %(levelname)s %(name)s: %(message)s"


def configure_logging(log_file: Path | None) -> None:
    """Traffic and debug log to ``log_file``; without one, warnings only, to stderr."""
    handler: logging.Handler
    if log_file is None:
        handler = logging.StreamHandler(sys.stderr)
        level = logging.WARNING
    else:
        try:
            handler = logging.FileHandler(log_file, encoding="utf-8")
        except OSError as error:
            raise click.ClickException(f"cannot open log file {log_file}: {error}") from None
        level = logging.DEBUG
    handler.setFormatter(logging.Formatter(LOG_FORMAT))
    logging.basicConfig(level=level, handlers=[handler], force=True)


def engine_params(params_file: Path | None, assignments: Sequence[str]) -> EvalParams:
    """The evaluation's parameters: the defaults, then the values of ``params_file`` (a flat
    ``NAME = VALUE`` file, or a tuning run's parameter file), then each ``NAME=VALUE`` of
    ``assignments``; a usage error naming the option and what is wrong otherwise."""
    params = DEFAULT_PARAMS
    if params_file is not None:
        try:
            values = read_param_values(params_file)
        except ParamFileError as error:
            raise click.BadParameter(str(error), param_hint="'--params'") from None
        try:
            params = params_with(f"{name}={value!r}" for name, value in values.items())
        except ParamsError as error:
            raise click.BadParameter(f"{params_file}: {error}", param_hint="'--params'") from None
    try:
        return params_with(assignments, params)
    except ParamsError as error:
        raise click.BadParameter(str(error), param_hint="'--param'") from None


def serve_stdio(
    rules: RuleSet, level: int, seed: int | None, params: EvalParams = DEFAULT_PARAMS
) -> int:
    """Run the DCTP loop on this process's stdin and stdout; the exit status."""
    if sys.stdin is None or sys.stdout is None:
        logging.getLogger(__name__).warning("no stdin or stdout to talk on")
        return 0
    stdin = io.TextIOWrapper(sys.stdin.buffer, encoding="utf-8", errors="replace", newline="\n")
    player = make_player(level, seed, rules, params)
    engine = DctpEngine(rules, player, board_stream=sys.stderr)
    try:
        status = run_engine(engine, stdin, sys.stdout)
    except KeyboardInterrupt:
        status = 130
    try:
        sys.stdout.flush()
    except OSError:
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    return status


@click.command(
    "engine", context_settings={"help_option_names": ["-h", "--help"]}, epilog=epilog("engine")
)
@click.version_option(ENGINE_VERSION, prog_name="banqi-engine")
@rules_option
@click.option(
    "--level",
    type=click.IntRange(0, MAX_LEVEL),
    default=MAX_LEVEL,
    show_default=True,
    help="Player strength: 0 random, 1 greedy, 2 short search (about 0.1 s a move), "
    "3 the full engine at full strength on the clock time_settings/time_left give it "
    "(the default, as tournament platforms start engines by path).",
)
@click.option("--seed", type=int, default=None, help="Seed for the player's random choices.")
@path_option(
    "--log",
    "log_file",
    help="Write the DCTP traffic, debug messages and each searched move's depth, nodes, "
    "time and score to this file.",
)
@path_option(
    "--params",
    "params_file",
    metavar="FILE",
    help="Evaluation and search parameters from a TOML file: NAME = VALUE lines, or a "
    "parameter file of 'banqi tune' (its tuned.toml), whose values are taken.",
)
@click.option(
    "--param",
    "assignments",
    multiple=True,
    metavar="NAME=VALUE",
    help=f"Set one evaluation or search parameter (repeatable; over --params). Names: "
    f"{', '.join(EvalParams.model_fields)}.",
)
def engine_command(
    rules: RuleSet,
    level: int,
    seed: int | None,
    log_file: Path | None,
    params_file: Path | None,
    assignments: tuple[str, ...],
) -> None:
    """Speak DCTP on stdin/stdout as an engine, as a GUI or an arena starts it.

    Only replies go to stdout; showboard diagrams and warnings go to stderr. The search
    levels (2 and 3) weigh their evaluation by --params and --param, as 'banqi tune' sets
    them.
    """
    params = engine_params(params_file, assignments)
    configure_logging(log_file)
    sys.exit(serve_stdio(rules, level, seed, params))


def main() -> None:
    """Entry point of the ``banqi-engine`` executable."""
    engine_command.main(prog_name="banqi-engine")
