"""An engine on a participant's machine, driven as if it were a local process.

The server drives a remote engine with the same :class:`~protocol.client.EngineClient`
and :class:`~protocol.line_protocol.EngineLineProtocol` as a local one: ``RemotePipes``
is the subprocess transport under them, whose stdin writes go out as ``send`` frames and
whose stdout is fed by the ``line`` frames that come back. Line bounds, reply matching,
timeouts and faults are therefore the local engine's, word for word. Signals become a
``stop`` frame; the engine counts as exited when the client says so, or at once when the
server stops it (the client kills its process on ``stop``). A limit of the relay's sandbox
that stopped the engine comes with its exit, and is what the client's watch answers, so it
ends the game as a local engine's limit does (``memory-limit``, not a crash).
"""

import asyncio
import signal
from collections import deque
from collections.abc import Callable
from typing import Any, Final

from protocol.client import EngineClient
from protocol.errors import EngineDisconnectedError
from protocol.line_protocol import DEFAULT_MAX_LINE_BYTES, EngineLineProtocol, TrafficLog
from protocol.resource_watch import LimitBreach

from .wire import Held, Send, Start, Stop

NO_PID: Final = -1
"""What ``get_pid`` answers: a remote engine has no process here to signal."""
KEPT_LINES: Final = 64
"""Lines sent to an engine that are kept to send again once its relay resumes it: those
lost with the connection (a suspended seat tells its engine nothing new)."""

FrameSender = Callable[[Send | Start | Stop], None]
"""Sends a frame to the client that relays the engine (dropped if it is not connected)."""


class _RemoteStdin(asyncio.WriteTransport):
    """The engine's stdin: whole lines go out as ``send`` frames."""

    def __init__(self, pipes: "RemotePipes") -> None:
        super().__init__()
        self._pipes = pipes
        self._closing = False
        self._partial = b""

    def write(self, data: bytes | bytearray | memoryview) -> None:
        if self._closing:
            return
        *lines, self._partial = (self._partial + bytes(data)).split(b"\n")
        for line in lines:
            self._pipes.send_line(line.decode("utf-8", errors="replace"))

    def close(self) -> None:
        if not self._closing:
            self._closing = True
            self._pipes.stdin_closed()

    def is_closing(self) -> bool:
        return self._closing

    def get_extra_info(self, name: str, default: Any = None) -> Any:
        return default


class RemotePipes(asyncio.SubprocessTransport):
    """The transport of one game's remote engine, for an ``EngineLineProtocol``."""

    def __init__(self, game: str, send: FrameSender, protocol: EngineLineProtocol) -> None:
        super().__init__()
        self.game = game
        self._send = send
        self._protocol = protocol
        self._stdin = _RemoteStdin(self)
        self._returncode: int | None = None
        self.limit: LimitBreach | None = None
        """The limit the relay's sandbox stopped the engine at, as the relay said."""
        self._closed = False
        self.lost = False
        """Whether the engine ended because the client's connection dropped (not by itself)."""
        self._sent: deque[str] = deque(maxlen=KEPT_LINES)
        self.sent_count = 0
        self.received_count = 0
        self.suspended = False
        """Whether the client's connection dropped and the engine may yet be resumed."""
        self.drops = 0
        """Times it was suspended."""
        self.settled = asyncio.Event()
        """Set while not suspended (connected, resumed, lost or ended)."""
        self.settled.set()
        self.down = asyncio.Event()
        """Set while suspended."""
        self.expiry: asyncio.TimerHandle | None = None
        """The end of the wait for a suspended engine's client (then it is lost)."""

    # -- the server's side: frames in -------------------------------------------------

    def started(self) -> None:
        """Tell the client to start the engine for this game."""
        self._protocol.connection_made(self)
        self._send(Start(game=self.game))

    def line_received(self, text: str) -> None:
        """A line the engine wrote, as the client relayed it."""
        self.received_count += 1
        if self._returncode is None:
            self._protocol.pipe_data_received(1, text.encode() + b"\n")

    def suspend(self) -> None:
        """The client's connection dropped; it may resume the engine (lines sent meanwhile
        are kept, up to ``KEPT_LINES``)."""
        if self._returncode is None and not self.suspended:
            self.suspended = True
            self.drops += 1
            self.settled.clear()
            self.down.set()

    def resumable(self, held: Held) -> bool:
        """Whether the engine the client still holds can go on: it has not ended here,
        and the lines the client says it was told and said match what was sent and
        received (none lost beyond what either side keeps)."""
        unsent = self.sent_count - held.told
        return (
            self.suspended
            and self._returncode is None
            and 0 <= unsent <= len(self._sent)
            and held.said - held.kept <= self.received_count <= held.said
        )

    def resume(self, send: FrameSender, held: Held) -> None:
        """Carry on over the client's new connection (``send``), sending again the lines
        its engine was not told (``resumable`` first)."""
        unsent = self.sent_count - held.told
        self._send = send
        self.suspended = False
        self._end_wait()
        for text in list(self._sent)[len(self._sent) - unsent :]:
            self._send(Send(game=self.game, text=text))

    def _end_wait(self) -> None:
        self.settled.set()
        self.down.clear()
        if self.expiry is not None:
            self.expiry.cancel()
            self.expiry = None

    def exited(self, status: int | None, error: str = "", limit: LimitBreach | None = None) -> None:
        """The client says the engine ended (``error``: why it could not start or run;
        ``limit``: the limit its sandbox stopped it at)."""
        if self._returncode is not None:
            return
        self._returncode = status if status is not None else -int(signal.SIGKILL)
        self.limit = limit
        self.suspended = False
        self._end_wait()
        if error:
            self._protocol.pipe_data_received(2, error.encode()[:4096] + b"\n")
        for fd in (0, 1, 2):
            self._protocol.pipe_connection_lost(fd, None)
        self._protocol.process_exited()

    def lose(self) -> None:
        """The client's connection dropped: the engine is gone with it."""
        if self._returncode is None:
            self.lost = True
            dropped = EngineDisconnectedError(self._protocol.name, "its connection dropped")
            self._protocol.set_fault(dropped)
            self.exited(None)

    # -- the line protocol's side: what it asks of a process ----------------------------

    def send_line(self, text: str) -> None:
        """A line for the engine's stdin (kept, and only sent once resumed, while
        suspended)."""
        if self._returncode is None:
            self._sent.append(text)
            self.sent_count += 1
            if not self.suspended:
                self._send(Send(game=self.game, text=text))

    def stdin_closed(self) -> None:
        """Closing stdin ends a remote engine: the client stops it."""
        self._protocol.pipe_connection_lost(0, None)
        self._send(Stop(game=self.game))

    def get_pid(self) -> int:
        return NO_PID

    def get_returncode(self) -> int | None:
        return self._returncode

    def get_pipe_transport(self, fd: int) -> asyncio.BaseTransport | None:
        return self._stdin if fd == 0 else None

    def send_signal(self, signal_number: int) -> None:
        """Any signal stops the engine: a ``stop`` frame, and it counts as ended here."""
        if self._returncode is None:
            self._send(Stop(game=self.game))
            self.exited(-signal_number)

    def terminate(self) -> None:
        self.send_signal(signal.SIGTERM)

    def kill(self) -> None:
        self.send_signal(signal.SIGKILL)

    def close(self) -> None:
        if not self._closed:
            self._closed = True
            self.kill()

    def is_closing(self) -> bool:
        return self._closed

    def get_extra_info(self, name: str, default: Any = None) -> Any:
        return default


class _RelayedLimits:
    """The watch of a relayed engine: the limit the relay said it reached, if any."""

    def __init__(self, pipes: RemotePipes) -> None:
        self._pipes = pipes

    def breach(self, pid: int, returncode: int | None, stderr_tail: str) -> LimitBreach | None:
        return self._pipes.limit

    def release(self) -> None:
        """The relay frees its own control group."""


def remote_engine(
    game: str,
    name: str,
    send: FrameSender,
    traffic_log: TrafficLog | None = None,
) -> tuple[EngineClient, RemotePipes]:
    """A client for the engine of ``game`` relayed by ``send``'s connection, and its
    transport (to feed it the frames that come back); the ``start`` frame is sent."""
    protocol = EngineLineProtocol(name, traffic_log, DEFAULT_MAX_LINE_BYTES, log_stderr=True)
    pipes = RemotePipes(game, send, protocol)
    pipes.started()
    return EngineClient(pipes, protocol, "remote", _RelayedLimits(pipes)), pipes
