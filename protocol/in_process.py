"""An engine loop answered inside this process: the stand-in for an engine process in tests.

Like python-chess's ``MockTransport`` or gomill's internal GTP channel, it lets the
referee and the tournament runner play the project's own engine loop
(:class:`~protocol.engine_loop.DctpEngine`) without starting a process. Each command
goes in as its text line and is answered in a worker thread of its own, one command
at a time as through a pipe, so clocks and timeouts behave as with a process.
"""

import asyncio
from concurrent.futures import ThreadPoolExecutor
from typing import TYPE_CHECKING

from .errors import EngineTerminatedError, EngineTimeoutError, MalformedReplyError
from .line_protocol import TrafficLog
from .messages import Command, Reply

if TYPE_CHECKING:  # the engine side (rules, search) is loaded only by whoever builds one
    from .engine_loop import DctpEngine


class InProcessEngine:
    """A :class:`DctpEngine` driven through :class:`~protocol.connection.EngineConnection`."""

    pid: None = None
    isolation: str = "in-process"
    """An in-process engine has no process of its own."""

    def __init__(
        self, engine: "DctpEngine", name: str, traffic_log: TrafficLog | None = None
    ) -> None:
        self._engine = engine
        self._name = name
        self._traffic_log = traffic_log
        self._worker = ThreadPoolExecutor(max_workers=1, thread_name_prefix=f"engine-{name}")
        self._ended = False

    @property
    def name(self) -> str:
        """The engine's name, as used in errors."""
        return self._name

    async def request(self, command: Command, timeout: float | None) -> Reply:
        """Send ``command``'s line to the engine loop and return its reply.

        Raises EngineTimeoutError after ``timeout`` seconds (the engine finishes that
        command before it takes the next), EngineTerminatedError once it has quit, and
        MalformedReplyError for a reply without the command's id.
        """
        if self._ended:
            raise EngineTerminatedError(self._name, 0, "")
        line = command.line()
        self._log(f"> {line}")
        answer = asyncio.get_running_loop().run_in_executor(
            self._worker, self._engine.handle_line, line
        )
        try:
            async with asyncio.timeout(timeout):
                reply = await answer
        except TimeoutError:
            assert timeout is not None
            raise EngineTimeoutError(self._name, line, timeout) from None
        if reply is None or reply.id != int(command.id):
            raise MalformedReplyError(self._name, f"no reply with id {int(command.id)} to {line!r}")
        for text in reply.line().split("\n"):
            self._log(f"< {text}")
        if self._engine.quitting:
            self._end()
        return reply

    async def quit(self) -> int | None:
        """Send ``quit`` and stop the worker thread; the exit status is 0."""
        if not self._ended:
            try:
                await self.request(Command.quit(), timeout=None)
            finally:
                self._end()
        return 0

    async def kill(self) -> None:
        """Stop taking commands at once; a command being answered runs to its end."""
        self._end()

    def _end(self) -> None:
        self._ended = True
        self._worker.shutdown(wait=False, cancel_futures=True)

    def _log(self, line: str) -> None:
        if self._traffic_log is not None:
            self._traffic_log(line)
