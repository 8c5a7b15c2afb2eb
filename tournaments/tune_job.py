"""A whole tuning run as one call: the referee key, the run folder locked, opened and
resumed (its settings written and its state read before the engine starts), the engine
(and the fixed opponent, if any) sandboxed and checked here (or its games played on a
cluster, the engines checked on every worker), every iteration played, ``tuned.toml``
written; what a script or the command line runs."""

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from pydantic import BaseModel, ConfigDict

from banqi_common.interrupt import run_interruptible
from referee.macs import MacKeys

from .engine_places import Notices, check_before_games, playing_for
from .run_access import RunAccess
from .run_adopt import adopt_unsigned
from .run_kinds import TUNE_FILE
from .run_start import taken_run_folder
from .tune import TuneState
from .tune_run import (
    STATE_FILE,
    TUNE,
    TUNE_STATE,
    TuneConfig,
    TuneEvents,
    engine_spec,
    open_tune,
    read_state,
    run_tune,
    start_tune_folder,
    write_tuned,
)


class TuneJob(BaseModel):
    """A tuning run to run: its config, whether its seed was chosen (else a resumed run
    keeps its own), and where its referee key is."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    config: TuneConfig
    seed_given: bool = True
    access: RunAccess = RunAccess()


@dataclass(frozen=True)
class TuneJobEvents:
    """What the run tells its caller: ``started`` with its config (as resumed) and state,
    before any pair; then the run's events."""

    notices: Notices
    started: Callable[[TuneConfig, TuneState, str, Callable[[], str]], None]
    """The config, the state, how many pairs at once (words) and the suffix of a progress
    line (a cluster's workers and games running; empty here)."""
    run: TuneEvents


class TuneOutcome(BaseModel):
    """How the run ended: its config (as resumed), its state, and ``tuned.toml``."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    config: TuneConfig
    state: TuneState
    tuned: Path


def run_tune_job(job: TuneJob, events: TuneJobEvents) -> TuneOutcome:
    """Play every iteration not yet played (a finished run only writes ``tuned.toml``).

    InputError (or OSError) for what cannot be used (the folder's MACs too), TuneError if
    the engines keep failing;
    EngineChecksInterrupted for Ctrl-C while the engine is checked, KeyboardInterrupt during
    the games (the pairs played are kept).
    """
    access = job.access
    key = access.referee_key()
    macs = MacKeys(key)
    out = job.config.out
    with taken_run_folder(out, [TUNE_FILE, STATE_FILE]) as folder:
        if access.adopt_unsigned:
            adopt_unsigned(out, [TUNE, TUNE_STATE], macs)
        book = access.deal_book()
        settings = open_tune(job.config, job.seed_given, macs, book)
        config = settings.config
        start_tune_folder(settings, macs)
        state = read_state(config, macs)
        if len(state.pairs) == config.iterations:
            events.started(config, state, f"{config.concurrency} at once", lambda: "")
        else:
            opponent = config.opponent_spec()
            specs = [engine_spec(config, "theta", state.theta)]
            if opponent is not None:
                specs.append(opponent)
            play, cluster = playing_for(access, config, config.out, specs, events.notices)
            at_once = play.at_once(config.concurrency, access.concurrency_given)
            events.started(config, state, at_once, play.status)
            folder.engines_start()
            if cluster is None:
                check_before_games(specs, play.start_engine, config)
            tune = run_tune(config, state, key, events.run, play.start_engine, play.place, book)
            state = run_interruptible(tune)
        tuned = write_tuned(config, state)
    return TuneOutcome(config=config, state=state, tuned=tuned)
