"""The ``banqi perft`` command and the ``banqi bench`` group: perft and search speed."""

from collections.abc import Callable, Iterable

import click
from click.core import ParameterSource

from banqi_engine.core_build import CORE_BUILD
from banqi_engine.errors import RulesInputError
from banqi_engine.notation import format_move
from banqi_engine.perft import divide, perft
from banqi_engine.position import parse_position
from banqi_engine.rules import RuleSet
from banqi_engine.search import SearchResult
from banqi_engine.speed_bench import (
    BenchPosition,
    BenchRow,
    bench_perft,
    bench_search,
)

from .game_options import rules_option
from .param_types import F, FiniteFloatRange, PositionCommand, shown_option


@click.command("perft", cls=PositionCommand)
@click.argument("position")
@click.argument("depth", type=click.IntRange(0, 20))
@rules_option
@click.option("--divide", "show_divide", is_flag=True, help="Print the count under each first ply.")
def perft_command(position: str, depth: int, rules: RuleSet, show_divide: bool) -> None:
    """Count the leaves DEPTH plies below POSITION (a position string).

    A flip, and a move onto a face-down piece (where the rule set allows it), counts
    once per piece type still face down; draw rules are ignored. The leaf count is
    the last line printed.
    """
    try:
        pos = parse_position(position, rules)
    except RulesInputError as error:
        raise click.ClickException(f"bad POSITION: {error}") from None
    if show_divide and depth >= 1:
        rows = divide(pos, rules, depth)
        for move, count in rows:
            click.echo(f"{move}: {count}")
        click.echo(str(sum(count for _, count in rows)))
    else:
        click.echo(str(perft(pos, rules, depth)))


def seconds_option(least: float, default: float, help: str) -> Callable[[F], F]:
    """``--seconds``: at least ``least``, at most 600."""
    return shown_option("--seconds", type=FiniteFloatRange(least, 600), default=default, help=help)


def _echo_totals(rows: Iterable[tuple[str, int, float]]) -> tuple[int, float]:
    """Print each row's line as it comes; the sum of the rows' counts and of their seconds."""
    count, seconds = 0, 0.0
    for line, row_count, row_seconds in rows:
        click.echo(line)
        count += row_count
        seconds += row_seconds
    return count, seconds


def _perft_line(row: BenchRow) -> tuple[str, int, float]:
    """A perft benchmark's line, its leaves and its CPU seconds."""
    line = (
        f"{row.rules:<22} d{row.depth} {row.leaves:>14,} leaves "
        f"{row.seconds:7.2f}s {row.leaves / row.seconds:>13,.0f} leaves/s  {row.position}"
    )
    return line, row.leaves, row.seconds


MAX_BENCH_NODES = 100_000_000
"""The most ``banqi bench search --nodes`` allows per position."""


def _nodes_line(entry: BenchPosition, result: SearchResult) -> str:
    """A fixed-node search's line: its move, its score in full, depth and nodes (what two
    builds of the engine must agree on) and its time."""
    return (
        f"{entry.rules:<22} move {format_move(result.move):<8} score {result.score!r:<22} "
        f"depth {result.depth:>2} {result.nodes:>9,} nodes {result.seconds:6.2f}s  "
        f"{entry.position}"
    )


def _search_line(entry: BenchPosition, result: SearchResult) -> tuple[str, int, float]:
    """A search benchmark's line, its nodes and its seconds."""
    line = (
        f"{entry.rules:<22} depth {result.depth:>2} {result.nodes:>9,} nodes "
        f"{result.seconds:6.2f}s {result.nodes / result.seconds:>9,.0f} nodes/s  "
        f"{entry.position}"
    )
    return line, result.nodes, result.seconds


@click.group()
def bench() -> None:
    """Benchmarks (speed figures for the README)."""


@bench.command("perft")
@seconds_option(0.1, 3.0, "Minimum CPU time per position.")
def bench_perft_command(seconds: float) -> None:
    """Leaves per CPU second of perft on fixed positions, one line each and a total
    (which also says whether the engine runs compiled or as pure Python)."""
    rows = (_perft_line(row) for row in bench_perft(seconds))
    total_leaves, total_time = _echo_totals(rows)
    click.echo(
        f"total {total_leaves:,} leaves in {total_time:.2f} CPU seconds: "
        f"{total_leaves / total_time:,.0f} leaves/s ({CORE_BUILD.description})"
    )


@bench.command("search")
@seconds_option(0.01, 2.0, "Search time per position.")
@click.option(
    "--nodes",
    type=click.IntRange(1, MAX_BENCH_NODES),
    default=None,
    help="Search each position to this many nodes instead, with no clock, and print its "
    "move and score in full: two builds of the engine print the same lines but for the time.",
)
@click.pass_context
def bench_search_command(ctx: click.Context, seconds: float, nodes: int | None) -> None:
    """Nodes per second and depth reached by the search on fixed positions, and a total
    (which also says whether the engine runs compiled or as pure Python)."""
    if nodes is not None and ctx.get_parameter_source("seconds") == ParameterSource.COMMANDLINE:
        raise click.UsageError("--seconds and --nodes exclude each other: give one")
    results = bench_search(None if nodes else seconds, nodes)
    if nodes is None:
        rows = (_search_line(entry, result) for entry, result in results)
    else:
        rows = (
            (_nodes_line(entry, result), result.nodes, result.seconds) for entry, result in results
        )
    total_nodes, total_time = _echo_totals(rows)
    click.echo(
        f"total {total_nodes:,} nodes in {total_time:.2f}s: "
        f"{total_nodes / total_time:,.0f} nodes/s ({CORE_BUILD.description})"
    )
