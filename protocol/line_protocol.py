"""The byte side of one engine process: stdout split into bounded lines, replies matched to
commands in the order sent, stderr kept as a tail, and every way the pipes break classified.

It is the asyncio subprocess protocol under :class:`protocol.client.EngineClient`. Output
is taken the moment it arrives (the transport's data callbacks), so a chatty engine never
blocks on a full pipe; lines that are not replies are noise, logged and skipped.
"""

import asyncio
import copy
import dataclasses
import time
from collections import deque
from collections.abc import Callable
from typing import Final

from .errors import (
    EngineError,
    EnginePipeClosedError,
    EngineTerminatedError,
    LineTooLongError,
    MalformedReplyError,
    Noise,
    WrongReplyIdError,
)
from .messages import Command, CommandId, Reply, parse_reply_line

TrafficLog = Callable[[str], None]
"""Receives every line sent (``> ...``), read from stdout (``< ...``) and stderr (``! ...``)."""

DEFAULT_MAX_LINE_BYTES: Final = 64 * 1024
"""Longest stdout line (and longest ``list_commands`` payload) accepted, in bytes."""

STDERR_TAIL_BYTES: Final = 4096
"""How much of the end of the engine's stderr is kept for error messages."""

LIST_COMMANDS_QUIET: Final = 0.15
"""Seconds without a new line that end the continuation lines of ``list_commands``."""

FAULT_GRACE: Final = 0.2
"""Seconds allowed between a closed pipe and the process exit to call it a termination."""

_LOG_PREVIEW_CHARS: Final = 120


def _is_usable_payload(raw: bytes) -> bool:
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return not any((char < " " and char != "\t") or char == "\x7f" for char in text)


@dataclasses.dataclass(eq=False)
class _Waiter:
    """A command sent and the future of its reply (cancelled once abandoned)."""

    command: Command
    future: asyncio.Future[tuple[Reply, float]]


@dataclasses.dataclass(eq=False)
class _Collecting:
    """A ``list_commands`` reply gathering its continuation lines."""

    waiter: _Waiter
    reply: Reply
    received_at: float
    lines: list[str]
    size: int
    last_line_at: float
    timer: asyncio.TimerHandle


class EngineLineProtocol(asyncio.SubprocessProtocol):
    """Byte-level side of one engine: line splitting, reply matching and fault detection."""

    def __init__(
        self, name: str, traffic_log: TrafficLog | None, max_line_bytes: int, log_stderr: bool
    ) -> None:
        self.name = name
        self.exited = asyncio.Event()
        self._loop = asyncio.get_running_loop()
        self._traffic_log = traffic_log
        self._max_line_bytes = max_line_bytes
        self._log_stderr = log_stderr
        self._transport: asyncio.SubprocessTransport | None = None
        self._stdout = bytearray()
        self._stdout_scanned = 0
        self._stdout_overflowed = False
        self._stdout_closed = False
        self._stdin_closed = False
        self._stderr_closed = False
        self._stderr = bytearray()
        self._stderr_tail = bytearray()
        self._waiters: deque[_Waiter] = deque()
        self._collecting: _Collecting | None = None
        self._unsolicited: WrongReplyIdError | None = None
        self._fault: EngineError | None = None
        self._classify: asyncio.TimerHandle | None = None
        self._noise = Noise()

    # -- asyncio callbacks ---------------------------------------------------------

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        assert isinstance(transport, asyncio.SubprocessTransport)
        self._transport = transport

    def pipe_data_received(self, fd: int, data: bytes) -> None:
        if fd == 1:
            self._stdout_received(data, time.monotonic())
        elif fd == 2:
            self._stderr_received(data)

    def pipe_connection_lost(self, fd: int, exc: Exception | None) -> None:
        if fd == 0:
            self._stdin_closed = True
        elif fd == 1:
            if self._stdout and not self._stdout_overflowed:
                self._line(bytes(self._stdout), time.monotonic())
                self._stdout.clear()
            self._finish_collecting()
            self._stdout_closed = True
        else:
            if self._stderr:
                self._log_stderr_line(bytes(self._stderr))
                self._stderr.clear()
            self._stderr_closed = True
        self._on_break()

    def process_exited(self) -> None:
        self.exited.set()
        self._on_break()

    # -- state seen by the client ----------------------------------------------------

    @property
    def returncode(self) -> int | None:
        """The exit status once the process has exited."""
        return None if self._transport is None else self._transport.get_returncode()

    @property
    def stderr_tail(self) -> str:
        """The last bytes of stderr, decoded."""
        return self._stderr_tail.decode("utf-8", errors="replace")

    @property
    def broken(self) -> bool:
        """Whether stdin or stdout has closed or the process has exited."""
        return self._stdout_closed or self._stdin_closed or self.exited.is_set()

    @property
    def stdin_open(self) -> bool:
        """Whether commands can still be written."""
        return not self._stdin_closed

    @property
    def noise(self) -> Noise:
        """The lines read since the last command was sent that were not replies."""
        return self._noise

    def log(self, line: str) -> None:
        """Pass one line to the traffic log, if any."""
        if self._traffic_log is not None:
            self._traffic_log(line)

    def fault_now(self) -> EngineError:
        """The sticky fault, set first from the state of a broken engine if there is none."""
        self.set_fault(self._broken_error())
        assert self._fault is not None
        return copy.copy(self._fault)

    def _broken_error(self) -> EngineError:
        if self.exited.is_set():
            return EngineTerminatedError(self.name, self.returncode, self.stderr_tail)
        which = "stdout reached end of file" if self._stdout_closed else "stdin is closed"
        return EnginePipeClosedError(self.name, f"{which} while the process still runs")

    def check_usable(self) -> None:
        """Raise the pending fault, or the unsolicited reply seen since the last command."""
        if self._fault is not None:
            raise copy.copy(self._fault)
        if self._unsolicited is not None:
            error, self._unsolicited = self._unsolicited, None
            raise error

    def write(self, command: Command) -> _Waiter:
        """Send the command line; the returned waiter receives its reply."""
        assert self._transport is not None
        stdin = self._transport.get_pipe_transport(0)
        assert isinstance(stdin, asyncio.WriteTransport)
        line = command.line()
        if "\n" in line or "\r" in line:
            raise ValueError(f"a command line cannot contain a line break: {line!r}")
        waiter = _Waiter(command, self._loop.create_future())
        self._waiters.append(waiter)
        self._noise = Noise()
        self.log(f"> {line}")
        stdin.write(f"{line}\n".encode())
        return waiter

    def close_stdin(self) -> None:
        """Close the engine's stdin (engines exit on end of file)."""
        if self._transport is not None:
            stdin = self._transport.get_pipe_transport(0)
            if stdin is not None:
                stdin.close()

    def set_fault(self, error: EngineError) -> None:
        """Make ``error`` sticky and fail every command still waiting with it."""
        if self._fault is not None:
            return
        self._fault = error
        if self._classify is not None:
            self._classify.cancel()
            self._classify = None
        self._finish_collecting()
        while self._waiters:
            future = self._waiters.popleft().future
            if not future.done():
                future.set_exception(copy.copy(error))

    # -- stdout ------------------------------------------------------------------------

    def _stdout_received(self, data: bytes, now: float) -> None:
        if self._stdout_overflowed:
            return
        buffer = self._stdout
        buffer += data
        start = 0
        while (end := buffer.find(b"\n", self._stdout_scanned)) >= 0:
            if end - start > self._max_line_bytes:
                self._overflow(bytes(buffer[start : start + _LOG_PREVIEW_CHARS]))
                return
            line = bytes(buffer[start:end])
            start = self._stdout_scanned = end + 1
            self._line(line, now)
        del buffer[:start]
        self._stdout_scanned = len(buffer)
        if len(buffer) > self._max_line_bytes:
            self._overflow(bytes(buffer[:_LOG_PREVIEW_CHARS]))

    def _overflow(self, head: bytes) -> None:
        preview = head.decode("utf-8", errors="replace")
        self.log(f"< {preview}... [line over {self._max_line_bytes} bytes]")
        self._stdout_overflowed = True
        self._stdout.clear()
        self.set_fault(LineTooLongError(self.name, self._max_line_bytes))

    def _line(self, raw: bytes, now: float) -> None:
        if raw.endswith(b"\r"):
            raw = raw[:-1]
        text = raw.decode("utf-8", errors="replace")
        self.log(f"< {text}")
        reply = parse_reply_line(text)
        if reply is None:
            if self._collecting is not None:
                self._collect(raw, text, now)
            elif text.strip():
                self._count_noise(text)
            return
        self._finish_collecting()
        malformed = None
        if not _is_usable_payload(raw):
            malformed = MalformedReplyError(
                self.name, f"reply {text!r} is not valid UTF-8 text without control characters"
            )
        self._match(reply, text, now, malformed)

    def _match(
        self, reply: Reply, text: str, now: float, malformed: MalformedReplyError | None
    ) -> None:
        waiters = self._waiters
        while waiters and waiters[0].future.done() and waiters[0].command.id != reply.id:
            waiters.popleft()
        if not waiters:
            if self._unsolicited is None:
                self._unsolicited = WrongReplyIdError(self.name, None, reply.id, text)
            return
        waiter = waiters.popleft()
        if waiter.future.done():
            return
        expected = int(waiter.command.id)
        if reply.id != expected:
            waiter.future.set_exception(WrongReplyIdError(self.name, expected, reply.id, text))
        elif malformed is not None:
            waiter.future.set_exception(malformed)
        elif reply.ok and reply.id == CommandId.LIST_COMMANDS:
            timer = self._loop.call_later(LIST_COMMANDS_QUIET, self._quiet_check)
            lines = [reply.payload] if reply.payload else []
            size = len(reply.payload.encode())
            self._collecting = _Collecting(waiter, reply, now, lines, size, now, timer)
        else:
            waiter.future.set_result((reply, now))

    def _count_noise(self, text: str) -> None:
        """One more line that is not a reply (the first is kept, for the timeout's words)."""
        noise = self._noise
        self._noise = Noise(noise.count + 1, noise.first if noise.count else text)

    # -- list_commands continuation ------------------------------------------------------

    def _collect(self, raw: bytes, text: str, now: float) -> None:
        collecting = self._collecting
        assert collecting is not None
        collecting.last_line_at = now
        word = text.strip()
        if not word:
            return
        collecting.size += len(raw) + 1
        if collecting.size > self._max_line_bytes:
            collecting.timer.cancel()
            self._collecting = None
            if not collecting.waiter.future.done():
                collecting.waiter.future.set_exception(
                    MalformedReplyError(
                        self.name, f"list_commands reply exceeds {self._max_line_bytes} bytes"
                    )
                )
            return
        collecting.lines.append(word)

    def _quiet_check(self) -> None:
        collecting = self._collecting
        if collecting is None:
            return
        remaining = collecting.last_line_at + LIST_COMMANDS_QUIET - time.monotonic()
        if remaining > 0:
            collecting.timer = self._loop.call_later(remaining, self._quiet_check)
        else:
            self._finish_collecting()

    def _finish_collecting(self) -> None:
        collecting = self._collecting
        if collecting is None:
            return
        self._collecting = None
        collecting.timer.cancel()
        if not collecting.waiter.future.done():
            payload = "\n".join(collecting.lines)
            reply = dataclasses.replace(collecting.reply, payload=payload)
            collecting.waiter.future.set_result((reply, collecting.received_at))

    # -- stderr --------------------------------------------------------------------------

    def _stderr_received(self, data: bytes) -> None:
        tail = self._stderr_tail
        tail += data
        if len(tail) > STDERR_TAIL_BYTES:
            del tail[:-STDERR_TAIL_BYTES]
        if not self._log_stderr or self._traffic_log is None:
            return
        buffer = self._stderr
        buffer += data
        *lines, partial = buffer.split(b"\n")
        for line in lines:
            self._log_stderr_line(line)
        if len(partial) > self._max_line_bytes:
            self._log_stderr_line(partial)
            partial = bytearray()
        self._stderr = partial

    def _log_stderr_line(self, line: bytes | bytearray) -> None:
        if line.endswith(b"\r"):
            line = line[:-1]
        self.log(f"! {line.decode('utf-8', errors='replace')}")

    # -- faults --------------------------------------------------------------------------

    def _on_break(self) -> None:
        if self._fault is not None:
            return
        if self.exited.is_set() and self._stdout_closed and self._stderr_closed:
            self.set_fault(self._broken_error())
        elif self._classify is None and self.broken:
            self._classify = self._loop.call_later(FAULT_GRACE, self._classify_fault)

    def _classify_fault(self) -> None:
        self._classify = None
        self.set_fault(self._broken_error())
