"""The participant's side: ``banqi connect``, an engine here relayed to an arena server.

The relay connects, says ``hello`` with the entrant's token, and then does what the server
asks: ``start`` runs a fresh engine process for a game (sandboxed as the referee sandboxes
engines, unless told otherwise, within its limits), ``send`` writes a line to it, ``stop``
ends it; every line the engine writes on stdout goes back as ``line``, its exit as
``exited`` (with the limit it reached, if one stopped it; its stderr stays here). It judges
nothing and sends nothing on its own: after a dropped connection it connects again (waiting
a little longer each time, up to ``MAX_BACKOFF``), keeping its engines ``RESUME_SECONDS``
meanwhile (the lines each writes are kept, ``KEPT_LINES`` at most): its ``hello`` lists
them, and the server's ``welcome`` says which games go on with them (the lines it missed
sent again); the others are stopped, and the server tells a fresh engine the game so far.
"""

import asyncio
import contextlib
import os
import signal
import ssl
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

from banqi_common.errors import InputError
from protocol.client import WATCH_INTERVAL
from protocol.errors import EngineStartError
from protocol.resource_watch import LimitBreach
from referee.engine_env import engine_environment
from referee.engine_spec import EngineSpec
from referee.engine_start import launch_failed, sandboxed_launch
from referee.engine_watch import SandboxWatch
from referee.sandbox import Isolation

from . import wire

FIRST_BACKOFF: Final = 0.5
MAX_BACKOFF: Final = 5.0
"""Seconds between attempts to connect: doubling from the first to this."""
CONNECT_SECONDS: Final = 10.0
"""Seconds to open the connection and hear ``welcome``."""
MAX_ENGINES: Final = wire.MAX_ENGINES
"""Engines the relay runs at once, whatever a server asks (one a game being played)."""
RESUME_SECONDS: Final = wire.RESUME_SECONDS
"""Seconds the engines are kept after the connection drops, for the server to resume them."""
KEPT_LINES: Final = 256
"""The last lines each engine wrote that are kept to send again after a drop; an engine
that writes more while the connection is down waits for it (its pipe fills)."""
STOP_SECONDS: Final = 1.0
"""Seconds an engine asked to stop has to exit after its stdin closes, before SIGKILL."""
STDERR_TAIL_CHARS: Final = 4096
"""How much of the end of an engine's stderr the relay keeps (it sends none of it)."""


class RelayRefusedError(InputError):
    """The server refused the token for good (it will not be worth trying again)."""


@dataclass(frozen=True)
class RelayEvents:
    """What the relay says as it goes (the command line prints it on stderr)."""

    connected: Callable[[str], None]
    dropped: Callable[[str], None]
    game: Callable[[str, str], None]


@dataclass(frozen=True)
class RelaySettings:
    """Where to connect, as whom, and the engine to relay."""

    url: str
    token: str
    engine: EngineSpec
    isolation: Isolation
    ca_file: Path | None = None


class _Engine:
    """One game's engine process: raw lines both ways, and the limits of its sandbox
    (``watch``, None without one), which stop it the moment it reaches one."""

    def __init__(
        self, game: str, process: asyncio.subprocess.Process, watch: SandboxWatch | None
    ) -> None:
        self.game = game
        self.process = process
        self.watch = watch
        self.limit: LimitBreach | None = None
        self.stderr_tail = ""
        """The end of its stderr (which stays here), for the error an allocation or a full
        room ended it with."""
        self.told = 0
        """Lines written to its stdin."""
        self.said: deque[str] = deque()
        """The last lines it wrote (all of them while the connection is down)."""
        self.said_count = 0
        self.exit: str | None = None
        """Its ``exited`` frame, once it has ended."""
        self.connection: _Connection | None = None
        """The connection its lines go to: None while it is down or not yet resumed."""
        self.attached = asyncio.Event()
        self.task: asyncio.Task[None] | None = None
        self.expiry: asyncio.TimerHandle | None = None

    def held(self) -> wire.Held:
        """What a ``hello`` says of it."""
        return wire.Held(game=self.game, told=self.told, said=self.said_count, kept=len(self.said))

    def attach(self, connection: "_Connection | None") -> None:
        self.connection = connection
        if connection is None:
            self.attached.clear()
        else:
            self.attached.set()

    async def send_line(self, text: str) -> None:
        """Keep a line it wrote, and send it if connected; while not, wait once
        ``KEPT_LINES`` are kept."""
        while self.connection is None and len(self.said) >= KEPT_LINES:
            await self.attached.wait()
        self.said.append(text)
        self.said_count += 1
        connection = self.connection
        if connection is not None:
            while len(self.said) > KEPT_LINES:
                self.said.popleft()
            await connection.send(wire.encoded(wire.Line(game=self.game, text=text)))

    async def resume(self, connection: "_Connection", since: int) -> bool:
        """Send ``connection`` the lines said after the first ``since`` (and the exit, if
        it has ended), then relay to it; False if those lines are no longer kept."""
        index = since - (self.said_count - len(self.said))
        if not 0 <= index <= len(self.said):
            return False
        while index < len(self.said):  # more may come meanwhile; none is dropped
            await connection.send(wire.encoded(wire.Line(game=self.game, text=self.said[index])))
            index += 1
        self.attach(connection)
        if self.exit is not None:
            await connection.send(self.exit)
        return True

    async def pump(self, ended: Callable[["_Engine"], None]) -> None:
        """Relay stdout lines until end of file, then the exit (a line too long ends it),
        with the limit it reached, if any; the control group goes with the engine;
        ``ended`` once the exit is sent (not while the connection is down)."""
        stdout = self.process.stdout
        assert stdout is not None
        helpers = [asyncio.create_task(self._drain_stderr())]
        if self.watch is not None:
            helpers.append(asyncio.create_task(self._watch_limits(self.watch)))
        error = ""
        try:
            try:
                while line := await stdout.readline():
                    await self.send_line(line.decode("utf-8", "replace")[:-1])
            except ValueError:  # a line over the reader's limit
                error = f"the engine wrote a line over {wire.MAX_LINE_CHARS} bytes"
            status = await self.stop()
            await asyncio.wait(helpers[:1], timeout=STOP_SECONDS)  # the rest of stderr
            if self.limit is None and self.watch is not None:
                self.limit = self.watch.breach(self.process.pid, status, self.stderr_tail)
            reached = self.limit
            limit = (
                None
                if reached is None
                else wire.LimitReached(kind=reached.kind, words=reached.words)
            )
            self.exit = wire.encoded(
                wire.Exited(game=self.game, status=status, error=error, limit=limit)
            )
            if self.connection is not None:
                await self.connection.send(self.exit)
                ended(self)
        finally:
            for helper in helpers:
                helper.cancel()
            if self.watch is not None:
                self.watch.release()

    async def _drain_stderr(self) -> None:
        stderr = self.process.stderr
        assert stderr is not None
        while chunk := await stderr.read(STDERR_TAIL_CHARS):
            tail = self.stderr_tail + chunk.decode("utf-8", "replace")
            self.stderr_tail = tail[-STDERR_TAIL_CHARS:]

    async def _watch_limits(self, watch: SandboxWatch) -> None:
        """Look at the limits every ``WATCH_INTERVAL``; one reached ends the engine."""
        while self.process.returncode is None:
            await asyncio.sleep(WATCH_INTERVAL)
            limit = watch.breach(self.process.pid, None, "")
            if limit is not None and self.process.returncode is None:
                self.limit = limit
                with contextlib.suppress(ProcessLookupError, PermissionError):
                    os.killpg(self.process.pid, signal.SIGKILL)
                return

    def write(self, text: str) -> None:
        self.told += 1
        stdin = self.process.stdin
        if stdin is not None and not stdin.is_closing():
            stdin.write(text.encode() + b"\n")

    async def stop(self) -> int | None:
        """Close stdin, give it ``STOP_SECONDS``, then kill its process group; the status."""
        stdin = self.process.stdin
        if stdin is not None and not stdin.is_closing():
            stdin.close()
        try:
            async with asyncio.timeout(STOP_SECONDS):
                return await self.process.wait()
        except TimeoutError:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(self.process.pid, signal.SIGKILL)
            return await self.process.wait()


async def _start_engine(settings: RelaySettings, game: str) -> _Engine:
    """A fresh engine process for ``game``; EngineStartError if it cannot start."""
    spec = settings.engine
    watch = None
    if settings.isolation is Isolation.NONE:
        command, env, before = list(spec.command), engine_environment(spec), None
    else:
        launch = sandboxed_launch(spec, settings.isolation, [])
        command, env, before = launch.command, launch.env, launch.limited.before_exec
        watch = launch.limited.watch
    try:
        process = await asyncio.create_subprocess_exec(
            *command,
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
            env=env,
            cwd=spec.cwd,
            start_new_session=True,
            preexec_fn=before,
            limit=wire.MAX_LINE_CHARS + 1,
        )
    except OSError as error:
        if watch is not None:
            watch.release()
        raise EngineStartError(spec.name, launch_failed(spec, settings.isolation, error)) from None
    return _Engine(game, process, watch)


class _Engines:
    """The relay's engines, one a game, kept across its connections."""

    def __init__(self, settings: RelaySettings, events: RelayEvents) -> None:
        self.settings = settings
        self.events = events
        self.running: dict[str, _Engine] = {}
        self.reaping: set[asyncio.Task[None]] = set()

    def held(self) -> list[wire.Held]:
        """What the next ``hello`` lists."""
        return [engine.held() for engine in self.running.values()]

    async def resume(self, connection: "_Connection", resumed: list[wire.Resumed]) -> None:
        """Relay to ``connection`` the engines of the games it resumes; stop the others."""
        since = {entry.game: entry.since for entry in resumed}
        for engine in list(self.running.values()):
            if engine.game in since and await engine.resume(connection, since[engine.game]):
                self._keep(engine)
                self.events.game(engine.game, "resumed")
                if engine.exit is not None:
                    self._forget(engine)
                continue
            await self.stop(engine.game)
            if engine.game in since:  # the server's count is not one kept here: say so
                words = "the relay no longer has the lines its engine wrote"
                await connection.send(
                    wire.encoded(wire.Exited(game=engine.game, status=None, error=words))
                )

    def detach(self) -> None:
        """The connection dropped: each engine is kept ``RESUME_SECONDS``, then stopped."""
        loop = asyncio.get_running_loop()
        for engine in self.running.values():
            engine.attach(None)
            if engine.expiry is None:
                engine.expiry = loop.call_later(RESUME_SECONDS, self._expire, engine)

    def _keep(self, engine: _Engine) -> None:
        if engine.expiry is not None:
            engine.expiry.cancel()
            engine.expiry = None

    def _expire(self, engine: _Engine) -> None:
        engine.expiry = None
        if self.running.get(engine.game) is engine and engine.connection is None:
            self._forget(engine)
            task = asyncio.create_task(_reap(engine))
            self.reaping.add(task)
            task.add_done_callback(self.reaping.discard)

    def _forget(self, engine: _Engine) -> None:
        if self.running.get(engine.game) is engine:
            del self.running[engine.game]

    async def start(self, connection: "_Connection", game: str) -> None:
        """A fresh engine for ``game``, relayed to ``connection`` (an ``exited`` frame
        if it cannot start)."""
        await self.stop(game)
        if len(self.running) >= MAX_ENGINES:
            words = f"{MAX_ENGINES} engines are running here already"
            await connection.send(wire.encoded(wire.Exited(game=game, status=None, error=words)))
            return
        try:
            engine = await _start_engine(self.settings, game)
        except InputError as error:
            await connection.send(
                wire.encoded(wire.Exited(game=game, status=None, error=str(error)[:2000]))
            )
            return
        engine.attach(connection)
        self.running[game] = engine
        self.events.game(game, "started")
        engine.task = asyncio.create_task(engine.pump(self._forget))

    def write(self, game: str, text: str) -> None:
        engine = self.running.get(game)
        if engine is not None:
            engine.write(text)

    async def stop(self, game: str) -> None:
        """Stop the engine of ``game``, if there is one, and forget it."""
        engine = self.running.pop(game, None)
        if engine is not None:
            self._keep(engine)
            await _reap(engine)

    async def stop_all(self) -> None:
        engines, self.running = list(self.running.values()), {}
        for engine in engines:
            self._keep(engine)
        await asyncio.gather(*(_reap(engine) for engine in engines), return_exceptions=True)


async def _reap(engine: _Engine) -> None:
    """Stop the engine's process, then its pump (whose exit no one waits for)."""
    await engine.stop()
    if engine.task is not None:
        engine.task.cancel()
        with contextlib.suppress(asyncio.CancelledError, Exception):
            await engine.task


class _Connection:
    """One connection: the server's frames to the engines, and the frames it sends."""

    def __init__(self, socket: Any, engines: _Engines) -> None:
        self.socket = socket
        self.engines = engines
        self.outbox: asyncio.Queue[str] = asyncio.Queue(wire.MAX_OUTBOX)
        self.closed = False

    async def send(self, text: str) -> None:
        """Queue a frame; an engine that writes faster than the network takes its lines
        waits (its pipe fills), so nothing piles up here beyond ``MAX_OUTBOX`` frames."""
        if not self.closed:
            await self.outbox.put(text)

    async def sending(self) -> None:
        while True:
            await self.socket.send(await self.outbox.get())

    async def run(self, resumed: list[wire.Resumed]) -> bool:
        """Resume the engines of ``resumed``, then do what the server asks until it says
        the tournament is over (True) or the connection drops (an exception)."""
        sender = asyncio.create_task(self.sending())
        try:
            await self.engines.resume(self, resumed)
            async for text in self.socket:
                frame = wire.server_frame(text)
                if isinstance(frame, wire.Finished):
                    return True
                await self.handle(frame)
            return False
        finally:
            sender.cancel()
            self.closed = True
            self.engines.detach()
            while not self.outbox.empty():  # frees the engines waiting to put a line
                self.outbox.get_nowait()

    async def handle(self, frame: wire.ServerMessage) -> None:
        if isinstance(frame, wire.Ping):
            await self.send(wire.encoded(wire.Pong(seq=frame.seq)))
        elif isinstance(frame, wire.Start):
            await self.engines.start(self, frame.game)
        elif isinstance(frame, wire.Send):
            self.engines.write(frame.game, frame.text)
        elif isinstance(frame, wire.Stop):
            await self.engines.stop(frame.game)
        elif isinstance(frame, wire.Refused):
            raise ConnectionError(f"the server ended the connection: {frame.reason}")


def _ssl_context(url: str, ca_file: Path | None) -> ssl.SSLContext | None:
    if not url.startswith("wss://"):
        return None
    context = ssl.create_default_context(cafile=None if ca_file is None else str(ca_file))
    return context


async def relay(settings: RelaySettings, events: RelayEvents) -> None:
    """Relay the engine until the server says the tournament is over; reconnect after
    every drop, its engines kept for the server to resume. RelayRefusedError when the
    server refuses the token for good; its engines are stopped however it ends."""
    engines = _Engines(settings, events)
    try:
        await _connect_again_and_again(settings, events, engines)
    finally:
        await engines.stop_all()


async def _connect_again_and_again(
    settings: RelaySettings, events: RelayEvents, engines: _Engines
) -> None:
    from websockets.asyncio.client import connect
    from websockets.exceptions import WebSocketException

    backoff = FIRST_BACKOFF
    while True:
        why = ""
        try:
            async with connect(
                settings.url,
                max_size=wire.MAX_FRAME_BYTES,
                open_timeout=CONNECT_SECONDS,
                ssl=_ssl_context(settings.url, settings.ca_file),
                ping_interval=None,
            ) as socket:
                hello = wire.Hello(token=settings.token, held=engines.held())
                await socket.send(wire.encoded(hello))
                async with asyncio.timeout(CONNECT_SECONDS):
                    first = wire.server_frame(await socket.recv())
                if isinstance(first, wire.Refused):
                    if not first.retry:
                        raise RelayRefusedError(f"the server refused the token: {first.reason}")
                    why = first.reason
                elif isinstance(first, wire.Welcome):
                    events.connected(first.entrant)
                    backoff = FIRST_BACKOFF
                    if await _Connection(socket, engines).run(first.resumed or []):
                        return
                    why = "the server closed the connection"
                else:
                    why = f"the server began with {first.type!r}, not welcome"
        except (
            OSError,
            TimeoutError,
            WebSocketException,
            wire.FrameError,
            ConnectionError,
        ) as error:
            why = str(error) or type(error).__name__
        events.dropped(why)
        await asyncio.sleep(backoff)
        backoff = min(backoff * 2, MAX_BACKOFF)
