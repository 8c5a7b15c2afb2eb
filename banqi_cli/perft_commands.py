"""``banqi perft`` and ``banqi bench``."""

import click

from banqi_engine.bench import bench_perft
from banqi_engine.errors import BanqiError
from banqi_engine.perft import divide, perft
from banqi_engine.position import parse_position
from banqi_engine.rules import RuleSet

from .options import rules_option


@click.command("perft")
@click.argument("position")
@click.argument("depth", type=click.IntRange(0, 20))
@rules_option
@click.option("--divide", "show_divide", is_flag=True, help="Print the count under each first ply.")
def perft_command(position: str, depth: int, rules: RuleSet, show_divide: bool) -> None:
    """Count the leaves DEPTH plies below POSITION (a position string).

    A flip counts once per piece type still face down; draw rules are ignored.
    The leaf count is the last line printed.
    """
    try:
        pos = parse_position(position)
    except BanqiError as error:
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
    type=click.FloatRange(0.1, 600),
    default=3.0,
    show_default=True,
    help="Minimum time per position.",
)
def bench_perft_command(seconds: float) -> None:
    """Leaves per second of perft on fixed positions, one line each and a total."""
    total_leaves = 0
    total_time = 0.0
    for row in bench_perft(seconds):
        total_leaves += row.leaves
        total_time += row.seconds
        click.echo(
            f"{row.rules:<22} d{row.depth} {row.leaves:>11,} leaves "
            f"{row.seconds:7.2f}s {row.leaves / row.seconds:>13,.0f} leaves/s  {row.position}"
        )
    click.echo(
        f"total {total_leaves:,} leaves in {total_time:.2f}s: "
        f"{total_leaves / total_time:,.0f} leaves/s"
    )
