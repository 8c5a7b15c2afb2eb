"""``banqi bench referee``: the referee's own CPU cost per ply."""

import click

from banqi_engine.rules import RuleSet
from tournaments.referee_bench import bench_referee

from .game_options import rules_option
from .param_types import shown_option


@click.command("referee")
@shown_option(
    "--games", type=click.IntRange(2, 10_000), default=20, help="Games to play (in pairs)."
)
@shown_option("--concurrency", type=click.IntRange(1, 64), default=1, help="Games played at once.")
@rules_option
def bench_referee_command(games: int, concurrency: int, rules: RuleSet) -> None:
    """Referee CPU per ply in a tournament between two random players.

    The engines are separate processes, so their thinking and start-up are
    counted apart from the referee's judging, clocks, echoes, records and standings.
    """
    result = bench_referee(games, concurrency, rules)
    click.echo(
        f"{result.games} games, {result.plies} plies in {result.wall_seconds:.1f}s "
        f"({result.games / result.wall_seconds:.2f} games/s, "
        f"{result.plies / result.wall_seconds:,.0f} plies/s, concurrency {concurrency})"
    )
    click.echo(
        f"referee CPU {result.referee_cpu_seconds:.2f}s: {result.referee_ms_per_ply:.2f} ms "
        f"per ply; engines' CPU {result.engine_cpu_seconds:.2f}s "
        f"({result.engine_cpu_seconds / result.games:.2f}s per game for both, start-up included)"
    )
