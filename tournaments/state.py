"""A tournament's state file: ``tournament.json`` holds the config and seed the run started
with (its rounds raised when a resumed run gains rounds); the records in ``games/`` say
which games exist (``tournaments.run_folder``)."""

from datetime import UTC, datetime
from pathlib import Path
from typing import Literal

from referee.macs import MacKeys
from referee.storage import GAMES_DIR

from .config import TournamentConfig
from .differences import model_differences
from .run_folder import (
    LOCK_FILE,
    DealtRunState,
    RunKind,
    is_temporary,
    open_run_folder,
    refuse_other_settings,
    write_state,
)
from .run_kinds import ENTRANTS_FILE, KINDS, refuse_other_kind
from .run_kinds import STATE_FILE as STATE_FILE
from .run_kinds import RunFolderError as RunFolderError


class TournamentState(DealtRunState):
    """What ``tournament.json`` holds."""

    format: Literal["banqi-tournament/1"] = "banqi-tournament/1"
    seed: int
    config: TournamentConfig


def _check_new_run_folder(out: Path) -> None:
    """Refuse to start a tournament in a folder that holds anything but this run's lock (and
    an arena's tokens):
    another kind of run (named by its state file), records of no run's, or files of the
    user's."""
    refuse_other_kind(out, STATE_FILE)
    games = out / GAMES_DIR
    if games.is_dir() and any(not is_temporary(path) for path in games.iterdir()):
        raise RunFolderError(
            f"{out} holds game records but no run's state file ({', '.join(KINDS)}), so no "
            "run of ours left them; a tournament starts in a new or empty folder: choose "
            "another --out"
        )
    others = sorted(
        path.name
        for path in out.iterdir()
        if path.name not in (LOCK_FILE, GAMES_DIR, ENTRANTS_FILE) and not is_temporary(path)
    )
    if others:
        raise RunFolderError(
            f"{out} is not a tournament's run folder (it has no {STATE_FILE}) and is not "
            f"empty ({', '.join(others[:3])}{', ...' if len(others) > 3 else ''}); "
            "a tournament starts in a new or empty folder: choose another --out"
        )


TOURNAMENT = RunKind(
    STATE_FILE,
    TournamentState,
    "a tournament state",
    "a tournament",
    _check_new_run_folder,
    "a different config",
)


def open_run(out: Path, config: TournamentConfig, new_seed: int, macs: MacKeys) -> TournamentState:
    """The run's state: the saved one, after checking its MAC and that the config is the
    same, or a new one for a new or empty folder (written by ``start_run_folder``, before
    the engines start).

    A config without a seed takes the saved one; with a seed, it must match. The
    saved config holds the run's seed, also when the first run drew it at random.
    A run may gain rounds: more rounds than saved are accepted (the games of the rounds
    it had keep their ids and deals), fewer are refused.
    """

    def resume(state: TournamentState) -> TournamentState:
        saved = state.config
        wanted = (
            config if config.seed is not None else config.model_copy(update={"seed": saved.seed})
        )
        grows = {"rounds"} if wanted.rounds > saved.rounds else set()
        fewer = wanted.rounds < saved.rounds
        why = ". A run can gain rounds (a larger --rounds), not lose them" if fewer else ""
        ignored = TournamentConfig.resumable | grows
        differences = model_differences(saved, wanted, ignored)
        refuse_other_settings(out, TOURNAMENT, differences, why=why)
        return state if wanted == saved else state.model_copy(update={"config": wanted})

    def start() -> TournamentState:
        seed = config.seed if config.seed is not None else new_seed
        return TournamentState(
            created_at=datetime.now(UTC), seed=seed, config=config.model_copy(update={"seed": seed})
        )

    return open_run_folder(out, TOURNAMENT, resume, start, macs)


def start_run_folder(out: Path, state: TournamentState, macs: MacKeys) -> None:
    """Write a new run's ``tournament.json``, or a resumed run's that gains rounds (with
    its new rounds and the settings it resumes with); any other resumed run's is left as
    it is."""
    saved = TOURNAMENT.read(out)
    if saved is None or saved.config.rounds < state.config.rounds:
        write_state(out, TOURNAMENT, state, macs)
