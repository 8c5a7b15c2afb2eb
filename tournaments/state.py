"""The run folder of a tournament: its saved config, its records, what is still missing.

``tournament.json`` holds the config and seed the run started with (its rounds raised
when a resumed run gains rounds); the records in ``games/`` say which games exist.
Nothing else is state: a resumed run recomputes everything from these files, so a
``kill -9`` at any moment loses at most the games that were being played.
"""

import contextlib
import fcntl
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, ValidationError

from banqi_common.atomic import write_atomic
from banqi_common.errors import InputError
from referee.deal_book import BookStamp
from referee.record import GameRecord, RecordError, read_record
from referee.storage import GAMES_DIR, record_path

from .config import ConfigError, TournamentConfig
from .differences import model_differences
from .run_kinds import STATE_FILE as STATE_FILE
from .run_kinds import RunFolderError as RunFolderError

LOCK_FILE = "tournament.lock"


class RunLockedError(InputError):
    """Another process holds the run folder's lock: two runs must not share a folder."""


class TournamentState(BaseModel):
    """What ``tournament.json`` holds."""

    model_config = ConfigDict(extra="forbid")

    format: Literal["banqi-tournament/1"] = "banqi-tournament/1"
    created_at: datetime
    seed: int
    config: TournamentConfig
    deal_book: BookStamp | None = None


def open_run(out: Path, config: TournamentConfig, new_seed: int) -> TournamentState:
    """The run's state: the saved one, after checking the config is the same, or a new one
    for a new or empty folder (written by ``start_run_folder``, once the engines have been
    checked, so that a run refused for a broken engine can be started again with it fixed).

    A config without a seed takes the saved one; with a seed, it must match. The
    saved config holds the run's seed, also when the first run drew it at random.
    A run may gain rounds: more rounds than saved are accepted (the games of the rounds
    it had keep their ids and deals), fewer are refused.
    """
    path = out / STATE_FILE
    if path.exists():
        state = _read_state(path)
        saved = state.config
        wanted = (
            config if config.seed is not None else config.model_copy(update={"seed": saved.seed})
        )
        ignored = TournamentConfig.resumable | (
            {"rounds"} if wanted.rounds > saved.rounds else set()
        )
        differences = model_differences(saved, wanted, ignored)
        if differences:
            fewer = wanted.rounds < saved.rounds
            raise ConfigError(
                f"{out} holds a tournament with a different config; resume it with the same "
                "settings or choose another --out. Differences: "
                + "; ".join(differences)
                + (". A run can gain rounds (a larger --rounds), not lose them" if fewer else "")
            )
        return state if wanted == saved else state.model_copy(update={"config": wanted})
    _check_new_run_folder(out)
    seed = config.seed if config.seed is not None else new_seed
    return TournamentState(
        created_at=datetime.now(UTC), seed=seed, config=config.model_copy(update={"seed": seed})
    )


def start_run_folder(out: Path, state: TournamentState) -> None:
    """Write a new run's ``tournament.json``, or a resumed run's that gains rounds (with
    its new rounds and the settings it resumes with); any other resumed run's is left as
    it is."""
    path = out / STATE_FILE
    if not path.exists() or _read_state(path).config.rounds < state.config.rounds:
        write_atomic(path, state.model_dump_json(indent=2) + "\n")


def _read_state(path: Path) -> TournamentState:
    """The saved state in ``path``; RunFolderError if it is damaged."""
    try:
        return TournamentState.model_validate_json(path.read_text(encoding="utf-8"))
    except (OSError, ValidationError) as error:
        raise RunFolderError(f"{path} is damaged or not a tournament state: {error}") from None


def _is_temporary(path: Path) -> bool:
    """A half-written file an atomic write left behind (``.NAME.XXXX.tmp``)."""
    return path.name.startswith(".") and path.name.endswith(".tmp")


def _check_new_run_folder(out: Path) -> None:
    """Refuse to start a tournament in a folder that holds anything but this run's lock:
    records of another kind of run (a match's), or files of the user's."""
    games = out / GAMES_DIR
    if games.is_dir() and any(not _is_temporary(path) for path in games.iterdir()):
        raise RunFolderError(
            f"{out} holds game records but no {STATE_FILE}, so they are not a tournament's "
            "(a match's?); a tournament starts in a new or empty folder: choose another --out"
        )
    others = sorted(
        path.name
        for path in out.iterdir()
        if path.name not in (LOCK_FILE, GAMES_DIR) and not _is_temporary(path)
    )
    if others:
        raise RunFolderError(
            f"{out} is not a tournament's run folder (it has no {STATE_FILE}) and is not "
            f"empty ({', '.join(others[:3])}{', ...' if len(others) > 3 else ''}); "
            "a tournament starts in a new or empty folder: choose another --out"
        )


@contextlib.contextmanager
def locked_run(out: Path) -> Iterator[None]:
    """Make the run folder if needed and hold it for this process while it runs;
    RunFolderError if it cannot be made or locked, RunLockedError if another run holds it.

    The lock is an ``flock`` on ``tournament.lock``, so it ends with the process, however
    the process ends.
    """
    try:
        out.mkdir(parents=True, exist_ok=True)
        handle = (out / LOCK_FILE).open("a", encoding="utf-8")
    except OSError as error:
        raise RunFolderError(
            f"cannot create the run folder {out}: {error.strerror or error}"
        ) from None
    with handle:
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise RunLockedError(
                f"another run is using {out}; wait for it to end or stop it"
            ) from None
        yield


def existing_records(out: Path, game_ids: list[str]) -> dict[str, GameRecord]:
    """The records of scheduled games, by game id; half-written temp files are removed.

    A record that cannot be read or is not a valid record of its game is not played
    again in silence: RunFolderError names each such file and what is wrong with it.
    """
    for folder in (out, out / GAMES_DIR):
        if folder.is_dir():
            for stale in folder.iterdir():
                if _is_temporary(stale):
                    stale.unlink(missing_ok=True)
    found = {}
    problems = []
    for game_id in game_ids:
        path = record_path(out, game_id)
        if not path.exists():
            continue
        try:
            record = read_record(path)
        except RecordError as error:
            problems.append(str(error))
            continue
        if record.game_id != game_id:
            problems.append(f"record {path} is the record of game {record.game_id}")
            continue
        found[game_id] = record
    if problems:
        raise RunFolderError(
            f"{len(problems)} damaged record(s) in {out / GAMES_DIR}: "
            + "; ".join(problems)
            + ". Restore them, or move them out of the folder to have their games played "
            "again, then run the same command"
        )
    return found
