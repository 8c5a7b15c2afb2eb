"""The arena bench's remote entrants: a swarm of relays in one process.

Each relay speaks the arena's wire protocol over a WebSocket of its own, as ``banqi
connect`` does (``hello``, ``welcome``, ``start``/``send``/``stop``, ``line``/``exited``,
``pong``), but answers the server's DCTP lines with the project's engine loop
(:class:`~protocol.engine_loop.DctpEngine`, a random or greedy player) in this process
instead of an engine process per game: 64 relays each starting a Python engine (about
0.35 s of CPU from spawn to its first reply) twice a game would take the two cores the
server is measured on. An engine may be given a thinking time: its move is then sent that
long after it was asked for (a sleep; the relay's other games go on meanwhile).

The swarm measures what the server cannot see: how long each engine took over each move
(from the ``genmove`` frame received to its answer sent), and how fast the server reacts
to a move (from the answer sent to the server's next ``send`` frame of that game, to
either relay). A storm drops some relays' connections again and again (the TCP
connection aborted, as when a network cable is pulled), and they connect again at once,
keeping their engines for the server to resume, as ``banqi connect`` does.
"""

import asyncio
import contextlib
import random
import time
from collections import deque
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Final

from banqi_engine.players import make_player
from banqi_engine.rules import RuleSet
from protocol.command_parser import parse_command_line
from protocol.engine_loop import DctpEngine
from protocol.errors import CommandSyntaxError
from protocol.messages import CommandId, Reply

from . import wire
from .relay import CONNECT_SECONDS, KEPT_LINES

RETRY_SECONDS: Final = 0.1
"""Seconds a relay waits before connecting again after a refusal for now or a drop."""
MAX_ERRORS: Final = 100
"""Relay errors kept (the count goes on)."""
LAG_TICK: Final = 0.01
"""Seconds of the sleeps whose lateness measures the relays' own event loop."""


@dataclass(frozen=True)
class Storm:
    """Which relays drop their connection, and how often: each of them every
    ``mean_seconds`` on average (exponentially distributed)."""

    every: int = 2
    """Every ``every``-th relay (from the first) is stormy; the others stay connected."""
    mean_seconds: float = 5.0


@dataclass
class SwarmMeasures:
    """What the swarm saw, shared by its relays."""

    thinking: dict[tuple[str, int], float] = field(default_factory=dict)
    """Seconds the engine took over each move, by game and ply index (from 0): the last
    answer sent for that ply."""
    steady: set[tuple[str, int]] = field(default_factory=set)
    """The plies answered by relays the storm leaves alone (all, without a storm)."""
    turnarounds: list[float] = field(default_factory=list)
    """Seconds from each move sent to the server's next frame of its game."""
    started: set[str] = field(default_factory=set)
    """Games whose engines the server started."""
    lags: list[float] = field(default_factory=list)
    """How late the relays' event loop woke from each of its ``LAG_TICK`` sleeps: the
    share of each figure that is the relays' own delay."""
    errors: list[str] = field(default_factory=list)
    error_count: int = 0
    connects: int = 0
    drops: int = 0
    """Connections the storm dropped."""
    finished: asyncio.Event = field(default_factory=asyncio.Event)
    """Set once a relay heard that the tournament is over."""
    _move_sent: dict[str, float] = field(default_factory=dict)

    def error(self, words: str) -> None:
        """Count a relay error, keeping the first ``MAX_ERRORS``."""
        self.error_count += 1
        if len(self.errors) < MAX_ERRORS:
            self.errors.append(words)

    def frame_for(self, game: str, now: float) -> None:
        """The server sent a frame of ``game``: the turnaround of a move waiting for it."""
        sent = self._move_sent.pop(game, None)
        if sent is not None:
            self.turnarounds.append(now - sent)

    def move_sent(self, game: str, ply: int, took: float, sent: float, steady: bool) -> None:
        """A relay sent the move of ``game``'s ply ``ply`` at ``sent``, its engine having
        taken ``took`` seconds over it."""
        self.thinking[game, ply] = took
        if steady:
            self.steady.add((game, ply))
        self._move_sent[game] = sent


@dataclass
class _Engine:
    """One game's engine, and the lines it was told and said (the last ``KEPT_LINES``)."""

    game: str
    engine: DctpEngine
    told: int = 0
    said: deque[str] = field(default_factory=lambda: deque(maxlen=KEPT_LINES))
    said_count: int = 0
    dropped: float | None = None
    """When the connection it was relayed on dropped (None while relayed)."""

    def held(self) -> wire.Held:
        return wire.Held(game=self.game, told=self.told, said=self.said_count, kept=len(self.said))


class _Engines:
    """One relay's engines, one a game, and what they answer."""

    def __init__(self, rules: RuleSet, level: int, seed: int) -> None:
        self.rules = rules
        self.level = level
        self.seed = seed
        self.running: dict[str, _Engine] = {}

    def start(self, game: str) -> None:
        """A fresh engine for ``game``, its player seeded apart from the others."""
        self.seed += 1
        player = make_player(self.level, self.seed, self.rules)
        self.running[game] = _Engine(game, DctpEngine(self.rules, player))

    def held(self, now: float) -> list[wire.Held]:
        """The engines kept since the connection dropped, for the next ``hello`` (those
        kept longer than ``RESUME_SECONDS`` are forgotten)."""
        for game, engine in list(self.running.items()):
            if engine.dropped is None:
                engine.dropped = now
            elif now - engine.dropped > wire.RESUME_SECONDS:
                del self.running[game]
        return [engine.held() for engine in self.running.values()]

    def answer(self, game: str, text: str) -> tuple[Reply | None, int | None, bool]:
        """The engine's reply to one line, the ply index when it was a ``genmove``, and
        whether the engine quit (None and False for a game without an engine)."""
        held = self.running.get(game)
        if held is None:
            return None, None, False
        held.told += 1
        engine = held.engine
        try:
            command = parse_command_line(text)
        except CommandSyntaxError:
            return engine.handle_line(text), None, False
        ply = len(engine.game.plies) if command.id is CommandId.GENMOVE else None
        reply = engine.handle(command)
        if engine.quitting:
            del self.running[game]
        return reply, ply, engine.quitting


class _Relay:
    """One entrant's relay: connects, answers, connects again after every drop."""

    def __init__(
        self,
        url: str,
        entrant: str,
        token: str,
        engines: _Engines,
        measures: SwarmMeasures,
        storm: Storm | None,
        think: float,
    ) -> None:
        self.url = url
        self.entrant = entrant
        self.token = token
        self.engines = engines
        self.measures = measures
        self.storm = storm
        self.think = think
        self.waiting: set[asyncio.Task[None]] = set()
        """The moves waiting out their ``think`` seconds (across drops)."""
        self.dropping = False
        self.socket: Any = None
        """The connection the engines' lines go to (None while it is down)."""

    async def run(self) -> None:
        """Relay until the server says the tournament is over (or the task is cancelled)."""
        try:
            await self._connect_again_and_again()
        finally:
            for task in self.waiting:
                task.cancel()

    async def _connect_again_and_again(self) -> None:
        from websockets.asyncio.client import connect
        from websockets.exceptions import WebSocketException

        while True:
            try:
                async with connect(
                    self.url,
                    max_size=wire.MAX_FRAME_BYTES,
                    open_timeout=CONNECT_SECONDS,
                    ping_interval=None,
                ) as socket:
                    if await self._session(socket):
                        return
            except (OSError, TimeoutError, WebSocketException, ConnectionError) as error:
                if not self.dropping:
                    self.measures.error(f"{self.entrant}: connection lost: {error}")
            except wire.FrameError as error:
                self.measures.error(f"{self.entrant}: {error}")
            finally:
                self.socket = None
            await asyncio.sleep(RETRY_SECONDS)

    async def _resume(self, socket: Any, resumed: list[wire.Resumed]) -> None:
        """Send the lines the server missed of the engines it resumes; forget the others."""
        since = {entry.game: entry.since for entry in resumed}
        for game, engine in list(self.engines.running.items()):
            index = since.get(game, -1) - (engine.said_count - len(engine.said))
            if not 0 <= index <= len(engine.said):
                del self.engines.running[game]
                continue
            engine.dropped = None
            while index < len(engine.said):  # a move thought out meanwhile comes too
                await socket.send(wire.encoded(wire.Line(game=game, text=engine.said[index])))
                index += 1

    async def _session(self, socket: Any) -> bool:
        """One connection: hello, then the server's frames; True once it says finished,
        False for a refusal worth trying again."""
        self.dropping = False
        held = self.engines.held(time.monotonic())
        await socket.send(wire.encoded(wire.Hello(token=self.token, held=held)))
        async with asyncio.timeout(CONNECT_SECONDS):
            first = wire.server_frame(await socket.recv())
        if isinstance(first, wire.Refused):
            if not first.retry:
                self.measures.error(f"{self.entrant}: refused: {first.reason}")
                return True
            return False
        if not isinstance(first, wire.Welcome):
            raise ConnectionError(f"the server began with {first.type!r}, not welcome")
        self.measures.connects += 1
        storming = None if self.storm is None else asyncio.create_task(self._drop_later(socket))
        try:
            await self._resume(socket, first.resumed or [])
            self.socket = socket
            async for text in socket:
                if await self._handle(text):
                    return True
        finally:
            self.socket = None
            if storming is not None:
                storming.cancel()
        raise ConnectionError("the server closed the connection")

    async def _handle(self, text: str | bytes) -> bool:
        """Do what one frame asks; True once the server says the tournament is over."""
        received = time.perf_counter()
        frame = wire.server_frame(text)
        if isinstance(frame, wire.Send):
            self.measures.frame_for(frame.game, received)
            reply, ply, quit_ = self.engines.answer(frame.game, frame.text)
            if reply is None:
                return False
            if not reply.ok:
                self.measures.error(f"{self.entrant}: {frame.game}: {reply.line()[:200]}")
            if ply is not None and self.think:  # the other games' frames go on meanwhile
                task = asyncio.create_task(self._answer(frame.game, reply, ply, received))
                self.waiting.add(task)
                task.add_done_callback(self.waiting.discard)
            else:
                await self._answer(frame.game, reply, ply, received)
            if quit_:
                await self._send(wire.Exited(game=frame.game, status=0))
        elif isinstance(frame, wire.Start):
            self.engines.start(frame.game)
            self.measures.started.add(frame.game)
        elif isinstance(frame, wire.Stop):
            if self.engines.running.pop(frame.game, None) is not None:
                await self._send(wire.Exited(game=frame.game, status=0))
        elif isinstance(frame, wire.Ping):
            await self._send(wire.Pong(seq=frame.seq))
        elif isinstance(frame, wire.Finished):
            self.measures.finished.set()
            return True
        elif isinstance(frame, wire.Refused):
            raise ConnectionError(f"the server ended the connection: {frame.reason}")
        return False

    async def _answer(self, game: str, reply: Reply, ply: int | None, received: float) -> None:
        """Send the engine's reply, a move after ``think`` seconds, and keep its times
        (its lines are kept for the server to have again after a drop)."""
        if ply is not None and self.think:
            await asyncio.sleep(self.think)
        engine = self.engines.running.get(game)
        for line in reply.line().split("\n"):
            if engine is not None:
                engine.said.append(line)
                engine.said_count += 1
            await self._send(wire.Line(game=game, text=line))
        if ply is not None:
            sent = time.perf_counter()
            self.measures.move_sent(game, ply, sent - received, sent, self.storm is None)

    async def _send(self, frame: wire.ClientMessage) -> None:
        """Send a frame on the connection, if it is up (a drop is the session's to see)."""
        socket = self.socket
        if socket is not None:
            with contextlib.suppress(Exception):
                await socket.send(wire.encoded(frame))

    async def _drop_later(self, socket: Any) -> None:
        """Abort the connection after a random while (the storm)."""
        assert self.storm is not None
        await asyncio.sleep(random.expovariate(1 / self.storm.mean_seconds))
        self.dropping = True
        self.measures.drops += 1
        socket.transport.abort()


async def _tick(measures: SwarmMeasures) -> None:
    """Sleep ``LAG_TICK`` again and again, keeping how late each wake-up was."""
    while True:
        began = time.perf_counter()
        await asyncio.sleep(LAG_TICK)
        measures.lags.append(time.perf_counter() - began - LAG_TICK)


async def run_swarm(
    url: str,
    tokens: Mapping[str, str],
    rules: RuleSet,
    level: int,
    measures: SwarmMeasures,
    storm: Storm | None = None,
    think: float = 0.0,
) -> None:
    """Relay every entrant of ``tokens`` (name to token) to ``url`` until the server says
    the tournament is over, or until cancelled, each move answered after ``think``
    seconds; what they see goes to ``measures``."""
    relays = [
        _Relay(
            url,
            name,
            token,
            _Engines(rules, level, seed=1000 * number),
            measures,
            storm if storm is not None and number % storm.every == 0 else None,
            think,
        )
        for number, (name, token) in enumerate(sorted(tokens.items()))
    ]
    tasks = [asyncio.create_task(relay.run()) for relay in relays]
    ticking = asyncio.create_task(_tick(measures))
    try:
        await asyncio.gather(*tasks)
    finally:
        for task in [*tasks, ticking]:
            task.cancel()
        for task in tasks:
            with contextlib.suppress(asyncio.CancelledError):
                await task
