"""Running a run's event loop so that Ctrl-C stops it cleanly, at any moment.

``asyncio.run`` answers Ctrl-C by cancelling its main task and, as soon as that task has
ended, by cancelling whatever still runs (a game's engines being told to quit, say) and
printing what those tasks raised as they were torn down. ``run_interruptible`` cancels
the main task too, then lets every other task end on its own (engines quit, or are
killed after their grace; records being saved in worker threads are finished), and only
then raises KeyboardInterrupt, printing nothing, also for a task that failed on the way
(a request whose engine was stopped). A further Ctrl-C cancels what is still ending.
"""

import asyncio
import signal
import threading
from collections.abc import Coroutine
from typing import Any, TypeVar

T = TypeVar("T")

WIND_DOWN_SECONDS = 10.0
"""How long the tasks still running after Ctrl-C may take to end before they are cancelled."""


class _CtrlC:
    """What Ctrl-C does in the loop: cancel the main task, then everything still running."""

    def __init__(self, main: "asyncio.Task[Any]") -> None:
        self.main = main
        self.pressed = False
        self.wind_down: asyncio.Task[None] | None = None

    def __call__(self) -> None:
        first = not self.pressed
        self.pressed = True
        if first and not self.main.done():
            self.main.cancel()
            return
        for task in asyncio.all_tasks():
            if task is not self.wind_down:
                task.cancel()

    def report(self, loop: asyncio.AbstractEventLoop, context: dict[str, Any]) -> None:
        """The loop's handler of errors nobody took (a task's exception never retrieved):
        asyncio's own until Ctrl-C, nothing after it, when they are the run's teardown."""
        if not self.pressed:
            loop.default_exception_handler(context)


async def _wind_down(seconds: float) -> None:
    """Let every other task end within ``seconds`` (none: cancel them at once), then cancel
    what is left; what they raised is taken here, so that nothing is printed for it."""
    rest = asyncio.all_tasks() - {asyncio.current_task()}
    if rest and seconds > 0:
        await asyncio.wait(rest, timeout=seconds)
    while rest:
        for task in rest:
            task.cancel()
        await asyncio.wait(rest)
        for task in rest:
            if not task.cancelled():
                task.exception()
        rest = asyncio.all_tasks() - {asyncio.current_task()}
    for _ in range(3):  # the done-callbacks of futures that gathered the tasks
        await asyncio.sleep(0)


def _can_catch_ctrl_c() -> bool:
    """Whether Ctrl-C is this process's to handle: the main thread, and SIGINT at Python's
    default (a process started with SIGINT ignored, as a shell's background job is,
    keeps ignoring it)."""
    return (
        threading.current_thread() is threading.main_thread()
        and signal.getsignal(signal.SIGINT) is signal.default_int_handler
    )


def run_interruptible(main: Coroutine[Any, Any, T]) -> T:
    """Run ``main`` in a new event loop and return its result; on Ctrl-C, stop as the
    module says and raise KeyboardInterrupt."""
    loop = asyncio.new_event_loop()
    task = loop.create_task(main)
    ctrl_c = _CtrlC(task)
    loop.set_exception_handler(ctrl_c.report)
    catching = _can_catch_ctrl_c()
    try:
        if catching:
            loop.add_signal_handler(signal.SIGINT, ctrl_c)
        try:
            return loop.run_until_complete(task)
        finally:
            ctrl_c.wind_down = loop.create_task(
                _wind_down(WIND_DOWN_SECONDS if task.cancelled() else 0.0)
            )
            loop.run_until_complete(ctrl_c.wind_down)
            loop.run_until_complete(loop.shutdown_asyncgens())
            loop.run_until_complete(loop.shutdown_default_executor())
    except asyncio.CancelledError:
        if ctrl_c.pressed:
            raise KeyboardInterrupt from None
        raise
    finally:
        if catching:
            loop.remove_signal_handler(signal.SIGINT)
        loop.close()
