"""An asyncio event loop in a daemon thread of its own, for the blocking API.

The API's objects speak to engines through ``protocol`` (asyncio); a script calls them
from plain code. Each ``BackgroundLoop`` runs one event loop in a daemon thread (so a
forgotten one never keeps the interpreter alive), and ``run`` hands it a coroutine and
waits, for a bounded time, for its result in the calling thread.
"""

import asyncio
import concurrent.futures
import contextlib
import threading
from collections.abc import Coroutine
from typing import Any, Final, TypeVar

from .errors import EngineClosedError

T = TypeVar("T")

CLEANUP_WAIT: Final = 5.0
"""Seconds a coroutine cut short (timeout, Ctrl-C) may take to clean up after its
cancellation (to stop its engines) before the caller gets the error."""
JOIN_WAIT: Final = 2.0
"""Seconds ``stop`` waits for the loop's thread to end."""


class BackgroundLoop:
    """An event loop in a daemon thread; ``run`` coroutines on it, ``stop`` it once."""

    def __init__(self, name: str) -> None:
        self._loop = asyncio.new_event_loop()
        self._lock = threading.Lock()
        self._stopped = False
        self._thread = threading.Thread(target=self._serve, name=name, daemon=True)
        self._thread.start()

    @property
    def stopped(self) -> bool:
        """Whether ``stop`` was called (the loop takes no more coroutines)."""
        return self._stopped

    def in_loop_thread(self) -> bool:
        """Whether the caller is the loop's own thread (where ``run`` would deadlock)."""
        return threading.current_thread() is self._thread

    def run(self, coroutine: Coroutine[Any, Any, T], timeout: float | None) -> T:
        """Run ``coroutine`` on the loop and return its result, or raise its exception.

        Raises TimeoutError after ``timeout`` seconds (None: no limit) and
        EngineClosedError once the loop is stopped; a timeout or a KeyboardInterrupt in
        the caller cancels the coroutine and waits ``CLEANUP_WAIT`` for it to end.
        """
        if self.in_loop_thread():
            coroutine.close()
            raise RuntimeError("a blocking banqi call cannot be made from its own event loop")
        with self._lock:
            if self._stopped:
                coroutine.close()
                raise EngineClosedError("the engine is closed")
            future = asyncio.run_coroutine_threadsafe(coroutine, self._loop)
        try:
            return future.result(timeout)
        except BaseException:
            if not future.done():
                future.cancel()
                with contextlib.suppress(BaseException):
                    concurrent.futures.wait([future], CLEANUP_WAIT)
            raise

    def stop(self) -> None:
        """Stop the loop and wait ``JOIN_WAIT`` for its thread (not from the thread itself)."""
        with self._lock:
            if self._stopped:
                return
            self._stopped = True
        with contextlib.suppress(RuntimeError):  # the loop already closed
            self._loop.call_soon_threadsafe(self._loop.stop)
        if not self.in_loop_thread():
            self._thread.join(JOIN_WAIT)

    def finish(self, coroutine: Coroutine[Any, Any, object]) -> None:
        """From the loop's own thread (a finalizer run there, where ``run`` would deadlock):
        run ``coroutine`` as a task and stop the loop once it has ended, waiting for
        neither."""
        if self._stopped or self._loop.is_closed():
            coroutine.close()
            return
        task = self._loop.create_task(coroutine)
        task.add_done_callback(lambda _: self.stop())

    def _serve(self) -> None:
        asyncio.set_event_loop(self._loop)
        try:
            self._loop.run_forever()
        finally:
            self._cancel_left()
            self._loop.close()

    def _cancel_left(self) -> None:
        """Cancel what is still running on the stopped loop and let it end."""
        left = asyncio.all_tasks(self._loop)
        for task in left:
            task.cancel()
        if left:
            gathered = asyncio.gather(*left, return_exceptions=True)
            with contextlib.suppress(BaseException):
                self._loop.run_until_complete(asyncio.wait_for(gathered, CLEANUP_WAIT))
