"""``banqi match`` and ``banqi replay``."""

import datetime as dt
from pathlib import Path

import click

from banqi_engine.errors import BanqiError
from banqi_engine.rules import RuleSet
from referee.deals import new_seed
from referee.engine_spec import NAME_LIMIT, EngineSpec, default_name, split_command
from referee.engine_start import EngineFactory
from referee.errors import InputError
from referee.match import MatchConfig, play_match
from referee.reasons import Reason
from referee.record import GameRecord, read_record
from referee.replay import ReplayReport, replay_game_record, replay_text_record
from referee.sandbox import SandboxMode
from referee.storage import GAMES_DIR
from referee.text_record import read_text_record
from referee.timecontrol import TimeControl

from .options import (
    RUNS_FOLDER,
    RulesType,
    engine_factory,
    field_option,
    referee_key,
    rules_option,
    run_options,
    seed_words,
    time_control_options,
)


def _engine_specs(command_a: str, command_b: str) -> tuple[EngineSpec, EngineSpec]:
    try:
        commands = (split_command(command_a), split_command(command_b))
    except InputError as error:
        raise click.ClickException(str(error)) from None
    names = [default_name(c) for c in commands]
    if names[0] == names[1]:
        base = names[0][: NAME_LIMIT - 3].rstrip()
        names = [f"{base} #1", f"{base} #2"]
    return (
        EngineSpec(name=names[0], command=commands[0]),
        EngineSpec(name=names[1], command=commands[1]),
    )


def _game_line(record: GameRecord, done: int, total: int) -> str:
    a, b = (p.name for p in record.players)
    first = record.players[record.first].name
    return (
        f"[{done}/{total}] {record.game_id}  {a} {record.score} {b}  {record.reason.value}: "
        f"{record.result} ({record.end_ply} plies, {first} first)"
    )


def _summary(records: list[GameRecord], names: tuple[str, str]) -> list[str]:
    points = [sum(r.points(i) for r in records) for i in range(2)]
    lines = [
        f"Score of {names[0]} vs {names[1]}: {points[0]:g} - {points[1]:g} ({len(records)} games)"
    ]
    for index, name in enumerate(names):
        wins = sum(1 for r in records if r.winner == index)
        losses = sum(1 for r in records if r.winner == 1 - index)
        draws = len(records) - wins - losses
        lines.append(f"  {name}: {wins} W, {draws} D, {losses} L")
    faults = [r for r in records if r.loser_failed]
    if faults:
        lines.append(f"  engine faults: {len(faults)} (see 'detail' in the records)")
    return lines


@click.command("match")
@click.argument("command_a")
@click.argument("command_b")
@field_option(
    "--games",
    model=MatchConfig,
    field="games",
    help="Games to play; pairs share a hidden layout with seats swapped.",
)
@rules_option
@time_control_options
@run_options
@click.option(
    "--out",
    type=click.Path(file_okay=False, path_type=Path),
    default=None,
    help="Folder for the records. Default: banqi-runs/match-<date>-<time>.",
)
def match_command(
    command_a: str,
    command_b: str,
    games: int,
    rules: RuleSet,
    time_control: TimeControl,
    stall_timeout: float,
    seed: int | None,
    out: Path | None,
    log_traffic: bool,
    sandbox: str,
    key_file: Path | None,
) -> None:
    """Play GAMES games between two DCTP engines, COMMAND_A and COMMAND_B.

    Each engine is a command line, split like a shell does, for example
    "./my_engine --depth 6" or "banqi-engine --level 1". Prints one line per
    finished game and a summary; exits 0 when every game was played.
    """
    engines = _engine_specs(command_a, command_b)
    key = referee_key(key_file)
    folder = _records_folder(out)
    config = MatchConfig(
        engines=engines,
        games=games,
        rules=rules,
        time_control=time_control,
        seed=new_seed() if seed is None else seed,
        out=folder,
        log_traffic=log_traffic,
        stall_timeout=stall_timeout,
        sandbox=SandboxMode(sandbox),
    )
    start_engine = engine_factory(config.sandbox, key_file, folder, engines)
    click.echo(
        f"match: {engines[0].name} vs {engines[1].name}, {games} games, rules {rules.name}, "
        f"time {time_control.describe()}, "
        f"{seed_words(seed)}, records in {folder}"
    )
    finished = play_with_progress(config, key, start_engine)
    for line in _summary(finished, (engines[0].name, engines[1].name)):
        click.echo(line)


def _records_folder(out: Path | None) -> Path:
    """The match's folder (default: a new dated one), made, and refused if it holds records."""
    if out is None:
        out = RUNS_FOLDER / dt.datetime.now().strftime("match-%Y%m%d-%H%M%S")
    games = out / GAMES_DIR
    if games.is_dir() and any(games.glob("*.json")):
        raise click.ClickException(
            f"{out} already holds game records; choose another --out (a match never "
            "overwrites records)"
        )
    try:
        games.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise click.ClickException(
            f"cannot create the records folder {games}: {error.strerror}"
        ) from None
    return out


def play_with_progress(
    config: MatchConfig, key: bytes, start_engine: EngineFactory
) -> list[GameRecord]:
    """Play the match, printing a line per game; Ctrl-C exits 130 keeping finished records."""
    finished: list[GameRecord] = []

    def report(record: GameRecord) -> None:
        finished.append(record)
        click.echo(_game_line(record, len(finished), config.games))

    try:
        play_match(config, key, report, start_engine)
    except KeyboardInterrupt:
        click.echo(
            f"interrupted: {len(finished)} of {config.games} games finished; "
            f"records in {config.out}",
            err=True,
        )
        raise SystemExit(130) from None
    except OSError as error:
        raise click.ClickException(f"cannot write the records in {config.out}: {error}") from None
    return finished


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
    type=RulesType(),
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
            report = replay_text_record(text, rules or RulesType().convert("olympiad", None, None))
            recorded = text.result_line or "(no result line)"
    except (BanqiError, InputError, OSError) as error:
        raise click.ClickException(str(error)) from None
    _print_report(report, recorded)
    if not report.ok:
        raise SystemExit(1)


@click.command("reasons")
def reasons_command() -> None:
    """List the reason codes that end a game, as written in records."""
    for reason in Reason:
        click.echo(f"{reason.value:<22} {reason.meaning}")
