"""``banqi phases``: where the material goes, by phase, from run folders' records."""

from pathlib import Path

import click

from banqi_common.errors import InputError
from tournaments.phase_material import phase_report
from tournaments.piece_values import values_text

from . import output
from .phases_lines import phase_lines

PHASES_HELP = f"""Where each engine wins and loses material, by phase, from the game records of
run folders (matches, tournaments, SPRTs, tuning runs): the value it captured and lost while
some piece was face down, and after the last flip, per game with the net's standard error;
and how many of its games reached the face-up phase, with their score, both clocks right
after the last flip, the plies played after it and how those games ended; then the score of
those games by the material at the last flip (ahead, level, behind) and by the Kings on the
board then (both, its own only, its opponent's only, neither).

Pieces are valued {values_text()}. Engines are told apart by the player names of the
records, so several runs add up. Withheld records and forfeited games are left out and
counted. A folder without records, or a record that cannot be read or does not replay,
stops the command with one line naming it (exit 1): move such a record out of the folder
to leave it out."""


@click.command("phases", help=PHASES_HELP)
@click.argument("folders", metavar="RUN_FOLDER...", nargs=-1, required=True, type=Path)
@click.option("--json", "as_json", is_flag=True, help="Print the figures as JSON instead.")
def phases_command(folders: tuple[Path, ...], as_json: bool) -> None:
    """``banqi phases``: the figures of ``folders`` as text, or JSON with ``as_json``."""
    try:
        report = phase_report(folders)
    except InputError as error:
        output.fail(error)
    if as_json:
        click.echo(report.model_dump_json(indent=2))
    else:
        click.echo("\n".join(phase_lines(report)))
