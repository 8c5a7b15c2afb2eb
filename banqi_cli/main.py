"""``banqi``: the command group."""

import click

from banqi_engine import __version__

from .perft_commands import bench, perft_command


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="banqi")
def cli() -> None:
    """Chinese Dark Chess (banqi) toolkit: engine, referee, tournaments."""


cli.add_command(perft_command)
cli.add_command(bench)
