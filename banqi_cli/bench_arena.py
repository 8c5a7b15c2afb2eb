"""``banqi bench arena``: an event of remote entrants on loopback, what the server costs,
and whether spectators, floods, slow readers or a relay storm change the games' clocks."""

from pathlib import Path
from typing import Final

import click
from click.core import ParameterSource

from banqi_arena.bench_figures import ArenaBench, Load, RunFigures, Spread
from banqi_common.errors import InputError
from banqi_engine.rules import RuleSet
from referee.timecontrol import TimeControl

from . import output
from .game_options import rules_option
from .param_types import FiniteFloatRange, path_option, shown_option

DEFAULT_SPECTATORS: Final = 200
"""Spectators of a flood or of slow readers when --spectators gives none."""
ENGINES: Final = {"random": 0, "greedy": 1}
NEEDS_ARENA: Final = "banqi bench arena needs the arena: pip install 'banqi[arena]'"


def _spread(spread: Spread | None, signed: bool = False) -> str:
    """``median / p99 / max`` of a Spread, in ms; a dash for none."""
    if spread is None:
        return "-"
    shown = "{:+.1f}" if signed else "{:.1f}"
    return " / ".join(shown.format(value) for value in (spread.median, spread.p99, spread.max))


def _difference(figures: RunFigures, quiet: RunFigures) -> str:
    """The overcharge's median, p99 and max less the quiet event's."""
    mine, theirs = figures.overcharge_ms, quiet.overcharge_ms
    if mine is None or theirs is None:
        return ""
    apart = Spread(
        count=mine.count,
        median=mine.median - theirs.median,
        p99=mine.p99 - theirs.p99,
        max=mine.max - theirs.max,
    )
    return f"  ({_spread(apart, signed=True)} against quiet)"


HEADER: Final = (
    f"{'load':<15} {'games':>5} {'plies':>7} {'plies/s':>7} {'CPU/ply':>8} {'peak RSS':>9}  "
    f"{'turnaround ms':<20} overcharge ms"
)


def _name(figures: RunFigures, repeat: int) -> str:
    """The event's load, and its round when there are several."""
    return f"{figures.load.value} {figures.round}" if repeat > 1 else figures.load.value


def _run_line(figures: RunFigures, quiet: RunFigures, repeat: int) -> str:
    """One event's line: games, the server's cost, its turnaround and the overcharge (and
    its difference from the quiet event of its round)."""
    rate = figures.plies / figures.wall_seconds if figures.wall_seconds else 0.0
    line = (
        f"{_name(figures, repeat):<15} {figures.games:>5} {figures.plies:>7,} {rate:>7,.0f} "
        f"{figures.server_ms_per_ply:>5.2f} ms {figures.peak_rss_mib:>5.0f} MiB  "
        f"{_spread(figures.turnaround_ms):<20} {_spread(figures.overcharge_ms)}"
    )
    if figures.load is not Load.QUIET:
        line += _difference(figures, quiet)
    if figures.relay_drops:
        line += f"; {figures.relay_drops} drops, {figures.relay_connects} connections"
    return line


def _detail_lines(figures: RunFigures, repeat: int) -> list[str]:
    """An event's time and CPU, the relays' own delay, and what its spectators asked, by
    kind, and how fast they were answered."""
    lines = [
        f"  {_name(figures, repeat)}: {figures.wall_seconds:.0f}s, server CPU "
        f"{figures.server_cpu_seconds:.1f}s, relays' CPU {figures.relays_cpu_seconds:.1f}s "
        f"(their own delay ms {_spread(figures.relays_lag_ms)})"
    ]
    watched = figures.spectators
    if watched is None:
        return lines
    lines.append(
        f"    {watched.spectators} spectators for {watched.seconds:.0f}s "
        f"(their CPU {watched.cpu_seconds:.1f}s)"
    )
    for kind, asked in watched.kinds.items():
        rate = asked.requests / watched.seconds if watched.seconds else 0.0
        statuses = ", ".join(
            f"HTTP {status}: {count:,}" for status, count in asked.statuses.items()
        )
        lines.append(
            f"    {kind:<9} {asked.requests:>8,} answers ({rate:,.0f}/s; {statuses or 'none'}), "
            f"{asked.failed} failed, latency ms {_spread(asked.latency_ms)}"
        )
    return lines


@click.command("arena")
@shown_option(
    "--entrants", type=click.IntRange(2, 64), default=64, help="Remote entrants (a round-robin)."
)
@shown_option(
    "--games-at-once", type=click.IntRange(1, 64), default=32, help="Games played at once."
)
@click.option(
    "--games",
    type=click.IntRange(1, 1_000_000),
    default=None,
    help="Games each event starts, at most (then the organiser pauses it and the games being "
    "played end).",
)
@shown_option(
    "--seconds",
    type=FiniteFloatRange(1, 3600),
    default=60.0,
    help="Seconds each event starts games for (without --games; with it, only if given).",
)
@shown_option(
    "--time", "side_seconds", type=FiniteFloatRange(0.1, 600), default=2.0, help="Seconds a side."
)
@shown_option(
    "--increment",
    type=FiniteFloatRange(0, 60),
    default=0.1,
    help="Seconds added a move (the relays' engine answers in well under a millisecond: a "
    "loss on time is the server's delay).",
)
@rules_option
@shown_option(
    "--engine",
    type=click.Choice(list(ENGINES)),
    default="random",
    help="The relays' engine (answered in the relays' process).",
)
@shown_option(
    "--think",
    "think_ms",
    type=FiniteFloatRange(0, 10_000),
    default=0.0,
    help="Milliseconds the relays' engine takes over a move before it answers (the relays' "
    "other games go on meanwhile).",
)
@shown_option(
    "--spectators",
    type=click.IntRange(0, 10_000),
    default=0,
    help="Spectators polling the event's web API (half long-polling the event, half "
    "reading a live game's board every second), from a niced process: plays the event "
    "again with them.",
)
@click.option(
    "--flood",
    is_flag=True,
    help="Play it again under a flood: the spectators (200 without --spectators) each asking "
    "again as soon as answered.",
)
@click.option(
    "--slow-readers",
    is_flag=True,
    help="Play it again with spectators (200 without --spectators) that ask for the event "
    "and read it a KiB a second, or never.",
)
@click.option(
    "--relay-storm",
    is_flag=True,
    help="Play it again with every second relay dropping its connection every 5 s on "
    "average (its overcharge is of the relays that stayed).",
)
@shown_option(
    "--repeat",
    type=click.IntRange(1, 100),
    default=1,
    help="Play the quiet event and each load this many times, in turn, each load compared "
    "with the quiet event before it: on a machine with other work, the rounds show how much "
    "the figures move by themselves.",
)
@path_option("--json", "json_file", help="Write the figures to this JSON file.")
@click.pass_context
def bench_arena_command(
    ctx: click.Context,
    entrants: int,
    games_at_once: int,
    games: int | None,
    seconds: float,
    side_seconds: float,
    increment: float,
    rules: RuleSet,
    engine: str,
    think_ms: float,
    spectators: int,
    flood: bool,
    slow_readers: bool,
    relay_storm: bool,
    repeat: int,
    json_file: Path | None,
) -> None:
    """Hold an event of remote entrants on loopback and measure the server.

    The real 'banqi serve' runs as its own process; the entrants are relays in one
    process (the arena's wire protocol over a WebSocket each) answering with a small fast
    engine, so that the server has the machine. Each event is quiet first, then again for
    each load asked: spectators, a flood of them, slow readers, a relay storm. Printed for
    each: games and plies, the server's CPU a ply, its peak memory, its turnaround (a move
    sent to its next frame of that game) and the overcharge: the time each ply was charged
    beyond what the relay's engine took. Exit status 0 only if every event ran: every game
    ended on the board and no relay had an error. Each event is played in a temporary
    folder ($TMPDIR), removed after it.
    """
    try:
        import uvicorn  # noqa: F401
        import websockets  # noqa: F401
    except ImportError:
        output.fail(InputError(NEEDS_ARENA))
    from banqi_arena.bench_event import EventError, EventPlan, play_bench

    given = ctx.get_parameter_source("seconds") == ParameterSource.COMMANDLINE
    loads = [Load.QUIET]
    loads += [Load.SPECTATORS] if spectators else []
    loads += [Load.FLOOD] if flood else []
    loads += [Load.SLOW_READERS] if slow_readers else []
    loads += [Load.RELAY_STORM] if relay_storm else []
    plan = EventPlan(
        entrants=entrants,
        games_at_once=games_at_once,
        games=games,
        seconds=seconds if games is None or given else None,
        time_control=TimeControl(time=side_seconds, increment=increment),
        rules=rules,
        level=ENGINES[engine],
        spectators=spectators or DEFAULT_SPECTATORS,
        think_seconds=think_ms / 1000,
    )
    thinking = f" thinking {think_ms:g} ms a move" if think_ms else ""
    click.echo(
        f"arena: {entrants} remote entrants (relays of {engine} engines{thinking}), "
        f"{games_at_once} games at once, {plan.time_control.describe()} a side, "
        f"{rules.name} rules"
    )
    click.echo(HEADER)
    quiet: list[RunFigures] = []

    def ran(figures: RunFigures) -> None:
        if figures.load is Load.QUIET:
            quiet[:] = [figures]
        click.echo(_run_line(figures, quiet[0], repeat))

    try:
        bench: ArenaBench = output.run_job(
            lambda: play_bench(plan, loads, repeat, engine, ran),
            lambda: output.interrupted("interrupted: the event's server is stopped"),
        )
    except (EventError, RuntimeError) as error:
        output.fail(error)
    click.echo("(ms: median / p99 / max)")
    for figures in bench.runs:
        for line in _detail_lines(figures, repeat):
            click.echo(line)
    if json_file is not None:
        try:
            json_file.write_text(bench.model_dump_json(indent=2) + "\n", encoding="utf-8")
        except OSError as error:
            output.fail(InputError(f"cannot write {json_file}: {error.strerror}"))
    problems = [
        f"{_name(run, repeat)}: {problem}" for run in bench.runs for problem in run.problems
    ]
    if problems:
        output.fail(InputError("not every event ran cleanly:\n" + "\n".join(problems)))
