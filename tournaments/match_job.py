"""A whole match as one call: the referee key and deal book, where its games are played
(sandboxed here, or on a cluster), the run folder locked, opened and resumed (its state
written and its records read before any engine starts), the engine checks, the games
played; what a script or the command line runs."""

from collections.abc import Callable
from dataclasses import dataclass

from pydantic import BaseModel, ConfigDict

from banqi_common.interrupt import run_interruptible
from referee.engine_start import EngineFactory
from referee.macs import MacKeys
from referee.record import GameRecord

from .engine_places import Notices, check_before_games, playing_for
from .match import MATCH, MATCH_FILE, open_match, run_match, score_tracker, start_match_folder
from .match_config import MatchConfig, match_setups
from .match_score import MatchResult, MatchScore
from .placed_options import placed_options
from .report_about import run_asked
from .results import Standings
from .run_access import RunAccess
from .run_adopt import adopt_unsigned
from .run_folder import existing_records
from .run_start import taken_run_folder
from .runner import RunEvents, RunOptions


class MatchJob(BaseModel):
    """A match to run: its config, whether its seed was chosen (else a resumed match keeps
    its own), the score it is played to (None: every game), and its access."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    config: MatchConfig
    seed_given: bool = True
    score: MatchScore | None = None
    access: RunAccess = RunAccess()


@dataclass(frozen=True)
class MatchStart:
    """The match as it starts: its config (as resumed), games already played, how many at
    once (in words), the score it is played to, and a progress suffix (a cluster's)."""

    config: MatchConfig
    already: int
    at_once: str
    score: MatchScore | None
    status: Callable[[], str]


@dataclass(frozen=True)
class MatchEvents:
    """What the match tells its caller as it goes."""

    notices: Notices
    started: Callable[[MatchStart], None]
    game_done: Callable[[GameRecord], None]
    engine_out: Callable[[str, int | None, str], None]


class MatchOutcome(BaseModel):
    """How the match ended: every record, in game order, and (to a score) its result."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    records: list[GameRecord]
    result: MatchResult | None


def run_match_job(
    job: MatchJob, events: MatchEvents, start_engine: EngineFactory | None = None
) -> MatchOutcome:
    """Play the match's missing games (of a match to a score, until it is decided), its
    engines started sandboxed (or by ``start_engine``, if given) or on the access's cluster.

    InputError (or OSError) for what cannot be used: the key, the book, the folder (its
    files' MACs too), the sandbox, an engine (a new match refused then leaves no folder:
    ``tournaments.run_start``); EngineChecksInterrupted for Ctrl-C while the engines are
    checked, KeyboardInterrupt for Ctrl-C during the games (the finished ones are kept).
    """
    config, access = job.config, job.access
    key = access.referee_key()
    macs = MacKeys(key)
    book = access.deal_book()
    play, cluster = playing_for(
        access, config, config.out, config.engines, events.notices, start_engine
    )
    with taken_run_folder(config.out, [MATCH_FILE]) as folder:
        if access.adopt_unsigned:
            adopt_unsigned(config.out, [MATCH], macs)
        state = open_match(config, job.seed_given, macs, book=book, score=job.score)
        start_match_folder(state, macs)
        config = state.config
        found = existing_records(config.out, list(match_setups(config)), macs)
        tracker = None if job.score is None else score_tracker(config, job.score, found)
        folder.engines_start()
        if cluster is None:
            check_before_games(config.engines, play.start_engine, config)
        at_once = play.at_once(config.concurrency, access.concurrency_given)
        events.started(MatchStart(config, len(found), at_once, job.score, play.status))

        def game_done(record: GameRecord, standings: Standings) -> None:
            events.game_done(record)

        options = RunOptions(
            key=key,
            out=config.out,
            events=RunEvents(game_done, events.engine_out),
            log_traffic=config.log_traffic,
            book=book,
            found=found,
            asked=run_asked(config, config.engines, config.seed, state.deal_book),
            **placed_options(play, config),
        )
        records = run_interruptible(run_match(config, options, tracker))
    result = None if tracker is None else tracker.result()
    return MatchOutcome(records=records, result=result)
