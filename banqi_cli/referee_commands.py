"""``banqi replay`` and ``banqi reasons``."""

from pathlib import Path

import click

from banqi_common.errors import InputError
from banqi_engine.errors import RulesInputError
from banqi_engine.rules import RuleSet, resolve_rules
from referee.reasons import Reason
from referee.record import read_record
from referee.replay import ReplayReport, replay_game_record, replay_text_record
from referee.text_record import read_text_record

from .param_types import rules_type


def _print_report(report: ReplayReport, recorded: str) -> None:
    if report.withheld:
        click.echo(
            "layout: withheld until the other game of its deal has ended, so the flips, "
            "captures and ending were not fully checked"
        )
        click.echo(f"plies checked: {report.plies_checked} (who played each, and its shape)")
        click.echo("final position: unknown (the layout is withheld)")
        click.echo("on the board: unknown (the layout is withheld)")
    else:
        click.echo(f"plies checked: {report.plies_checked}")
        click.echo(f"final position: {report.final_position}")
        if report.outcome is not None:
            outcome = report.outcome
            click.echo(f"on the board: {outcome.description} ({outcome.reason.value})")
        else:
            click.echo("on the board: the game is not over")
    click.echo(f"record says: {recorded}")
    for problem in report.problems:
        click.echo(f"problem: {problem}")
    if not report.ok:
        click.echo("NOT OK")
    elif report.withheld:
        click.echo("ok as far as it can be checked: no ply is impossible (layout withheld)")
    else:
        click.echo("ok: every ply is legal and the ending agrees")


@click.command("replay")
@click.argument("record", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option(
    "--rules",
    type=rules_type(),
    default=None,
    help="Rule set to judge by (default: the record's, or olympiad for text records).",
)
def replay_command(record: Path, rules: RuleSet | None) -> None:
    """Check every ply of a JSON record or a platform text record, and the ending.

    Exits 0 when every ply is legal and the recorded result agrees with the
    board, 1 otherwise (the first illegal ply and why are printed). A withheld
    record (its layout held back until the other game of its deal has ended) is
    checked as far as that allows, says so, and exits 0 when nothing checked is wrong.
    """
    try:
        head = record.read_bytes()[:64].lstrip()
        if head.startswith(b"{"):
            game = read_record(record)
            report = replay_game_record(game, rules)
            recorded = f"{game.result} ({game.reason.value}) after {game.end_ply} plies"
        else:
            text = read_text_record(record)
            report = replay_text_record(text, rules or resolve_rules("olympiad"))
            recorded = text.result_line or "(no result line)"
    except (RulesInputError, InputError, OSError) as error:
        raise click.ClickException(str(error)) from None
    _print_report(report, recorded)
    if not report.ok:
        raise SystemExit(1)


@click.command("reasons")
def reasons_command() -> None:
    """List the reason codes that end a game, as written in records."""
    for reason in Reason:
        click.echo(f"{reason.value:<22} {reason.meaning}")
