"""The participant's side: ``banqi connect``, an engine here relayed to an arena server.

The relay connects, says ``hello`` with the entrant's token, and then does what the server
asks: ``start`` runs a fresh engine process for a game (sandboxed as the referee sandboxes
engines, unless told otherwise, within its limits), ``send`` writes a line to it, ``stop``
ends it; every line the engine writes on stdout goes back as ``line``, its exit as
``exited`` (with the limit it reached, if one stopped it; its stderr stays here). It judges
nothing and sends nothing on its own: after a dropped connection it stops its engines,
connects again (waiting a little longer each time, up to ``MAX_BACKOFF``) and waits to be
asked again; the server tells a fresh engine the game so far.
"""

import asyncio
import contextlib
import os
import signal
import ssl
from collections.abc import Awaitable, Callable
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
MAX_ENGINES: Final = 64
"""Engines the relay runs at once, whatever a server asks (one a game being played)."""
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

    async def pump(self, send: Callable[[str], Awaitable[None]]) -> None:
        """Relay stdout lines until end of file, then the exit (a line too long ends it),
        with the limit it reached, if any; the control group goes with the engine."""
        stdout = self.process.stdout
        assert stdout is not None
        helpers = [asyncio.create_task(self._drain_stderr())]
        if self.watch is not None:
            helpers.append(asyncio.create_task(self._watch_limits(self.watch)))
        error = ""
        try:
            try:
                while line := await stdout.readline():
                    text = line.decode("utf-8", "replace")[:-1]
                    await send(wire.encoded(wire.Line(game=self.game, text=text)))
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
            await send(
                wire.encoded(wire.Exited(game=self.game, status=status, error=error, limit=limit))
            )
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


class _Connection:
    """One connection's engines and the frames it sends."""

    def __init__(self, socket: Any, settings: RelaySettings, events: RelayEvents) -> None:
        self.socket = socket
        self.settings = settings
        self.events = events
        self.engines: dict[str, _Engine] = {}
        self.tasks: set[asyncio.Task[None]] = set()
        self.outbox: asyncio.Queue[str] = asyncio.Queue(wire.MAX_OUTBOX)

    async def send(self, text: str) -> None:
        """Queue a frame; an engine that writes faster than the network takes its lines
        waits (its pipe fills), so nothing piles up here beyond ``MAX_OUTBOX`` frames."""
        await self.outbox.put(text)

    async def sending(self) -> None:
        while True:
            await self.socket.send(await self.outbox.get())

    async def run(self) -> bool:
        """Do what the server asks until it says the tournament is over (True) or the
        connection drops (an exception)."""
        sender = asyncio.create_task(self.sending())
        try:
            async for text in self.socket:
                frame = wire.server_frame(text)
                if isinstance(frame, wire.Finished):
                    return True
                await self.handle(frame)
            return False
        finally:
            sender.cancel()
            await self.stop_all()

    async def handle(self, frame: wire.ServerMessage) -> None:
        if isinstance(frame, wire.Ping):
            await self.send(wire.encoded(wire.Pong(seq=frame.seq)))
        elif isinstance(frame, wire.Start):
            await self.start(frame.game)
        elif isinstance(frame, wire.Send):
            engine = self.engines.get(frame.game)
            if engine is not None:
                engine.write(frame.text)
        elif isinstance(frame, wire.Stop):
            engine = self.engines.pop(frame.game, None)
            if engine is not None:
                await engine.stop()
        elif isinstance(frame, wire.Refused):
            raise ConnectionError(f"the server ended the connection: {frame.reason}")

    async def start(self, game: str) -> None:
        old = self.engines.pop(game, None)
        if old is not None:
            await old.stop()
        if len(self.engines) >= MAX_ENGINES:
            words = f"{MAX_ENGINES} engines are running here already"
            await self.send(wire.encoded(wire.Exited(game=game, status=None, error=words)))
            return
        try:
            engine = await _start_engine(self.settings, game)
        except InputError as error:
            await self.send(
                wire.encoded(wire.Exited(game=game, status=None, error=str(error)[:2000]))
            )
            return
        self.engines[game] = engine
        self.events.game(game, "started")
        task = asyncio.create_task(self._pump(engine))
        self.tasks.add(task)
        task.add_done_callback(self.tasks.discard)

    async def _pump(self, engine: _Engine) -> None:
        await engine.pump(self.send)
        if self.engines.get(engine.game) is engine:
            del self.engines[engine.game]

    async def stop_all(self) -> None:
        engines, self.engines = list(self.engines.values()), {}
        await asyncio.gather(*(engine.stop() for engine in engines), return_exceptions=True)
        for task in list(self.tasks):
            task.cancel()


def _ssl_context(url: str, ca_file: Path | None) -> ssl.SSLContext | None:
    if not url.startswith("wss://"):
        return None
    context = ssl.create_default_context(cafile=None if ca_file is None else str(ca_file))
    return context


async def relay(settings: RelaySettings, events: RelayEvents) -> None:
    """Relay the engine until the server says the tournament is over; reconnect after
    every drop. RelayRefusedError when the server refuses the token for good."""
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
                await socket.send(wire.encoded(wire.Hello(token=settings.token)))
                async with asyncio.timeout(CONNECT_SECONDS):
                    first = wire.server_frame(await socket.recv())
                if isinstance(first, wire.Refused):
                    if not first.retry:
                        raise RelayRefusedError(f"the server refused the token: {first.reason}")
                    why = first.reason
                elif isinstance(first, wire.Welcome):
                    events.connected(first.entrant)
                    backoff = FIRST_BACKOFF
                    if await _Connection(socket, settings, events).run():
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
