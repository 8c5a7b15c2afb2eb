"""The server's side of the clients: who is connected as which entrant, and their engines.

A connection proves its entrant with ``hello`` within ``AUTH_SECONDS``; a wrong token, an
entrant already connected, or too many connections from one address is refused with a
``refused`` frame and closed. An authenticated connection is a :class:`ClientLink`: the
engines of its games (``RemotePipes``), the frames it may send (bounded in size by
``wire``, in rate by ``MAX_FRAMES_PER_SECOND`` a game and ``MIN_FRAMES_PER_SECOND`` in
all), and the round trips its pings measure.
When it drops, its engines count as lost (:attr:`RemotePipes.lost`), so a game can wait for
the entrant to come back; a client of protocol version 2 keeps them instead, and the hub
keeps their side ``wire.RESUME_SECONDS`` (suspended): a ``hello`` that lists one whose
lines match resumes it on the new connection, and the others are lost then.
"""

import asyncio
import contextlib
import statistics
import time
from collections import deque
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Final, Protocol

from protocol.client import EngineClient
from protocol.line_protocol import TrafficLog
from protocol.resource_watch import LimitBreach

from . import wire
from .remote_engine import RemotePipes, remote_engine
from .tokens import TokenStore, entrant_of

AUTH_SECONDS: Final = 5.0
"""Seconds a new connection has to send its ``hello``."""
MAX_FRAMES_PER_SECOND: Final = 500
"""Frames a client may send in a second for each game it is playing, on average over
``RATE_WINDOW`` seconds: a relay in 32 games at once sends 32 engines' lines."""
MIN_FRAMES_PER_SECOND: Final = 2000
"""Frames a second any client may send, in however few games: one game of an engine that
answers at once (the random player) sends 500 to 700 a second at the server's full pace,
and more in a burst after the server was held up."""
RATE_WINDOW: Final = 2.0
PING_SECONDS: Final = 2.0
"""Seconds between the pings that measure a client's round trip."""
RTT_SAMPLES: Final = 9
"""Round trips kept; their median is the network delay a move is credited with."""


class Socket(Protocol):
    """What the hub needs of one WebSocket connection."""

    async def receive_text(self) -> str | bytes:
        """The next frame, text or binary (raises once the connection is closed)."""
        ...

    async def send_text(self, text: str) -> None:
        """Send one text frame."""
        ...

    async def close(self, code: int) -> None:
        """Close the connection."""
        ...


class Refusal(Exception):
    """Why a connection is refused or ended; ``code`` is its WebSocket close code."""

    def __init__(self, reason: str, code: int) -> None:
        super().__init__(reason)
        self.reason = reason
        self.code = code


CLOSE_POLICY: Final = 1008
"""WebSocket close code for a broken rule: a bad frame, a bad token, a flood."""
CLOSE_TRY_LATER: Final = 1013
"""WebSocket close code for a connection refused for now (entrant in use, address full)."""


@dataclass(eq=False)
class ClientLink:
    """One authenticated client: its entrant, its games' engines, its outgoing frames."""

    entrant: str
    address: str = "unknown"
    connected_since: datetime = field(default_factory=lambda: datetime.now(UTC))
    outbox: "asyncio.Queue[str]" = field(default_factory=lambda: asyncio.Queue(wire.MAX_OUTBOX))
    games: dict[str, RemotePipes] = field(default_factory=dict)
    rtts: deque[float] = field(default_factory=lambda: deque(maxlen=RTT_SAMPLES))
    pings: dict[int, float] = field(default_factory=dict)
    closed: bool = False
    resumes: bool = False
    """Whether the client keeps its engines when the connection drops (version 2)."""
    not_reading: asyncio.Event = field(default_factory=asyncio.Event)
    """Set once ``MAX_OUTBOX`` frames wait: the connection is then ended at once."""

    def send(self, frame: wire.ServerMessage) -> None:
        """Queue a frame; a client that lets ``MAX_OUTBOX`` pile up is dropped."""
        if self.closed:
            return
        try:
            self.outbox.put_nowait(wire.encoded(frame))
        except asyncio.QueueFull:
            self.closed = True
            self.not_reading.set()

    def network_delay(self) -> float:
        """The median round trip of the last pings (0 before any came back)."""
        return statistics.median(self.rtts) if self.rtts else 0.0


class Hub:
    """The entrants' connections, and the engines games start on them."""

    def __init__(self, store: TokenStore, max_per_address: int) -> None:
        self.store = store
        self.max_per_address = max_per_address
        self.links: dict[str, ClientLink] = {}
        self.waiting: dict[tuple[str, str], datetime] = {}
        """Since when each game's engine of an entrant (by game and entrant) waits for the
        entrant to connect."""
        self.suspended: dict[str, dict[str, RemotePipes]] = {}
        """The engines of each entrant whose connection dropped, by game, that its next
        connection may resume."""
        self._per_address: dict[str, int] = {}
        self._changed = asyncio.Condition()

    # -- connections ------------------------------------------------------------------

    async def serve(self, socket: Socket, address: str) -> None:
        """Run one connection to its end: authenticate, relay, and clean up."""
        if self._per_address.get(address, 0) >= self.max_per_address:
            await _refuse(socket, Refusal(f"too many connections from {address}", CLOSE_TRY_LATER))
            return
        self._per_address[address] = self._per_address.get(address, 0) + 1
        try:
            link = await self._authenticate(socket, address)
            if link is None:
                return
            try:
                await self._relay(socket, link)
            finally:
                await self._detach(link)
        finally:
            self._per_address[address] -= 1
            if not self._per_address[address]:
                del self._per_address[address]

    async def _authenticate(self, socket: Socket, address: str) -> ClientLink | None:
        """The link of a connection whose ``hello`` names a free entrant; None if refused."""
        try:
            async with asyncio.timeout(AUTH_SECONDS):
                frame = wire.client_frame(await socket.receive_text())
            if not isinstance(frame, wire.Hello):
                raise Refusal("the first frame must be hello", CLOSE_POLICY)
            entrant = entrant_of(self.store, frame.token)
            if entrant is None:
                raise Refusal("unknown token", CLOSE_POLICY)
            if entrant in self.links:
                raise Refusal(f"entrant {entrant} is already connected", CLOSE_TRY_LATER)
        except TimeoutError:
            await _refuse(socket, Refusal(f"no hello within {AUTH_SECONDS:g}s", CLOSE_POLICY))
            return None
        except wire.FrameError as error:
            await _refuse(socket, Refusal(str(error), CLOSE_POLICY))
            return None
        except Refusal as refusal:
            await _refuse(socket, refusal)
            return None
        except Exception:  # the connection went away before it said who it is
            return None
        link = ClientLink(entrant, address, resumes=frame.protocol != "banqi-arena/1")
        resumed = self._resumable(entrant, (frame.held or []) if link.resumes else [])
        since = [
            wire.Resumed(game=held.game, since=pipes.received_count) for pipes, held in resumed
        ]
        link.send(
            wire.Welcome(
                protocol=frame.protocol, entrant=entrant, resumed=since if link.resumes else None
            )
        )
        for pipes, held in resumed:
            pipes.resume(link.send, held)
            link.games[held.game] = pipes
        async with self._changed:
            self.links[entrant] = link
            self._changed.notify_all()
        return link

    async def _relay(self, socket: Socket, link: ClientLink) -> None:
        """Frames both ways until the connection ends or breaks a rule."""
        sending = asyncio.create_task(_send_loop(socket, link))
        pinging = asyncio.create_task(_ping_loop(link))
        receiving = asyncio.create_task(_receive_loop(socket, link))
        stuck = asyncio.create_task(link.not_reading.wait())
        try:
            await asyncio.wait((receiving, stuck), return_when=asyncio.FIRST_COMPLETED)
            if not receiving.done():
                raise Refusal(
                    f"{wire.MAX_OUTBOX} frames waiting: the client is not reading", CLOSE_POLICY
                )
            receiving.result()
        except Refusal as refusal:
            link.closed = True
            sending.cancel()
            await _refuse(socket, refusal)
        except Exception:  # the client went away: its games see their engines as lost
            pass
        finally:
            link.closed = True
            for task in (sending, pinging, receiving, stuck):
                task.cancel()
                with contextlib.suppress(asyncio.CancelledError, Exception):
                    await task

    def _resumable(
        self, entrant: str, held: list[wire.Held]
    ) -> list[tuple[RemotePipes, wire.Held]]:
        """The entrant's suspended engines its client still holds and can go on with;
        the others are lost (and forgotten), as are the games it names that are not its."""
        suspended = self.suspended.pop(entrant, {})
        resumed = []
        for engine in held:
            pipes = suspended.pop(engine.game, None)
            if pipes is not None and pipes.resumable(engine):
                resumed.append((pipes, engine))
            elif pipes is not None:
                pipes.lose()
        for pipes in suspended.values():
            pipes.lose()
        return resumed

    async def _detach(self, link: ClientLink) -> None:
        """The link is gone: its entrant is free again, and its engines are suspended for
        ``wire.RESUME_SECONDS`` if its client resumes them, else lost."""
        async with self._changed:
            if self.links.get(link.entrant) is link:
                del self.links[link.entrant]
            self._changed.notify_all()
        for game, pipes in list(link.games.items()):
            if not link.resumes:
                pipes.lose()
                continue
            pipes.suspend()
            self.suspended.setdefault(link.entrant, {})[game] = pipes
            loop = asyncio.get_running_loop()
            pipes.expiry = loop.call_later(
                wire.RESUME_SECONDS, self._expire, link.entrant, game, pipes
            )
        link.games.clear()

    def _expire(self, entrant: str, game: str, pipes: RemotePipes) -> None:
        """A suspended engine whose client did not come back in time: lost."""
        pipes.expiry = None
        suspended = self.suspended.get(entrant, {})
        if suspended.get(game) is pipes:
            del suspended[game]
            if not suspended:
                del self.suspended[entrant]
            pipes.lose()

    # -- engines ----------------------------------------------------------------------

    async def wait_for(self, entrant: str) -> ClientLink:
        """The entrant's open link, once it is connected (a link whose connection has
        ended but which is not yet detached is not one: an engine started on it would be
        lost with no one to say so)."""

        def open_link() -> bool:
            link = self.links.get(entrant)
            return link is not None and not link.closed

        async with self._changed:
            await self._changed.wait_for(open_link)
            return self.links[entrant]

    async def start_engine(
        self, entrant: str, game: str, traffic_log: TrafficLog | None
    ) -> tuple[EngineClient, RemotePipes, ClientLink]:
        """A fresh engine of ``entrant`` for ``game``, once the entrant is connected."""
        self.waiting[game, entrant] = datetime.now(UTC)
        try:
            link = await self.wait_for(entrant)
        finally:
            del self.waiting[game, entrant]
        old = link.games.pop(game, None)
        if old is not None:
            old.kill()
        waiting = self.suspended.get(entrant, {}).pop(game, None)
        if waiting is not None:
            waiting.lose()
        client, pipes = remote_engine(game, entrant, link.send, traffic_log)
        link.games[game] = pipes
        return client, pipes, link


async def _refuse(socket: Socket, refusal: Refusal) -> None:
    """Say why, then close, within ``AUTH_SECONDS`` (a client that does not read is not
    waited for); a connection already gone is left alone."""
    with contextlib.suppress(Exception):
        async with asyncio.timeout(AUTH_SECONDS):
            retry = refusal.code == CLOSE_TRY_LATER
            await socket.send_text(
                wire.encoded(wire.Refused(reason=refusal.reason[:500], retry=retry))
            )
            await socket.close(refusal.code)


async def _send_loop(socket: Socket, link: ClientLink) -> None:
    while True:
        await socket.send_text(await link.outbox.get())


async def _ping_loop(link: ClientLink) -> None:
    seq = 0
    while not link.closed:
        link.pings[seq] = time.monotonic()
        link.send(wire.Ping(seq=seq))
        seq += 1
        for old in [s for s in link.pings if s < seq - RTT_SAMPLES]:
            del link.pings[old]
        await asyncio.sleep(PING_SECONDS)


def _frames_allowed(games: int) -> int:
    """Frames a second a client in ``games`` games may send."""
    return max(MIN_FRAMES_PER_SECOND, MAX_FRAMES_PER_SECOND * games)


async def _receive_loop(socket: Socket, link: ClientLink) -> None:
    """Route the client's frames; a flood, a bad frame or an unknown game ends it."""
    window_start = time.monotonic()
    count = 0
    while not link.closed:
        text = await socket.receive_text()
        now = time.monotonic()
        count += 1
        if now - window_start >= RATE_WINDOW:
            window_start, count = now, 1
        elif count > _frames_allowed(len(link.games)) * RATE_WINDOW:
            raise Refusal(
                f"more than {_frames_allowed(len(link.games))} frames a second "
                f"({MAX_FRAMES_PER_SECOND} for each game played, {MIN_FRAMES_PER_SECOND} "
                "in however few)",
                CLOSE_POLICY,
            )
        try:
            frame = wire.client_frame(text)
        except wire.FrameError as error:
            raise Refusal(str(error), CLOSE_POLICY) from None
        if isinstance(frame, wire.Pong):
            sent = link.pings.pop(frame.seq, None)
            if sent is not None:
                link.rtts.append(now - sent)
        elif isinstance(frame, wire.Line | wire.Exited):
            pipes = link.games.get(frame.game)
            if pipes is None:
                continue  # an engine the server has stopped may still have been talking
            if isinstance(frame, wire.Line):
                pipes.line_received(frame.text)
            else:
                said = frame.limit
                limit = None if said is None else LimitBreach(said.kind, said.words)
                pipes.exited(frame.status, frame.error, limit)
                del link.games[frame.game]
        else:
            raise Refusal("hello again on an open connection", CLOSE_POLICY)
