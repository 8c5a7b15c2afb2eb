"""A whole SPRT as one call: the referee key and deal book, the run folder locked, opened
and resumed (its settings written and its records read before any engine starts), where
the games are played (sandboxed here, or on a cluster), the engine checks, the pairs played
until the verdict; what a script or the command line runs."""

from collections.abc import Callable
from dataclasses import dataclass

from pydantic import BaseModel, ConfigDict

from banqi_common.interrupt import run_interruptible
from referee.engine_start import EngineFactory
from referee.macs import MacKeys

from .engine_places import Notices, check_before_games, live_views_safe, playing_for
from .run_access import RunAccess
from .run_adopt import adopt_unsigned
from .run_start import taken_run_folder
from .sprt import SprtStatus
from .sprt_run import (
    SETTINGS_FILE,
    SPRT,
    SprtConfig,
    SprtEvents,
    SprtTracker,
    open_sprt,
    run_sprt,
    save_status,
    sprt_asked,
    start_sprt_folder,
)


class SprtJob(BaseModel):
    """An SPRT to run: its config, whether its seed and ``max_games`` were chosen (else a
    resumed test keeps its own), and its access."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    config: SprtConfig
    seed_given: bool = True
    max_games_given: bool = True
    access: RunAccess = RunAccess()


@dataclass(frozen=True)
class SprtJobEvents:
    """What the test tells its caller: ``started`` with the test as its folder has it
    (before any game), then the run's events."""

    notices: Notices
    started: Callable[[SprtTracker], None]
    playing: Callable[[Callable[[], str]], None]
    """Told, once the games are about to be played, the progress suffix of where they are."""
    run: SprtEvents


class SprtOutcome(BaseModel):
    """How the test ended: its status, and the games recorded after the verdict."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    status: SprtStatus
    uncounted: int


def run_sprt_job(
    job: SprtJob, events: SprtJobEvents, start_engine: EngineFactory | None = None
) -> SprtOutcome:
    """Play the test's pairs until its verdict (a finished test is only reported again), its
    engines started sandboxed (or by ``start_engine``, if given) or on the access's cluster.

    InputError (or OSError) for what cannot be used (the folder's MACs too); a new test
    refused by an engine check leaves no folder (``tournaments.run_start``).
    EngineChecksInterrupted for Ctrl-C while the engines are checked, KeyboardInterrupt
    during the games (finished ones kept).
    """
    access = job.access
    key = access.referee_key()
    macs = MacKeys(key)
    book = access.deal_book()
    out = job.config.out
    with taken_run_folder(out, [SETTINGS_FILE]) as folder:
        if access.adopt_unsigned:
            adopt_unsigned(out, [SPRT], macs)
        settings = open_sprt(job.config, job.seed_given, job.max_games_given, macs, book)
        config = settings.config
        tracker = SprtTracker.from_folder(config, macs)
        events.started(tracker)
        if tracker.verdict is None:
            start_sprt_folder(settings, macs)
            play, cluster = playing_for(
                access, config, config.out, config.engines, events.notices, start_engine
            )
            folder.engines_start()
            if cluster is None:
                check_before_games(config.engines, play.start_engine, config)
            events.playing(play.status)
            live_views = live_views_safe(config.sandbox, config.concurrency)
            test = run_sprt(
                tracker,
                key,
                events.run,
                play.start_engine,
                book,
                play.place,
                live_views,
                sprt_asked(settings),
            )
            status = run_interruptible(test)
        else:
            status = tracker.status()
            events.run.pair_counted(status)
            save_status(config.out, status, tracker.about(sprt_asked(settings)))
    return SprtOutcome(status=status, uncounted=len(tracker.records) - status.games)
