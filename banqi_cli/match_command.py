"""``banqi match``: two engines, pairs of games on one hidden layout with the seats
swapped; run it again to resume."""

from typing import NoReturn

import click

from banqi_engine.rules import RuleSet
from referee.engine_spec import EngineSpec
from referee.record import GameRecord
from referee.sandbox import SandboxMode
from referee.timecontrol import TimeControl
from tournaments.match_config import MatchConfig
from tournaments.match_job import MatchEvents, MatchJob, MatchStart, run_match_job
from tournaments.match_score import DEFAULT_POINTS, MatchScore, PointsScheme

from . import output
from .engine_args import engine_pair_arguments
from .game_options import quick_time
from .live_line import Live, live_line
from .match_lines import game_line, header, summary
from .param_types import FiniteFloatRange, field_option, points_type
from .run_options import PairRunFlags, pair_run_options

GAMES_HELP = "Games to play; pairs share a hidden layout with seats swapped."


def match_score(first_to: float | None, points: PointsScheme | None) -> MatchScore | None:
    """The score the match is played to, if any; ``--points`` alone is a usage error."""
    if first_to is None:
        if points is not None:
            raise click.UsageError(
                "--points needs --first-to (the score to play to)", click.get_current_context()
            )
        return None
    win, draw, loss = DEFAULT_POINTS
    scheme = points if points is not None else PointsScheme(win=win, draw=draw, loss=loss)
    return MatchScore(first_to=first_to, points=scheme)


class MatchProgress:
    """The match's lines as it goes, and what Ctrl-C leaves."""

    def __init__(self, seed: int | None, quiet: bool, live: Live) -> None:
        self.seed = seed
        self.quiet = quiet
        self.live = live
        self.done = 0
        self.untold = output.UntoldRules()
        self.start: MatchStart | None = None

    def started(self, start: MatchStart) -> None:
        self.start = start
        self.live.watch(start.config.out)
        self.done = start.already
        if not self.quiet:
            for line in header(start, self.seed):
                output.say(line)

    def interrupted(self, config: MatchConfig) -> NoReturn:
        output.interrupted(
            f"interrupted: {self.done} of {config.games} games finished; records in "
            f"{config.out}; run the same command to resume"
        )

    def game_done(self, record: GameRecord) -> None:
        assert self.start is not None
        self.done += 1
        self.untold.note(record)
        if not self.quiet:
            output.say(game_line(record, self.done, self.start.config.games) + self.start.status())


@quick_time
@click.command("match")
@engine_pair_arguments("A", "B")
@field_option("--games", model=MatchConfig, field="games", help=GAMES_HELP)
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
    type=points_type(),
    default=None,
    help="Points for a win, a draw and a loss with --first-to. Default: 3,1,0.",
)
@pair_run_options(
    "match",
    "the summary",
    "Run folder; the same folder resumes the match. Default: "
    "banqi-runs/match-<NAME_A>-vs-<NAME_B>.",
)
def match_command(
    engines: tuple[EngineSpec, EngineSpec],
    first_to: float | None,
    points: PointsScheme | None,
    run: PairRunFlags,
    **settings: int | float | bool | RuleSet | TimeControl | SandboxMode,
) -> None:
    """Play GAMES games between two DCTP engines; run it again to resume.

    Without --time each side has 10 s a game (the platform's is --time 900); the header
    says how long the match may take at most.

    Each engine is a command line, split like a shell does, optionally named:
    "alpha=./my_engine --depth 6" or "banqi-engine --level 1". Each engine is
    started and handshaken once before the first game. Prints one line per
    finished game and a summary with the head-to-head Elo; exits 0 when every
    game was played. On a terminal (or with --progress) a line redrawn in place shows the
    games in progress. With --first-to the match ends at the end of the pair after which an
    engine has that many points, and the summary says who won it.
    """
    score = match_score(first_to, points)
    config = MatchConfig.model_validate(settings | run.fields(engines))
    access = run.access.access()
    job = MatchJob(config=config, seed_given=run.seed is not None, score=score, access=access)
    with live_line(run.live, run.quiet) as shown:
        progress = MatchProgress(run.seed, run.quiet, shown)
        events = MatchEvents(
            output.notices(run.quiet), progress.started, progress.game_done, output.engine_out
        )
        outcome = output.run_job(
            lambda: run_match_job(job, events),
            lambda: progress.interrupted(progress.start.config if progress.start else config),
        )
    for line in summary(outcome, (engines[0].name, engines[1].name)):
        output.say(line)
