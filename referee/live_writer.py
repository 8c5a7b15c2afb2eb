"""Writing a game's live view off the event loop: the newest view wins, one write at a time.

A write replaces a file (``os.replace``), which may wait on the disk for milliseconds, and
serialises the whole game so far: in the event loop, after every ply, it would delay every
game's moves and clocks. Here the loop only hands over how to build the newest view; a
worker thread builds and writes it. While a game's view is being written, newer views
replace each other and only the newest is written next, so a game's file never goes back
to an older view. The game's end removes the file after the write in flight, in the
game's turn of the workers, so a late write never brings back the view of a game that has
ended.

The workers are a small pool of their own, shared by every game of the process: at most
:data:`LIVE_WORKERS` threads compete with the event loop for the interpreter, whatever
the number of games, and the removal at a game's end runs even if the task that played it
is cancelled or its loop is closing.
"""

import asyncio
import threading
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path
from typing import Final

from .live import LiveGame, end_live, write_live

LIVE_WORKERS: Final = 2
"""Threads writing live views for every game of the process."""

_workers = ThreadPoolExecutor(max_workers=LIVE_WORKERS, thread_name_prefix="live-view")

ViewMaker = Callable[[], LiveGame]
"""Builds a live view from a snapshot taken on the loop (called in a worker thread)."""


class LiveViewWriter:
    """Keeps the live view file of one game: ``show`` each new state, ``end`` at its end.

    Best effort as :func:`~referee.live.write_live`: the first write that fails is warned
    and the game goes on without its live view."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._lock = threading.Lock()
        self._newest: ViewMaker | None = None
        self._draining: Future[None] | None = None
        self._ended = False
        self._failed = False

    def show(self, view: ViewMaker) -> None:
        """Have ``view()`` written soon, unless a newer view comes first; returns at once."""
        with self._lock:
            if self._ended or self._failed:
                return
            self._newest = view
            if self._draining is None:
                self._draining = _workers.submit(self._drain)

    async def end(self) -> None:
        """Stop showing the game: the write in flight ends, then the file is removed (even
        if the caller is cancelled meanwhile)."""
        with self._lock:
            self._ended = True
            self._newest = None
            if self._draining is None:
                self._draining = _workers.submit(self._drain)
            draining = self._draining
        await asyncio.shield(asyncio.wrap_future(draining))

    def _drain(self) -> None:
        """In a worker: write the newest view until none is waiting; remove the file once
        the game has ended."""
        while True:
            with self._lock:
                view, self._newest = self._newest, None
                if view is None and not self._ended:
                    self._draining = None
                    return
            if view is None:
                end_live(self.path)
                return
            if not write_live(self.path, view()):
                with self._lock:
                    self._failed = True
                    self._newest = None
