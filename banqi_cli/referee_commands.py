"""``banqi match`` and ``banqi replay``."""

import re
from pathlib import Path

import click
from pydantic import ValidationError

from banqi_common.errors import InputError
from banqi_common.interrupt import run_interruptible
from banqi_engine.errors import RulesInputError
from banqi_engine.rules import RuleSet
from referee.deal_book import LoadedBook
from referee.deals import new_seed
from referee.engine_spec import NAME_LIMIT, EngineSpec, default_name, split_command
from referee.reasons import Reason
from referee.record import GameRecord, read_record
from referee.replay import ReplayReport, replay_game_record, replay_text_record
from referee.sandbox import SandboxMode
from referee.text_record import read_text_record
from referee.timecontrol import TimeControl
from tournaments.from_records import head_to_head_from_records
from tournaments.match import open_match, run_match, score_tracker, start_match_folder
from tournaments.match_config import MatchConfig, match_setups
from tournaments.match_score import (
    DEFAULT_POINTS,
    MatchScore,
    MatchVerdict,
    PointsScheme,
    ScoreTracker,
    parse_points,
)
from tournaments.reports import format_head_to_head
from tournaments.results import Standings
from tournaments.run_folder import existing_records, locked_run
from tournaments.runner import RunEvents, RunOptions

from .options import (
    RUNS_FOLDER,
    FiniteFloatRange,
    Playing,
    RulesType,
    UntoldRules,
    check_before_games,
    cluster_options,
    deals_option,
    engine_factory,
    engine_out,
    field_option,
    hidden_paths,
    live_views_safe,
    load_deal_book,
    make_cluster,
    on_cluster,
    referee_key,
    rules_option,
    run_options,
    seed_words,
    time_control_options,
)

ENGINE_NAME = re.compile(r"^([^\s=/\\]+)=(.+)$", re.DOTALL)
"""``NAME=COMMAND``: a name with no space, ``=`` or slash, then the command."""


def engine_specs(engine_a: str, engine_b: str) -> tuple[EngineSpec, EngineSpec]:
    """The two engines of a match from ``[NAME=]COMMAND`` arguments; a clean error if not."""
    specs = []
    for text in (engine_a, engine_b):
        named = ENGINE_NAME.match(text)
        command_text = named.group(2) if named else text
        try:
            command = split_command(command_text)
        except InputError as error:
            raise click.ClickException(str(error)) from None
        name = named.group(1) if named else default_name(command)
        try:
            specs.append(EngineSpec(name=name, command=command))
        except ValidationError as error:
            reason = str(error.errors()[0]["msg"]).removeprefix("Value error, ")
            raise click.ClickException(f"engine name {name!r}: {reason}") from None
    if specs[0].name == specs[1].name:
        if ENGINE_NAME.match(engine_a) and ENGINE_NAME.match(engine_b):
            raise click.ClickException(f"both engines are named {specs[0].name!r}")
        base = specs[0].name[: NAME_LIMIT - 3].rstrip()
        specs = [
            spec.model_copy(update={"name": f"{base} #{n}"}) for n, spec in enumerate(specs, 1)
        ]
    return specs[0], specs[1]


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
        draws = sum(1 for r in records if r.winner is None and not r.void)
        lines.append(f"  {name}: {wins} W, {draws} D, {losses} L")
    voids = sum(1 for r in records if r.void)
    if voids:
        lines.append(f"  void games (both engines failed): {voids}")
    faults = [r for r in records if r.loser_failed and not r.void]
    if faults:
        lines.append(f"  engine faults: {len(faults)} (see 'detail' in the records)")
    return lines


class PointsType(click.ParamType):  # type: ignore[type-arg]
    """``--points WIN,DRAW,LOSS``: three finite numbers, a win above a loss, a draw between."""

    name = "WIN,DRAW,LOSS"

    def convert(
        self, value: object, param: click.Parameter | None, ctx: click.Context | None
    ) -> PointsScheme:
        if isinstance(value, PointsScheme):
            return value
        try:
            return parse_points(str(value))
        except ValueError as error:
            self.fail(str(error), param, ctx)


def match_score(
    first_to: float | None, points: PointsScheme | None, ctx: click.Context
) -> MatchScore | None:
    """The score the match is played to, if any; ``--points`` alone is a usage error."""
    if first_to is None:
        if points is not None:
            raise click.UsageError("--points needs --first-to (the score to play to)", ctx)
        return None
    win, draw, loss = DEFAULT_POINTS
    scheme = points if points is not None else PointsScheme(win=win, draw=draw, loss=loss)
    return MatchScore(first_to=first_to, points=scheme)


def default_match_folder(engines: tuple[EngineSpec, EngineSpec]) -> Path:
    """``banqi-runs/match-<A>-vs-<B>``: the same match, run again, resumes there."""
    words = "-vs-".join(re.sub(r"[^A-Za-z0-9._+-]+", "_", spec.name) for spec in engines)
    return RUNS_FOLDER / f"match-{words}"


@click.command("match")
@click.argument("engine_a", metavar="[NAME=]COMMAND_A")
@click.argument("engine_b", metavar="[NAME=]COMMAND_B")
@field_option(
    "--games",
    model=MatchConfig,
    field="games",
    help="Games to play; pairs share a hidden layout with seats swapped.",
)
@field_option("--concurrency", model=MatchConfig, field="concurrency", help="Games played at once.")
@click.option(
    "--first-to",
    type=FiniteFloatRange(min=0, min_open=True),
    default=None,
    metavar="POINTS",
    help="Play pairs of games until an engine has POINTS points at the end of a pair "
    "(or --games runs out); the summary says who won the match.",
)
@click.option(
    "--points",
    type=PointsType(),
    default=None,
    help="Points for a win, a draw and a loss with --first-to. Default: 3,1,0.",
)
@rules_option
@time_control_options
@run_options
@deals_option
@cluster_options
@click.option(
    "--out",
    type=click.Path(file_okay=False, path_type=Path),
    default=None,
    help="Run folder; the same folder resumes the match. Default: "
    "banqi-runs/match-<NAME_A>-vs-<NAME_B>.",
)
def match_command(
    engine_a: str,
    engine_b: str,
    games: int,
    concurrency: int,
    first_to: float | None,
    points: PointsScheme | None,
    rules: RuleSet,
    time_control: TimeControl,
    stall_timeout: float,
    seed: int | None,
    out: Path | None,
    log_traffic: bool,
    sandbox: str,
    key_file: Path | None,
    deals: Path | None,
    cluster: str | None,
    tls_ca_file: Path | None,
    tls_cert: Path | None,
    tls_key: Path | None,
) -> None:
    """Play GAMES games between two DCTP engines; run it again to resume.

    Each engine is a command line, split like a shell does, optionally named:
    "alpha=./my_engine --depth 6" or "banqi-engine --level 1". Each engine is
    started and handshaken once before the first game. Prints one line per
    finished game and a summary with the head-to-head Elo; exits 0 when every
    game was played. With --first-to the match ends at the end of the pair after which an
    engine has that many points, and the summary says who won it.
    """
    score = match_score(first_to, points, click.get_current_context())
    engines = engine_specs(engine_a, engine_b)
    key = referee_key(key_file)
    book = load_deal_book(deals)
    folder = out if out is not None else default_match_folder(engines)
    config = MatchConfig(
        engines=engines,
        games=games,
        concurrency=concurrency,
        rules=rules,
        time_control=time_control,
        seed=new_seed() if seed is None else seed,
        out=folder,
        log_traffic=log_traffic,
        stall_timeout=stall_timeout,
        sandbox=SandboxMode(sandbox),
    )
    tls = (tls_ca_file, tls_cert, tls_key)
    hidden = hidden_paths(key_file, folder, deals)
    on = make_cluster(cluster, tls, config.sandbox, hidden)
    if on is None:
        play = Playing(engine_factory(config.sandbox, key_file, folder, engines, deal_book=deals))
    else:
        play = on_cluster(on, engines, time_control, stall_timeout, rules)
    try:
        state = open_match(config, seed_given=seed is not None, book=book, score=score)
        if on is None:
            check_before_games(engines, play.start_engine, time_control, stall_timeout, rules)
        with locked_run(folder):
            start_match_folder(state)
            tracker = None if score is None else score_tracker(state.config, score)
            finished = play_with_progress(state.config, key, play, seed, book, tracker)
    except (InputError, OSError) as error:
        raise click.ClickException(str(error)) from None
    for line in _summary(finished, (engines[0].name, engines[1].name)):
        click.echo(line)
    stats = head_to_head_from_records(finished, engines[0].name, engines[1].name)
    click.echo(f"  {format_head_to_head(stats)}")
    if tracker is not None:
        result = tracker.result()
        click.echo(result.summary)
        later = len(finished) - result.games
        if result.outcome in (MatchVerdict.WON, MatchVerdict.DRAWN) and later > 0:
            click.echo(
                f"  {later} later game(s), started before the match was decided, not counted"
            )


def play_with_progress(
    config: MatchConfig,
    key: bytes,
    play: Playing,
    seed: int | None,
    book: LoadedBook | None = None,
    tracker: ScoreTracker | None = None,
) -> list[GameRecord]:
    """Play the match's missing games (of a match to a score, until it is decided), a line
    per game; Ctrl-C exits 130 keeping finished records."""
    ids = [setup.game_id for setup in match_setups(config)]
    at_once = play.at_once(config.concurrency)
    already = len(existing_records(config.out, ids))
    engines = config.engines
    click.echo(
        f"match: {engines[0].name} vs {engines[1].name}, {config.games} games, "
        f"rules {config.rules.name}, time {config.time_control.describe()}, "
        f"{seed_words(seed)}, {at_once}, records in {config.out}"
        + (f"; resuming with {already} games done" if already else "")
    )
    if tracker is not None:
        click.echo(
            f"{tracker.score.describe()}: no new pair starts once an engine has "
            f"{tracker.score.first_to:g} points at the end of a pair"
        )
    done = already
    untold = UntoldRules()

    def game_done(record: GameRecord, standings: Standings) -> None:
        nonlocal done
        done += 1
        untold.note(record)
        click.echo(_game_line(record, done, config.games) + play.status())

    options = RunOptions(
        key=key,
        out=config.out,
        events=RunEvents(game_done, engine_out),
        log_traffic=config.log_traffic,
        start_engine=play.start_engine,
        book=book,
        play_on=play.place,
        live_views=live_views_safe(config.sandbox, config.concurrency),
    )
    try:
        return run_interruptible(run_match(config, options, tracker))
    except KeyboardInterrupt:
        click.echo(
            f"interrupted: {done} of {config.games} games finished; records in "
            f"{config.out}; run the same command to resume",
            err=True,
        )
        raise SystemExit(130) from None


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
