"""The driver side of DCTP: an asyncio client for one engine process.

The engine runs in a session (process group) of its own, with pipes on stdin,
stdout and stderr, read by :class:`protocol.line_protocol.EngineLineProtocol`.
Every fault has its own exception type in :mod:`protocol.errors`.

Typical use::

    async with await EngineClient.start(["./engine"], name="alpha") as engine:
        reply, seconds = await engine.request_timed(Command.genmove("red"), timeout=10.0)
"""

import asyncio
import contextlib
import ctypes
import ctypes.util
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from types import TracebackType
from typing import Final, Self

from .errors import EngineError, EngineLimitError, EngineStartError, EngineTimeoutError
from .line_protocol import DEFAULT_MAX_LINE_BYTES, FAULT_GRACE, EngineLineProtocol, TrafficLog
from .messages import Command, Reply
from .resource_watch import ResourceWatch

WATCH_INTERVAL: Final = 0.25
"""Seconds between looks at an engine's limits while a command waits."""


def _load_prctl() -> Callable[[], None] | None:
    """Linux only: a function that makes the calling process die with its parent."""
    if not sys.platform.startswith("linux"):
        return None
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6", use_errno=True)
    except OSError:
        return None
    prctl = libc.prctl
    pr_set_pdeathsig = 1

    def die_with_parent() -> None:
        prctl(pr_set_pdeathsig, signal.SIGKILL, 0, 0, 0)

    return die_with_parent


_die_with_parent = _load_prctl()
"""Run in the engine between fork and exec, so a referee killed by SIGKILL takes its
engines with it (their own children are still reached by the process-group kill)."""


class EngineClient:
    """A running engine process spoken to in DCTP; create it with :meth:`start`.

    Use it as an async context manager (``async with await EngineClient.start(...)``)
    to have :meth:`quit` called on the way out.
    """

    def __init__(
        self,
        transport: asyncio.SubprocessTransport,
        protocol: EngineLineProtocol,
        isolation: str = "none",
        watch: ResourceWatch | None = None,
    ) -> None:
        self._transport = transport
        self._protocol = protocol
        self._closed = False
        self._watch = watch
        self.isolation = isolation
        """How the process is kept apart from this one (the caller's word: ``none`` unless
        ``command`` runs the engine in a sandbox)."""

    @classmethod
    async def start(
        cls,
        command: Sequence[str],
        *,
        cwd: str | Path | None = None,
        env: Mapping[str, str] | None = None,
        name: str | None = None,
        traffic_log: TrafficLog | None = None,
        max_line_bytes: int = DEFAULT_MAX_LINE_BYTES,
        log_stderr: bool = True,
        isolation: str = "none",
        watch: ResourceWatch | None = None,
        before_exec: Callable[[], None] | None = None,
    ) -> Self:
        """Start ``command`` (program and arguments) in a new session with piped stdio.

        ``env`` replaces the whole environment when given; ``name`` (default: the
        program's file name) names the engine in errors; ``traffic_log`` receives
        every line (``log_stderr`` False keeps stderr lines out of it); ``isolation``
        names the sandbox ``command`` starts the engine in, if any, and ``watch`` its
        limits (a reached limit is an EngineLimitError); ``before_exec`` runs in the child
        between fork and exec. Raises EngineStartError when the program cannot be run.
        """
        if not command:
            raise ValueError("an engine command needs at least the program")
        engine_name = name if name is not None else Path(command[0]).name

        def prepare_child() -> None:
            if _die_with_parent is not None:
                _die_with_parent()
            if before_exec is not None:
                before_exec()

        loop = asyncio.get_running_loop()
        protocol = EngineLineProtocol(engine_name, traffic_log, max_line_bytes, log_stderr)
        try:
            transport, _ = await loop.subprocess_exec(
                lambda: protocol,
                *command,
                stdin=asyncio.subprocess.PIPE,
                stdout=asyncio.subprocess.PIPE,
                stderr=asyncio.subprocess.PIPE,
                cwd=cwd,
                env=None if env is None else dict(env),
                start_new_session=True,
                preexec_fn=prepare_child,
            )
        except (OSError, subprocess.SubprocessError) as error:
            if watch is not None:
                watch.release()
            raise EngineStartError(
                engine_name, f"cannot start {list(command)!r}: {error}"
            ) from error
        return cls(transport, protocol, isolation, watch)

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        await self.quit()

    @property
    def name(self) -> str:
        """The engine's name, as used in errors."""
        return self._protocol.name

    @property
    def pid(self) -> int | None:
        """The process id, which is also the id of the engine's process group; None for an
        engine with no process here (a transport that relays it from elsewhere)."""
        pid = self._transport.get_pid()
        return pid if pid > 0 else None

    @property
    def returncode(self) -> int | None:
        """The exit status once the process has exited (negative: killed by that signal)."""
        return self._protocol.returncode

    @property
    def stderr_tail(self) -> str:
        """The last few KiB the engine wrote on stderr."""
        return self._protocol.stderr_tail

    async def request(self, command: Command, timeout: float | None) -> Reply:
        """Send ``command`` and return its reply (a ``?<id>`` reply has ``ok`` False).

        Requests may overlap: replies are matched to commands in the order sent, and
        a reply that comes after its request timed out is discarded. Raises
        EngineTimeoutError after ``timeout`` seconds (None: no limit),
        EngineTerminatedError, EnginePipeClosedError, MalformedReplyError or
        WrongReplyIdError (also for a reply that came while no command waited).
        """
        reply, _ = await self.request_timed(command, timeout)
        return reply

    async def request_timed(self, command: Command, timeout: float | None) -> tuple[Reply, float]:
        """Like :meth:`request`, also returning the seconds from sending to the reply line."""
        protocol = self._protocol
        try:
            protocol.check_usable()
            if protocol.broken:
                await self._wait_exit(FAULT_GRACE)
                raise protocol.fault_now()
            sent_at = time.monotonic()
            waiter = protocol.write(command)
            try:
                async with asyncio.timeout(timeout):
                    reply, received_at = await self._watched(waiter.future)
            except TimeoutError:
                if protocol.broken:
                    raise protocol.fault_now() from None
                assert timeout is not None
                raise EngineTimeoutError(
                    self.name, command.line(), timeout, protocol.noise
                ) from None
        except EngineError as error:
            breach = await self._breach_after(error)
            if breach is None:
                raise
            raise breach from error
        return reply, received_at - sent_at

    async def _watched(self, future: "asyncio.Future[tuple[Reply, float]]") -> tuple[Reply, float]:
        """The reply, looking at the engine's limits every ``WATCH_INTERVAL`` meanwhile and
        once it came: a limit reached stops the engine (EngineLimitError)."""
        watch = self._watch
        if watch is None:
            return await future
        try:
            while True:
                done, _ = await asyncio.wait({future}, timeout=WATCH_INTERVAL)
                breach = watch.breach(self._transport.get_pid(), None, self.stderr_tail)
                if breach is not None:
                    future.cancel()
                    await self.kill()
                    raise EngineLimitError(self.name, breach.kind, breach.words)
                if done:
                    return future.result()
        finally:  # timed out: a late reply is dropped, a later fault not left unretrieved
            if not future.done():
                future.cancel()

    async def _breach_after(self, error: EngineError) -> EngineLimitError | None:
        """The limit behind a failure, if the engine reached one (it is stopped then)."""
        if self._watch is None or isinstance(error, EngineLimitError):
            return None
        if not isinstance(error, EngineTimeoutError) and not self._protocol.exited.is_set():
            await self._wait_exit(FAULT_GRACE)
        breach = self._watch.breach(self._transport.get_pid(), self.returncode, self.stderr_tail)
        if breach is None:
            return None
        await self.kill()
        return EngineLimitError(self.name, breach.kind, breach.words)

    async def quit(self, timeout: float = 1.0, term_timeout: float = 0.5) -> int | None:
        """End the engine and its process group, and return its exit status.

        Sends ``5 quit`` and closes stdin, waits ``timeout`` seconds for the exit,
        then sends SIGTERM to the group and waits ``term_timeout`` seconds, then
        SIGKILL. Whatever is left of the group after the engine exited gets SIGKILL.
        The process is always reaped. Calling it again does nothing more.
        """
        protocol = self._protocol
        try:
            if not self._closed and not protocol.exited.is_set():
                if protocol.stdin_open:
                    protocol.write(Command.quit()).future.cancel()
                protocol.close_stdin()
                await self._wait_exit(timeout)
                if not protocol.exited.is_set():
                    self._signal_group(signal.SIGTERM)
                    await self._wait_exit(term_timeout)
        finally:
            await self.kill()
        return self.returncode

    async def close_input(self, timeout: float) -> bool:
        """Close the engine's stdin, as at the end of its input, and wait up to ``timeout``
        seconds for it to exit; whether it did (it is not killed here)."""
        self._protocol.close_stdin()
        await self._wait_exit(timeout)
        return self._protocol.exited.is_set()

    async def wait_exit(self, timeout: float) -> bool:
        """Wait up to ``timeout`` seconds for the engine to exit by itself; whether it did."""
        await self._wait_exit(timeout)
        return self._protocol.exited.is_set()

    async def kill(self) -> None:
        """Send SIGKILL to the engine's process group, reap the engine and close the pipes."""
        if self._closed:
            return
        self._signal_group(signal.SIGKILL)
        try:
            await self._protocol.exited.wait()
        finally:
            self._closed = True
            self._transport.close()
            if self._watch is not None:
                self._watch.release()

    async def _wait_exit(self, timeout: float) -> None:
        with contextlib.suppress(TimeoutError):
            async with asyncio.timeout(timeout):
                await self._protocol.exited.wait()

    def _signal_group(self, signum: signal.Signals) -> None:
        pid = self.pid
        if pid is None:  # relayed from elsewhere: the transport passes the signal on
            self._transport.send_signal(signum)
            return
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(pid, signum)
