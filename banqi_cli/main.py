"""``banqi``: the command group."""

from typing import Any

import click

from banqi_common.version import VERSION

from .bench_arena import bench_arena_command
from .bench_endgame import bench_endgame_command
from .bench_face_up import bench_face_up_command
from .bench_referee import bench_referee_command
from .bench_strength import bench_strength_command
from .check_command import check_command
from .connect_command import connect_command
from .deals_command import deals_command
from .engine import engine_command
from .examples import add_examples
from .gui_command import gui_command
from .match_command import match_command
from .new_engine_command import new_engine_command
from .perft_commands import bench, perft_command
from .phases_command import phases_command
from .referee_commands import reasons_command, replay_command
from .serve_command import serve_command
from .sprt_command import sprt_command
from .tournament_command import tournament_command
from .tune_command import tune_command


class _Commands(click.Group):
    """The command group; Ctrl-C that no command answers itself ends with one line and
    status 130 (click's own answer is ``Aborted!`` and status 1)."""

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except KeyboardInterrupt:
            click.echo("interrupted", err=True)
            ctx.exit(130)


@click.group(cls=_Commands, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(VERSION, prog_name="banqi")
def cli() -> None:
    """Chinese Dark Chess (banqi) toolkit: engine, referee, tournaments."""


cli.add_command(engine_command)
cli.add_command(perft_command)
cli.add_command(bench)
bench.add_command(bench_referee_command)
bench.add_command(bench_strength_command)
bench.add_command(bench_endgame_command)
bench.add_command(bench_face_up_command)
bench.add_command(bench_arena_command)
cli.add_command(match_command)
cli.add_command(check_command)
cli.add_command(new_engine_command)
cli.add_command(replay_command)
cli.add_command(reasons_command)
cli.add_command(tournament_command)
cli.add_command(gui_command)
cli.add_command(sprt_command)
cli.add_command(deals_command)
cli.add_command(tune_command)
cli.add_command(phases_command)
cli.add_command(serve_command)
cli.add_command(connect_command)
add_examples(cli)
