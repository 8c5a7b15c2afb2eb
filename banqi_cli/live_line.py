"""The live line of the games in progress: on a terminal, one line redrawn in place (a
carriage return and clear-line) a few times a second, cleared before any other line is
printed.

It is drawn from the games' public live views (``referee.live``), which the referee
rewrites in the run folder as each game moves on: each game's id, its ply, both clocks
(the mover's running) and the last ply. A run that writes no live views (engines without a
sandbox playing games at once) has no live line.
"""

import shutil
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import Final, Self, TextIO

from banqi_common.closing import Closing
from referee.live import LIVE_DIR, LiveError, LiveGame, read_live

UPDATE_SECONDS: Final = 0.25
"""How often the line is looked at (at most four redraws a second)."""

CLEAR: Final = "\r\x1b[K"
"""Back to the start of the line, and clear it."""

_lock = threading.RLock()
"""Held while the live line or any other line is written, so they never mix."""

_shown: list["LiveLine"] = []
"""The live line being shown, if any."""


def _clock(ms: float) -> str:
    seconds = max(int(ms // 1000), 0)
    return f"{seconds // 60}:{seconds % 60:02d}"


def game_words(view: LiveGame, now: datetime) -> str:
    """``g0003 ply 12 alpha 14:32 beta 14:40 last b3-b4``: where a game is, the mover's
    clock running since its last ply."""
    plies = view.plies
    start = view.time_control.time_ms
    clocks: list[float] = list(plies[-1].clocks_ms) if plies else [start, start]
    mover = view.first if len(plies) % 2 == 0 else 1 - view.first
    clocks[mover] -= (now - view.updated_at).total_seconds() * 1000
    a, b = view.players
    last = plies[-1].move if plies else "-"
    return (
        f"{view.game_id} ply {len(plies)} {a.name} {_clock(clocks[0])} "
        f"{b.name} {_clock(clocks[1])} last {last}"
    )


def live_text(folder: Path, now: datetime) -> str:
    """The games being played in a run folder, in one line (empty when none is)."""
    views = []
    live = folder / LIVE_DIR
    paths = sorted(live.glob("*.json")) if live.is_dir() else []
    for path in paths:
        try:
            views.append(read_live(path))
        except (LiveError, OSError):
            continue  # the game ended as it was read
    return " | ".join(game_words(view, now) for view in views)


def terminal_stream(forced: bool) -> TextIO | None:
    """Where the live line goes: stderr if it is a terminal, else stdout if it is one;
    stderr when ``forced`` (``--progress``) with neither; None: no live line."""
    for stream in (sys.stderr, sys.stdout):
        if stream.isatty():
            return stream
    return sys.stderr if forced else None


def _width() -> int:
    """The columns the line may take without wrapping (one left free): the terminal's, or
    ``$COLUMNS``, or 160."""
    return max(shutil.get_terminal_size((160, 24)).columns - 1, 20)


class LiveLine(Closing):
    """The live line of one run folder, redrawn by a thread of its own while it is open."""

    def __init__(self, stream: TextIO) -> None:
        self.stream = stream
        self.folder: Path | None = None
        self.text = ""
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="live line", daemon=True)

    def watch(self, folder: Path) -> None:
        """Show the games of ``folder`` (the run folder, known once the run has started)."""
        self.folder = folder
        if not self._thread.is_alive():
            self._thread.start()

    def __enter__(self) -> Self:
        _shown.append(self)
        return super().__enter__()

    def close(self) -> None:
        """Stop redrawing the line, and take it off the screen (on leaving the ``with``
        block)."""
        self._stop.set()
        if self._thread.is_alive():
            self._thread.join()
        with _lock:
            self.clear()
            _shown.remove(self)

    def clear(self) -> None:
        """Take the line off the screen (the lock held)."""
        if self.text:
            self.stream.write(CLEAR)
            self.stream.flush()
            self.text = ""

    def _run(self) -> None:
        while not self._stop.wait(UPDATE_SECONDS):
            if self.folder is None:
                continue
            text = live_text(self.folder, datetime.now(UTC))[: _width()]
            with _lock:
                if text != self.text:
                    self.stream.write(CLEAR + text)
                    self.stream.flush()
                    self.text = text


class NoLiveLine(Closing):
    """No live line: the output is not a terminal, or the run is quiet."""

    def watch(self, folder: Path) -> None:
        """Nothing to show."""

    def close(self) -> None:
        """Nothing to take off the screen."""


Live = LiveLine | NoLiveLine
"""A run's live line, shown or not."""


def live_line(forced: bool, quiet: bool) -> Live:
    """The live line of a run: on a terminal (or ``forced``), never when ``quiet``."""
    stream = None if quiet else terminal_stream(forced)
    return NoLiveLine() if stream is None else LiveLine(stream)


@contextmanager
def printing() -> Iterator[None]:
    """Around any other line printed: the live line cleared first (redrawn at its next
    look), and not drawn until the line is out."""
    with _lock:
        for shown in _shown:
            shown.clear()
        yield
