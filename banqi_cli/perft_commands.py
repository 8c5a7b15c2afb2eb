"""The ``banqi perft`` command and the ``banqi bench`` group: perft and search speed."""

import click

from banqi_engine.errors import RulesInputError
from banqi_engine.perft import divide, perft
from banqi_engine.position import parse_position
from banqi_engine.rules import RuleSet
from banqi_engine.speed_bench import bench_perft, bench_search, engine_build

from .game_options import rules_option
from .param_types import FiniteFloatRange, PositionCommand


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
        pos = parse_position(position)
    except RulesInputError as error:
        raise click.ClickException(f"bad POSITION: {error}") from None
    if show_divide and depth >= 1:
        rows = divide(pos, rules, depth)
        for move, count in rows:
            click.echo(f"{move}: {count}")
        click.echo(str(sum(count for _, count in rows)))
    else:
        click.echo(str(perft(pos, rules, depth)))


@click.group()
def bench() -> None:
    """Benchmarks (speed figures for the README)."""


@bench.command("perft")
@click.option(
    "--seconds",
    type=FiniteFloatRange(0.1, 600),
    default=3.0,
    show_default=True,
    help="Minimum CPU time per position.",
)
def bench_perft_command(seconds: float) -> None:
    """Leaves per CPU second of perft on fixed positions, one line each and a total
    (which also says whether the engine runs compiled or as pure Python)."""
    total_leaves = 0
    total_time = 0.0
    for row in bench_perft(seconds):
        total_leaves += row.leaves
        total_time += row.seconds
        click.echo(
            f"{row.rules:<22} d{row.depth} {row.leaves:>14,} leaves "
            f"{row.seconds:7.2f}s {row.leaves / row.seconds:>13,.0f} leaves/s  {row.position}"
        )
    click.echo(
        f"total {total_leaves:,} leaves in {total_time:.2f} CPU seconds: "
        f"{total_leaves / total_time:,.0f} leaves/s ({engine_build()})"
    )


@bench.command("search")
@click.option(
    "--seconds",
    type=FiniteFloatRange(0.01, 600),
    default=2.0,
    show_default=True,
    help="Search time per position.",
)
def bench_search_command(seconds: float) -> None:
    """Nodes per second and depth reached by the search on fixed positions, and a total
    (which also says whether the engine runs compiled or as pure Python)."""
    total_nodes = 0
    total_time = 0.0
    for entry, result in bench_search(seconds):
        total_nodes += result.nodes
        total_time += result.seconds
        click.echo(
            f"{entry.rules:<22} depth {result.depth:>2} {result.nodes:>9,} nodes "
            f"{result.seconds:6.2f}s {result.nodes / result.seconds:>9,.0f} nodes/s  "
            f"{entry.position}"
        )
    click.echo(
        f"total {total_nodes:,} nodes in {total_time:.2f}s: "
        f"{total_nodes / total_time:,.0f} nodes/s ({engine_build()})"
    )
