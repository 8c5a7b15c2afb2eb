"""``banqi replay`` and ``banqi reasons``."""

from pathlib import Path

import click

from banqi_common.errors import InputError
from banqi_engine.errors import RulesInputError
from banqi_engine.rules import RuleSet, resolve_rules
from referee.deals import default_key_path, found_referee_key
from referee.macs import MacKeys, mac_matches
from referee.reasons import Reason
from referee.record import GameRecord
from referee.record_input import parse_json_record, read_record_text
from referee.replay import ReplayReport, replay_game_record, replay_text_record
from referee.text_record import parse_text_record

from .param_types import rules_type

MAC_HINT = "--skip-mac to check the plies alone"


def _mac_line(record: GameRecord, key_file: Path | None) -> tuple[str, bool]:
    """What the check of a JSON record's MAC found, in words, and whether it passed (no
    key to check it with passes, and says so)."""
    found = found_referee_key(key_file)
    if found is None:
        return f"not checked: no referee key at {default_key_path()} (--key-file KEY)", True
    path, key = found
    game_key = MacKeys(key).game(record.seed, record.game_id)
    if record.mac is None:
        return f"MISSING: not written by a run of the referee key {path} ({MAC_HINT})", False
    if not mac_matches(record, record.mac, game_key):
        return (
            f"WRONG: not written by the referee key {path}, or changed since ({MAC_HINT})",
            False,
        )
    return f"valid (referee key {path})", True


class UnreadableRecord(click.ClickException):
    """A record replay cannot read: exit status 2."""

    exit_code = 2


def _folder_words(folder: Path) -> str:
    """Why a folder is not a record, and which records it holds."""
    records = sorted(folder.glob("games/*.json")) or sorted(folder.glob("*.json"))
    if not records:
        return f"{folder} is a folder, not a record file, and holds no JSON record"
    more = f" (and {len(records) - 1} more)" if len(records) > 1 else ""
    return f"{folder} is a folder, not a record file: give one, e.g. {records[0]}{more}"


def _print_report(report: ReplayReport, recorded: str, mac: str, mac_ok: bool) -> None:
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
    click.echo(f"mac: {mac}")
    for problem in report.problems:
        click.echo(f"problem: {problem}")
    if report.problems or not mac_ok:
        click.echo("NOT OK")
    elif report.incomplete is not None:
        click.echo(f"INCOMPLETE: {report.incomplete}")
    elif report.withheld:
        click.echo("ok as far as it can be checked: no ply is impossible (layout withheld)")
    else:
        click.echo("ok: every ply is legal and the ending agrees")


@click.command("replay")
@click.argument("record", type=click.Path(exists=True, path_type=Path))
@click.option(
    "--rules",
    type=rules_type(),
    default=None,
    help="Rule set to judge by (default: the record's, or olympiad for text records).",
)
@click.option(
    "--key-file",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    help="Referee key to check a JSON record's MAC with. Default: $BANQI_REFEREE_KEY or "
    "~/.config/banqi/referee.key, if there is one (never made).",
)
@click.option(
    "--skip-mac",
    is_flag=True,
    help="Do not check the MAC: a record of another referee's, or one written outside a run "
    "(banqi gui's games, banqi.play_game's).",
)
def replay_command(
    record: Path, rules: RuleSet | None, key_file: Path | None, skip_mac: bool
) -> None:
    """Check every ply of a JSON record or a text record (ours or the NTU platform's), the
    ending, every field against the plies, and a JSON record's MAC.

    Exits 0 when the record is complete, every ply is legal and every field agrees
    (result, reason, winner, players, clocks, layout and secret), 1 when anything does
    not (the first illegal ply and why are printed), 2 when the file cannot be read as a
    record (at most 8 MiB and 100,000 lines, a regular file) or the record is
    incomplete (no result line, cut short). A withheld
    record (its layout held back until the other game of its deal has ended) is
    checked as far as that allows, says so, and exits 0 when nothing checked is wrong.
    With a referee key (--key-file, else the one in its usual place, if any) a JSON
    record whose MAC is missing or wrong is NOT OK too; the line `mac:` says whether
    and how the MAC was checked.
    """
    if skip_mac and key_file is not None:
        raise click.UsageError("--skip-mac and --key-file do not go together")
    if record.is_dir():
        raise UnreadableRecord(_folder_words(record))
    try:
        content = read_record_text(record)
        if record.suffix.lower() == ".json" or content.lstrip().startswith("{"):
            game = parse_json_record(content, record)
            report = replay_game_record(game, rules)
            recorded = f"{game.result} ({game.reason.value}) after {game.end_ply} plies"
            if skip_mac:
                mac, mac_ok = "not checked (--skip-mac)", True
            else:
                mac, mac_ok = _mac_line(game, key_file)
        else:
            text = parse_text_record(content)
            report = replay_text_record(text, rules or resolve_rules("olympiad"))
            recorded = text.result_line or "(no result line)"
            mac, mac_ok = "not checked: a text record has none", True
    except (RulesInputError, InputError, OSError) as error:
        raise UnreadableRecord(str(error)) from None
    _print_report(report, recorded, mac, mac_ok)
    if report.problems or not mac_ok:
        raise SystemExit(1)
    if report.incomplete is not None:
        raise SystemExit(2)


@click.command("reasons")
def reasons_command() -> None:
    """List the reason codes that end a game, as written in records."""
    for reason in Reason:
        click.echo(f"{reason.value:<22} {reason.meaning}")
