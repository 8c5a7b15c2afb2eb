"""``banqi sprt``: a sequential probability ratio test of a new engine against a base one."""

import re
from pathlib import Path

import click
from pydantic import ValidationError

from banqi_common.errors import InputError
from banqi_common.interrupt import run_interruptible
from banqi_engine.rules import RuleSet
from referee.deal_book import LoadedBook
from referee.deals import new_seed
from referee.engine_spec import EngineSpec
from referee.sandbox import SandboxMode
from referee.timecontrol import TimeControl
from tournaments.run_folder import locked_run
from tournaments.sprt import EloModel, SprtStatus, SprtTest, Verdict
from tournaments.sprt_chart import estimate_text
from tournaments.sprt_run import (
    CHART_FILE,
    DEFAULT_MAX_GAMES,
    MAX_GAMES,
    STATUS_FILE,
    SprtConfig,
    SprtEvents,
    SprtTracker,
    open_sprt,
    run_sprt,
    save_status,
    start_sprt_folder,
)

from .options import (
    RUNS_FOLDER,
    Playing,
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
from .referee_commands import engine_specs


def default_sprt_folder(engines: tuple[EngineSpec, EngineSpec]) -> Path:
    """``banqi-runs/sprt-<NEW>-vs-<BASE>``: the same test, run again, resumes there."""
    words = "-vs-".join(re.sub(r"[^A-Za-z0-9._+-]+", "_", spec.name) for spec in engines)
    return RUNS_FOLDER / f"sprt-{words}"


def pair_line(status: SprtStatus) -> str:
    """The progress line after a pair: games, W-D-L, pairs, Elo, nElo and LLR with bounds."""
    void = f" ({status.void} void)" if status.void else ""
    counts = status.pentanomial
    return (
        f"pair {status.pairs} ({status.games} games{void}): "
        f"W-D-L {status.wins}-{status.draws}-{status.losses}, "
        f"pairs [{', '.join(map(str, counts))}], "
        f"Elo {estimate_text(status.elo, status.elo_error, counts)}, "
        f"nElo {estimate_text(status.nelo, status.nelo_error, counts)}, "
        f"LLR {status.llr:.2f} ({status.lower_bound:.2f}, {status.upper_bound:.2f})"
    )


def _difference(elo: float, unit: str, above: bool) -> str:
    """How new compares with base (``new is ... base``) when its Elo difference is above (or
    below) ``elo``."""
    if elo == 0:
        return "stronger than" if above else "not stronger than"
    quantity = "more" if (elo > 0) == above else "less"
    direction = "stronger" if elo > 0 else "weaker"
    return f"{quantity} than {abs(elo):g} {unit} {direction} than"


def verdict_line(status: SprtStatus) -> str:
    """The last line: the verdict and why."""
    test = status.test
    unit = test.model.unit
    new, base = status.new, status.base
    after = f"after {status.games} games"
    if status.verdict is Verdict.H1:
        return (
            f"H1 accepted: {new} is {_difference(test.elo0, unit, True)} {base} "
            f"(LLR {status.llr:.2f} >= {status.upper_bound:.2f} {after})"
        )
    if status.verdict is Verdict.H0:
        return (
            f"H0 accepted: {new} is {_difference(test.elo1, unit, False)} {base} "
            f"(LLR {status.llr:.2f} <= {status.lower_bound:.2f} {after})"
        )
    return (
        f"inconclusive: neither bound reached {after} (LLR {status.llr:.2f}, bounds "
        f"{status.lower_bound:.2f} and {status.upper_bound:.2f}); a larger --max-games goes on"
    )


def _header(tracker: SprtTracker, seed: int | None) -> str:
    config = tracker.config
    test = config.test
    unit = test.model.unit
    new, base = (spec.name for spec in config.engines)
    line = (
        f"sprt: {new} vs {base}, H0 {unit} = {test.elo0:g} against H1 {unit} = {test.elo1:g} "
        f"({test.model.value} Elo), alpha {test.alpha:g}, beta {test.beta:g}, LLR bounds "
        f"({test.lower_bound:.2f}, {test.upper_bound:.2f}); at most {config.max_games} games, "
        f"rules {config.rules.name}, time {config.time_control.describe()}, {seed_words(seed)}, "
        f"{config.concurrency} at once, records in {config.out}"
    )
    if tracker.verdict is not None:
        return line + f"; finished with {tracker.counted} pairs counted"
    if tracker.records:
        return line + f"; resuming with {tracker.counted} pairs counted"
    return line


def _test(model: str, elo0: float, elo1: float, alpha: float, beta: float) -> SprtTest:
    """The test from its options; a one-line error saying what is wrong otherwise."""
    try:
        return SprtTest(model=EloModel(model), elo0=elo0, elo1=elo1, alpha=alpha, beta=beta)
    except ValidationError as error:
        raise click.ClickException(
            str(error.errors()[0]["msg"]).removeprefix("Value error, ")
        ) from None


@click.command("sprt")
@click.argument("engine_new", metavar="[NAME=]COMMAND_NEW")
@click.argument("engine_base", metavar="[NAME=]COMMAND_BASE")
@field_option(
    "--elo0",
    model=SprtTest,
    field="elo0",
    help="H0: new is this much stronger than base, in the --model's Elo.",
)
@field_option(
    "--elo1",
    model=SprtTest,
    field="elo1",
    help="H1: new is this much stronger than base; above --elo0. (fastchess's SPRT "
    "calculator takes 0 and 5 too.)",
)
@click.option(
    "--model",
    type=click.Choice([model.value for model in EloModel]),
    default=EloModel.NORMALIZED.value,
    show_default=True,
    help="Elo of --elo0 and --elo1: normalized (nElo, the default of fastchess's -sprt and "
    "of fishtest's tests) or logistic (the Elo of the expected score).",
)
@field_option("--alpha", model=SprtTest, field="alpha", help="Chance of accepting H1 at elo0.")
@field_option("--beta", model=SprtTest, field="beta", help="Chance of accepting H0 at elo1.")
@click.option(
    "--max-games",
    type=click.IntRange(2, MAX_GAMES),
    default=None,
    help=f"Games after which the test stops inconclusive, even; it may grow on resume. "
    f"Default: {DEFAULT_MAX_GAMES}, or the resumed test's.",
)
@field_option("--concurrency", model=SprtConfig, field="concurrency", help="Games played at once.")
@rules_option
@time_control_options
@run_options
@deals_option
@cluster_options
@click.option(
    "--out",
    type=click.Path(file_okay=False, path_type=Path),
    default=None,
    help="Run folder; the same folder resumes the test. Default: "
    "banqi-runs/sprt-<NAME_NEW>-vs-<NAME_BASE>.",
)
def sprt_command(
    engine_new: str,
    engine_base: str,
    elo0: float,
    elo1: float,
    model: str,
    alpha: float,
    beta: float,
    max_games: int | None,
    concurrency: int,
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
    """Test whether NEW is stronger than BASE: pairs of games (one hidden layout, seats
    swapped) until the log-likelihood ratio of the pentanomial GSPRT (fishtest's and
    fastchess's) crosses a bound, or --max-games; run it again to resume.

    H0 is "new is elo0 stronger", H1 "new is elo1 stronger", in normalized Elo (nElo, the
    default of fastchess and fishtest) or logistic Elo; the bounds are ln(beta/(1-alpha))
    and ln((1-beta)/alpha). Each engine is a command line, optionally named, as for
    'banqi match'. Prints a line per pair counted and the verdict last (H1 accepted, H0
    accepted or inconclusive), exit status 0; sprt.json and sprt.html (the LLR and Elo
    charts) in the run folder follow every pair.
    """
    if max_games is not None and max_games % 2:
        raise click.BadParameter(
            f"{max_games} is odd: games come in pairs", param_hint="'--max-games'"
        )
    engines = engine_specs(engine_new, engine_base)
    key = referee_key(key_file)
    book = load_deal_book(deals)
    folder = out if out is not None else default_sprt_folder(engines)
    test = _test(model, elo0, elo1, alpha, beta)
    config = SprtConfig(
        engines=engines,
        test=test,
        max_games=DEFAULT_MAX_GAMES if max_games is None else max_games,
        concurrency=concurrency,
        rules=rules,
        time_control=time_control,
        seed=new_seed() if seed is None else seed,
        out=folder,
        log_traffic=log_traffic,
        stall_timeout=stall_timeout,
        sandbox=SandboxMode(sandbox),
    )
    try:
        settings = open_sprt(config, seed is not None, max_games is not None, book)
        with locked_run(folder):
            tracker = SprtTracker.from_folder(settings.config)
            click.echo(_header(tracker, seed))
            if tracker.verdict is None:
                tls = (tls_ca_file, tls_cert, tls_key)
                hidden = hidden_paths(key_file, folder, deals)
                on = make_cluster(cluster, tls, config.sandbox, hidden)
                if on is None:
                    start_engine = engine_factory(
                        config.sandbox, key_file, folder, engines, deal_book=deals
                    )
                    check_before_games(engines, start_engine, time_control, stall_timeout, rules)
                    play = Playing(start_engine)
                else:
                    play = on_cluster(on, engines, time_control, stall_timeout, rules)
                start_sprt_folder(settings)
                status = play_with_progress(tracker, key, play, book)
            else:
                status = tracker.status()
                click.echo(pair_line(status))
                save_status(folder, status)
    except (InputError, OSError) as error:
        raise click.ClickException(str(error)) from None
    uncounted = len(tracker.records) - status.games
    if uncounted:
        click.echo(f"{uncounted} games finished after the verdict: recorded, not counted")
    click.echo(f"{STATUS_FILE} and {CHART_FILE} in {folder}")
    click.echo(verdict_line(status))


def play_with_progress(
    tracker: SprtTracker, key: bytes, play: Playing, book: LoadedBook | None
) -> SprtStatus:
    """Play the test's pairs until its verdict, a line per pair counted; Ctrl-C exits 130
    keeping finished records."""
    config = tracker.config
    untold = UntoldRules()

    def pair_counted(status: SprtStatus) -> None:
        click.echo(pair_line(status) + play.status())

    def out_of_the_test(name: str, last: str) -> None:
        engine_out(name, None, last)

    events = SprtEvents(untold.note, pair_counted, out_of_the_test)
    try:
        return run_interruptible(
            run_sprt(
                tracker,
                key,
                events,
                play.start_engine,
                book,
                play.place,
                live_views_safe(tracker.config.sandbox, tracker.config.concurrency),
            )
        )
    except KeyboardInterrupt:
        click.echo(
            f"interrupted: {tracker.counted} pairs counted ({2 * tracker.counted} games), LLR "
            f"{tracker.llr:.2f}; records in {config.out}; run the same command to resume",
            err=True,
        )
        raise SystemExit(130) from None
