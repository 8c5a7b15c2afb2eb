"""The run folder of a tournament: its saved config, its records, what is still missing.

``tournament.json`` holds the config and seed the run started with; the records in
``games/`` say which games exist. Nothing else is state: a resumed run recomputes
everything from these files, so a ``kill -9`` at any moment loses at most the
games that were being played.
"""

import contextlib
import fcntl
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, ValidationError

from referee.atomic import write_atomic
from referee.errors import InputError
from referee.record import GameRecord, RecordError, read_record
from referee.storage import GAMES_DIR, record_path

from .config import ConfigError, TournamentConfig

STATE_FILE = "tournament.json"
LOCK_FILE = "tournament.lock"
RESUMABLE_FIELDS = frozenset({"concurrency", "sandbox"})
"""Config fields that may change on resume: they do not change which games are played
(each record says how its engines were isolated)."""


class RunFolderError(InputError):
    """A run folder whose saved state is damaged or is not a tournament's."""


class RunLockedError(InputError):
    """Another process holds the run folder's lock: two runs must not share a folder."""


class TournamentState(BaseModel):
    """What ``tournament.json`` holds."""

    model_config = ConfigDict(extra="forbid")

    format: Literal["banqi-tournament/1"] = "banqi-tournament/1"
    created_at: datetime
    seed: int
    config: TournamentConfig


def _flatten(value: Any, prefix: str = "") -> dict[str, Any]:
    if isinstance(value, dict):
        flat: dict[str, Any] = {}
        for key, item in value.items():
            flat.update(_flatten(item, f"{prefix}.{key}" if prefix else str(key)))
        return flat
    if isinstance(value, list):
        flat = {}
        for index, item in enumerate(value):
            flat.update(_flatten(item, f"{prefix}[{index}]"))
        return flat or {prefix: []}
    return {prefix: value}


def config_differences(saved: TournamentConfig, new: TournamentConfig) -> list[str]:
    """Human-readable differences between two configs, ignoring resumable fields."""
    old_flat = _flatten(saved.model_dump(mode="json", exclude=set(RESUMABLE_FIELDS)))
    new_flat = _flatten(new.model_dump(mode="json", exclude=set(RESUMABLE_FIELDS)))
    return [
        f"{key}: was {old_flat.get(key, '(absent)')!r}, now {new_flat.get(key, '(absent)')!r}"
        for key in sorted(set(old_flat) | set(new_flat))
        if old_flat.get(key) != new_flat.get(key)
    ]


def open_run(out: Path, config: TournamentConfig, new_seed: int) -> TournamentState:
    """Start a run folder, or reopen one after checking the config is the same.

    A config without a seed takes the saved one; with a seed, it must match. The
    saved config holds the run's seed, also when the first run drew it at random.
    """
    path = out / STATE_FILE
    if path.exists():
        try:
            state = TournamentState.model_validate_json(path.read_text(encoding="utf-8"))
        except (OSError, ValidationError) as error:
            raise RunFolderError(f"{path} is damaged or not a tournament state: {error}") from None
        wanted = (
            config
            if config.seed is not None
            else config.model_copy(update={"seed": state.config.seed})
        )
        differences = config_differences(state.config, wanted)
        if differences:
            raise ConfigError(
                f"{out} holds a tournament with a different config; resume it with the same "
                "settings or choose another --out. Differences: " + "; ".join(differences)
            )
        if any(getattr(state.config, f) != getattr(config, f) for f in RESUMABLE_FIELDS):
            state = state.model_copy(update={"config": wanted})
        return state
    seed = config.seed if config.seed is not None else new_seed
    state = TournamentState(
        created_at=datetime.now(UTC), seed=seed, config=config.model_copy(update={"seed": seed})
    )
    write_atomic(path, state.model_dump_json(indent=2) + "\n")
    return state


@contextlib.contextmanager
def locked_run(out: Path) -> Iterator[None]:
    """Hold the run folder for this process while it runs; RunLockedError if another holds it.

    The lock is an ``flock`` on ``tournament.lock``, so it ends with the process, however
    the process ends.
    """
    out.mkdir(parents=True, exist_ok=True)
    with (out / LOCK_FILE).open("a", encoding="utf-8") as handle:
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise RunLockedError(
                f"another tournament run is using {out}; wait for it to end or stop it"
            ) from None
        yield


def existing_records(out: Path, game_ids: list[str]) -> dict[str, GameRecord]:
    """The valid records of scheduled games; half-written temp files are removed."""
    for folder in (out, out / GAMES_DIR):
        if folder.is_dir():
            for stale in folder.glob(".*.tmp"):
                stale.unlink(missing_ok=True)
    found = {}
    for game_id in game_ids:
        path = record_path(out, game_id)
        if path.exists():
            try:
                found[game_id] = read_record(path)
            except RecordError:
                continue
    return found
