"""The public live view of a game being played: what anyone watching may see, and its file.

While a game runs, the referee rewrites ``live/<game_id>.json`` in the run folder as it
moves on (``banqi gui --watch`` reads it), off the event loop and the newest view first
(:mod:`referee.live_writer`). It holds only what both engines have been told: the
players, the plies so far with each flip's piece as it was revealed, and the clocks.
Never the layout, the deal secret, or a piece that is still face down. The file is
removed when the game ends: from then on the game's record speaks for it (withheld, with
its flips hidden, while another game of its deal is still to end).

Writing it is best effort: a live view that cannot be written never stops a game.
"""

import logging
from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Final, Literal

from pydantic import BaseModel, ConfigDict, Field

from banqi_common.atomic import write_atomic
from banqi_common.errors import InputError
from banqi_common.model_files import read_model_file
from banqi_common.write_errors import WriteError, writing

from .game_setup import FileFormat, GameFacts, GameSetup
from .record import PlayerInfo, PlyRecord

LIVE_FORMAT: Final = "banqi-live/1"
LIVE_DIR: Final = "live"

log = logging.getLogger(__name__)


class LiveError(InputError):
    """A live view file that cannot be read or does not validate."""


class LivePlayer(BaseModel):
    """One seat as a watcher sees it."""

    model_config = ConfigDict(extra="forbid")

    name: str
    colour: Literal["red", "black"] | None = None


class LiveGame(FileFormat, GameFacts):
    """A game in progress, public information only."""

    model_config = ConfigDict(extra="forbid")

    format: Literal["banqi-live/1"] = LIVE_FORMAT
    players: tuple[LivePlayer, LivePlayer]
    plies: list[PlyRecord] = Field(description="The plies so far; flips with their pieces.")
    updated_at: datetime


def live_file(out: Path, game_id: str) -> Path:
    """Where the live view of a game of a run folder is kept."""
    return out / LIVE_DIR / f"{game_id}.json"


def live_view(
    setup: GameSetup, players: Sequence[PlayerInfo], plies: Sequence[PlyRecord]
) -> LiveGame:
    """The public view of a game of ``setup`` after ``plies``."""
    return LiveGame(
        **setup.facts(),
        players=(
            LivePlayer(name=players[0].name, colour=players[0].colour),
            LivePlayer(name=players[1].name, colour=players[1].colour),
        ),
        plies=list(plies),
        updated_at=datetime.now(UTC),
    )


def write_live(path: Path, view: LiveGame) -> bool:
    """Replace the file atomically (no fsync: a live view lost in a crash costs nothing).
    False, with a warning logged, if it cannot be written."""
    try:
        write_atomic(path, view.model_dump_json(), f"live view {path.stem}", durable=False)
    except WriteError as error:
        log.warning("%s", error)
        return False
    return True


def end_live(path: Path) -> None:
    """Remove the live view of a game that has ended (its record takes over)."""
    if not path.exists():  # never written: nothing to say of a folder that refuses writes
        return
    try:
        with writing(f"remove live view {path.stem} from {path.parent}"):
            path.unlink(missing_ok=True)
    except WriteError as error:
        log.warning("%s", error)


def read_live(path: Path) -> LiveGame:
    """Load and validate a live view; LiveError says what is wrong."""
    return read_model_file(path, LiveGame, LiveError, "live view")


def clear_live_views(out: Path) -> None:
    """Remove every live view of a run folder (and half-written ones): as a run opens, no
    game of it is being played, whatever a killed run left behind."""
    folder = out / LIVE_DIR
    if folder.is_dir():
        for path in folder.iterdir():
            if path.is_file():
                with writing(f"remove live view {path.stem} from {folder}"):
                    path.unlink(missing_ok=True)
