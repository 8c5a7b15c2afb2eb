"""``banqi engine`` and the ``banqi-engine`` executable: a DCTP engine on stdin/stdout."""

import io
import logging
import os
import sys
from pathlib import Path

import click

from banqi_engine.players import MAX_LEVEL, make_player
from banqi_engine.rules import RuleSet
from protocol.engine_loop import DctpEngine, run_engine

from .options import rules_option

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


def serve_stdio(rules: RuleSet, level: int, seed: int | None) -> int:
    """Run the DCTP loop on this process's stdin and stdout; the exit status."""
    if sys.stdin is None or sys.stdout is None:
        logging.getLogger(__name__).warning("no stdin or stdout to talk on")
        return 0
    stdin = io.TextIOWrapper(sys.stdin.buffer, encoding="utf-8", errors="replace", newline="\n")
    engine = DctpEngine(rules, make_player(level, seed, rules), board_stream=sys.stderr)
    try:
        status = run_engine(engine, stdin, sys.stdout)
    except KeyboardInterrupt:
        status = 130
    try:
        sys.stdout.flush()
    except OSError:
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    return status


@click.command("engine")
@rules_option
@click.option(
    "--level",
    type=click.IntRange(0, MAX_LEVEL),
    default=2,
    show_default=True,
    help="Player strength: 0 random, 1 greedy, 2 short search (about 0.1 s a move), "
    "3 full search (uses the clock from time_settings/time_left).",
)
@click.option("--seed", type=int, default=None, help="Seed for the player's random choices.")
@click.option(
    "--log",
    "log_file",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    help="Write the DCTP traffic and debug messages to this file.",
)
def engine_command(rules: RuleSet, level: int, seed: int | None, log_file: Path | None) -> None:
    """Speak DCTP on stdin/stdout as an engine, as a GUI or an arena starts it.

    Only replies go to stdout; showboard diagrams and warnings go to stderr.
    """
    configure_logging(log_file)
    sys.exit(serve_stdio(rules, level, seed))


def main() -> None:
    """Entry point of the ``banqi-engine`` executable."""
    engine_command.main(prog_name="banqi-engine")
