"""A run folder: its saved state file, opened for a new run or a resumed one, its lock, and
the records it holds.

Every kind of run (``tournaments.run_kinds``) opens its folder with :func:`open_run_folder`:
the saved state, after the kind's own checks that the run resumes with the same settings,
or a new state for a folder a new run may take. The state file is written
(:func:`write_state`) and the records are read (:func:`existing_records`) before any
engine starts (``tournaments.run_start``). Nothing else is state: a resumed run recomputes
everything from the state file and the records in ``games/``, so a ``kill -9`` at any
moment loses at most the games that were being played.

Every state file and record carries its MAC (``referee.macs``): a run resumes only from a
state file and records that this referee wrote, and refuses, naming the file, one whose
MAC is missing or wrong.
"""

import contextlib
import fcntl
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import ClassVar, Generic, TypeVar

from pydantic import ConfigDict, ValidationError

from banqi_common.atomic import write_atomic
from banqi_common.errors import InputError
from banqi_common.write_errors import writing
from referee.deal_book import BookStamp
from referee.game_setup import GameSetup
from referee.macs import MacKeys, mac_matches, signed
from referee.record import GameRecord, RecordError, read_record
from referee.storage import GAMES_DIR, record_path

from .config import ConfigError
from .run_config import SignedState
from .run_kinds import RunFolderError, check_new_run_folder

S = TypeVar("S", bound=SignedState)

LOCK_FILE = "tournament.lock"
LOCK_WAIT_SECONDS = 1.0
"""How long a run waits for a held lock before refusing: the lock is shared, between fork
and exec, with an engine process a run was starting, so a run killed at that moment
holds it a little after its own end."""
LOCK_POLL_SECONDS = 0.05
"""Seconds between tries of a held lock while the run waits for it."""


class RunLockedError(InputError):
    """Another process holds the run folder's lock: two runs must not share a folder."""


class RunState(SignedState):
    """What every state file holds besides its format and config: when the run started."""

    model_config = ConfigDict(extra="forbid")

    saved_order: ClassVar[tuple[str, ...]] = (
        "format",
        "created_at",
        "seed",
        "config",
        "deal_book",
        "score",
    )

    created_at: datetime


class DealtRunState(RunState):
    """The state of a run that may be dealt from a deal book (the book's stamp: it is
    resumed with the same book only)."""

    deal_book: BookStamp | None = None


@dataclass(frozen=True)
class RunKind(Generic[S]):
    """A kind of run as its folder holds it: the state file, its model, and in words what
    the file is and what the run is (``a match``)."""

    state_file: str
    model: type[S]
    file_words: str
    run_words: str
    check_new: Callable[[Path], None] | None = None
    """The checks before a new run takes a folder (default: ``check_new_run_folder``)."""
    other_words: str = "different settings"
    """What a resumed run with other settings has, in words."""

    def read(self, out: Path) -> S | None:
        """The saved state, None if there is none; RunFolderError if it is damaged. Its MAC
        is not checked (``check``)."""
        path = out / self.state_file
        if not path.exists():
            return None
        try:
            return self.model.model_validate_json(path.read_text(encoding="utf-8"))
        except (OSError, ValidationError) as error:
            raise RunFolderError(f"{path} is damaged or not {self.file_words}: {error}") from None

    def signed(self, state: S, macs: MacKeys) -> S:
        """``state`` with its MAC, as its file is written."""
        return signed(state, macs.file(self.state_file))

    def check(self, out: Path, state: S, macs: MacKeys) -> None:
        """RunFolderError unless the saved ``state`` carries its valid MAC: a folder that
        this referee's runs did not write is not resumed."""
        if state.mac is None:
            raise RunFolderError(
                f"cannot resume {out}: {self.state_file} has no MAC: the folder was written "
                "by a banqi older than MACs, or not by a run; if it is a run of yours, resume "
                "it once with --adopt-unsigned to sign its files"
            )
        if not mac_matches(state, state.mac, macs.file(self.state_file)):
            raise RunFolderError(
                f"cannot resume {out}: {self.state_file} has no valid MAC (not written by "
                "this referee: another referee key, or changed since)"
            )


def open_run_folder(
    out: Path,
    kind: RunKind[S],
    resume: Callable[[S], S],
    start: Callable[[], S],
    macs: MacKeys,
) -> S:
    """The run's state: ``resume(saved)`` for a folder that holds one, its MAC checked (then
    dropped: it is the file's; ``resume`` refuses other settings), else ``start()`` once the
    folder is found fit for a new run."""
    saved = kind.read(out)
    if saved is not None:
        kind.check(out, saved, macs)
        return resume(saved.model_copy(update={"mac": None}))
    if kind.check_new is None:
        check_new_run_folder(out, kind.state_file)
    else:
        kind.check_new(out)
    return start()


def refuse_other_settings(
    out: Path,
    kind: RunKind[S],
    differences: list[str],
    same: str = "the same settings",
    why: str = "",
) -> None:
    """ConfigError listing how the settings a run is resumed with differ from its saved ones
    (``tournaments.differences``), if they do; ``why`` ends the message."""
    if differences:
        raise ConfigError(
            f"{out} holds {kind.run_words} with {kind.other_words}; resume it with {same} or "
            "choose another --out. Differences: " + "; ".join(differences) + why
        )


def write_state(out: Path, kind: RunKind[S], state: S, macs: MacKeys) -> None:
    """Write the run's state file with its MAC, indented, atomically."""
    text = kind.signed(state, macs).model_dump_json(indent=2)
    write_atomic(out / kind.state_file, text + "\n")


def is_temporary(path: Path) -> bool:
    """A half-written file an atomic write left behind (``.NAME.XXXX.tmp``)."""
    return path.name.startswith(".") and path.name.endswith(".tmp")


@contextlib.contextmanager
def locked_run(out: Path) -> Iterator[None]:
    """Make the run folder if needed and hold it for this process while it runs;
    WriteError if it cannot be made or its lock file opened, RunLockedError if another run
    holds it.

    The lock is an ``flock`` on ``tournament.lock``, so it ends with the process, however
    the process ends (and with the engine processes it was starting then, which share it
    until they exec: a held lock is tried again for ``LOCK_WAIT_SECONDS``).
    """
    with writing(f"create the run folder {out}"):
        out.mkdir(parents=True, exist_ok=True)
    with writing(f"open the lock file {LOCK_FILE} in {out}"):
        handle = (out / LOCK_FILE).open("a", encoding="utf-8")
    with handle:
        deadline = time.monotonic() + LOCK_WAIT_SECONDS
        while True:
            try:
                fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if time.monotonic() >= deadline:
                    raise RunLockedError(
                        f"another run is using {out}; wait for it to end or stop it"
                    ) from None
                time.sleep(LOCK_POLL_SECONDS)
        yield


def existing_records(
    out: Path, setups: Sequence[GameSetup], macs: MacKeys
) -> dict[str, GameRecord]:
    """The records of the scheduled games ``setups``, by game id; half-written temp files
    are removed.

    A record that cannot be read or is not a valid record of its game is not played
    again in silence: RunFolderError names each such file and what is wrong with it. Nor
    is one whose MAC is missing or is not its game's (``referee.macs``): RunFolderError
    names each such file.
    """
    for folder in (out, out / GAMES_DIR):
        if folder.is_dir():
            for stale in folder.iterdir():
                if is_temporary(stale):
                    with writing(f"remove the half-written file {stale.name} from {folder}"):
                        stale.unlink(missing_ok=True)
    found = {}
    problems = []
    unsigned = []
    for setup in setups:
        game_id = setup.game_id
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
        if not mac_matches(record, record.mac, macs.game(setup.seed, game_id)):
            unsigned.append(str(path.relative_to(out)))
            continue
        found[game_id] = record
    if problems:
        raise RunFolderError(
            f"{len(problems)} damaged record(s) in {out / GAMES_DIR}: "
            + "; ".join(problems)
            + ". Restore them, or move them out of the folder to have their games played "
            "again, then run the same command"
        )
    if unsigned:
        one = len(unsigned) == 1
        raise RunFolderError(
            f"cannot resume {out}: {', '.join(unsigned)} {'has' if one else 'have'} no valid "
            "MAC (not written by this referee); move "
            f"{'it' if one else 'them'} out of the folder to have "
            f"{'its game' if one else 'their games'} played again"
        )
    return found
