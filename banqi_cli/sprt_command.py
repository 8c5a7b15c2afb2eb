"""``banqi sprt``: a sequential probability ratio test of a new engine against a base one."""

from collections.abc import Callable
from typing import NoReturn

import click
from pydantic import ValidationError

from banqi_engine.rules import RuleSet
from referee.engine_spec import EngineSpec
from referee.record import GameRecord
from referee.sandbox import SandboxMode
from referee.timecontrol import TimeControl
from tournaments.sprt import EloModel, SprtStatus, SprtTest
from tournaments.sprt_job import SprtJob, SprtJobEvents, run_sprt_job
from tournaments.sprt_run import (
    CHART_FILE,
    DEFAULT_MAX_GAMES,
    MAX_GAMES,
    STATUS_FILE,
    SprtConfig,
    SprtEvents,
    SprtTracker,
)

from . import output
from .engine_args import engine_pair_arguments
from .live_line import Live, live_line
from .param_types import choice_option, field_option
from .run_options import PairRunFlags, pair_run_options
from .sprt_lines import fault_line, header, pair_line, verdict_line
from .words import counted


def _test(model: str, elo0: float, elo1: float, alpha: float, beta: float) -> SprtTest:
    """The test from its options; a one-line error saying what is wrong otherwise."""
    try:
        return SprtTest(model=EloModel(model), elo0=elo0, elo1=elo1, alpha=alpha, beta=beta)
    except ValidationError as error:
        raise click.ClickException(
            str(error.errors()[0]["msg"]).removeprefix("Value error, ")
        ) from None


class SprtProgress:
    """The test's lines as it goes, and what Ctrl-C leaves."""

    def __init__(self, seed: int | None, quiet: bool, live: Live) -> None:
        self.seed = seed
        self.quiet = quiet
        self.live = live
        self.tracker: SprtTracker | None = None
        self.status: Callable[[], str] = str
        self.untold = output.UntoldRules()

    def started(self, tracker: SprtTracker) -> None:
        self.tracker = tracker
        self.live.watch(tracker.config.out)
        if not self.quiet:
            output.say(header(tracker, self.seed))

    def playing(self, status: Callable[[], str]) -> None:
        self.status = status

    def pair_counted(self, status: SprtStatus) -> None:
        if not self.quiet:
            output.say(pair_line(status) + self.status())

    def game_done(self, record: GameRecord) -> None:
        self.untold.note(record)
        line = fault_line(record)
        if line and not self.quiet:
            output.say(line)

    def events(self) -> SprtJobEvents:
        run = SprtEvents(
            self.game_done,
            self.pair_counted,
            lambda name, last: output.engine_out(name, None, last),
        )
        return SprtJobEvents(output.notices(self.quiet), self.started, self.playing, run)

    def interrupted(self) -> NoReturn:
        tracker = self.tracker
        if tracker is None:
            raise KeyboardInterrupt
        output.interrupted(
            f"interrupted: {counted(tracker.counted, 'pair')} counted "
            f"({counted(2 * tracker.counted, 'game')}), LLR "
            f"{tracker.llr:.2f}; records in {tracker.config.out}; run the same command to resume"
        )


@click.command("sprt")
@engine_pair_arguments("NEW", "BASE")
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
@choice_option(
    "--model",
    choices=EloModel,
    default=EloModel.NORMALIZED,
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
@pair_run_options(
    "sprt",
    "the verdict and where its files are",
    "Run folder; the same folder resumes the test. Default: "
    "banqi-runs/sprt-<NAME_NEW>-vs-<NAME_BASE>.",
)
def sprt_command(
    engines: tuple[EngineSpec, EngineSpec],
    model: str,
    elo0: float,
    elo1: float,
    alpha: float,
    beta: float,
    max_games: int | None,
    run: PairRunFlags,
    **settings: int | float | bool | RuleSet | TimeControl | SandboxMode,
) -> None:
    """Test whether NEW is stronger than BASE: pairs of games (one hidden layout, seats
    swapped) until the log-likelihood ratio of the pentanomial GSPRT (fishtest's and
    fastchess's) crosses a bound, or --max-games; run it again to resume.

    H0 is "new is elo0 stronger", H1 "new is elo1 stronger", in normalized Elo (nElo, the
    default of fastchess and fishtest) or logistic Elo; the bounds are ln(beta/(1-alpha))
    and ln((1-beta)/alpha). Each engine is a command line, optionally named, as for
    'banqi match'. Prints a line per pair counted, a line per game an engine failed, and
    the verdict last (H1 accepted, H0 accepted or inconclusive), exit status 0; sprt.json
    and sprt.html (the LLR and Elo charts) in the run folder follow every pair.
    """
    if max_games is not None and max_games % 2:
        raise click.BadParameter(
            f"{max_games} is odd: games come in pairs", param_hint="'--max-games'"
        )
    test = _test(model, elo0, elo1, alpha, beta)
    games = DEFAULT_MAX_GAMES if max_games is None else max_games
    given = {"test": test, "max_games": games} | run.fields(engines)
    config = SprtConfig.model_validate(settings | given)
    job = SprtJob(
        config=config,
        seed_given=run.seed is not None,
        max_games_given=max_games is not None,
        access=run.access.access(),
    )
    with live_line(run.live, run.quiet) as shown:
        progress = SprtProgress(run.seed, run.quiet, shown)
        outcome = output.run_job(lambda: run_sprt_job(job, progress.events()), progress.interrupted)
    if outcome.uncounted:
        output.say(f"{outcome.uncounted} games finished after the verdict: recorded, not counted")
    output.say(f"{STATUS_FILE} and {CHART_FILE} in {config.out}")
    output.say(verdict_line(outcome.status))
