"""A whole tuning run as one call: the referee key, the run folder opened, locked and
resumed, the engine sandboxed and checked, every iteration played, ``tuned.toml``
written; what a script or the command line runs."""

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from pydantic import BaseModel, ConfigDict

from banqi_common.interrupt import run_interruptible

from .engine_places import Notices, check_before_games, sandboxed_engines
from .run_access import RunAccess
from .run_folder import locked_run
from .tune import TuneState
from .tune_run import (
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
    started: Callable[[TuneConfig, TuneState], None]
    run: TuneEvents


class TuneOutcome(BaseModel):
    """How the run ended: its config (as resumed), its state, and ``tuned.toml``."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    config: TuneConfig
    state: TuneState
    tuned: Path


def run_tune_job(job: TuneJob, events: TuneJobEvents) -> TuneOutcome:
    """Play every iteration not yet played (a finished run only writes ``tuned.toml``).

    InputError (or OSError) for what cannot be used, TuneError if the engines keep failing;
    EngineChecksInterrupted for Ctrl-C while the engine is checked, KeyboardInterrupt during
    the games (the pairs played are kept).
    """
    key = job.access.referee_key()
    settings = open_tune(job.config, job.seed_given)
    config = settings.config
    with locked_run(config.out):
        state = read_state(config)
        events.started(config, state)
        if len(state.pairs) < config.iterations:
            start = engine_spec(config, "theta", state.theta)
            hidden = job.access.hidden(config.out)
            factory, isolation = sandboxed_engines(config.sandbox, hidden, (start,))
            events.notices.isolation(isolation, config.sandbox)
            check_before_games((start,), factory, config)
            start_tune_folder(settings)
            state = run_interruptible(run_tune(config, state, key, events.run, factory))
        tuned = write_tuned(config, state)
    return TuneOutcome(config=config, state=state, tuned=tuned)
