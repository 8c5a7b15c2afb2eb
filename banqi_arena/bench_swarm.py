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
connection aborted, as when a network cable is pulled), and they connect again at once.
"""

import asyncio
import contextlib
import random
import time
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
from .relay import CONNECT_SECONDS

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


class _Engines:
    """One relay's engines, one a game, and what they answer."""

    def __init__(self, rules: RuleSet, level: int, seed: int) -> None:
        self.rules = rules
        self.level = level
        self.seed = seed
        self.running: dict[str, DctpEngine] = {}

    def start(self, game: str) -> None:
        """A fresh engine for ``game``, its player seeded apart from the others."""
        self.seed += 1
        player = make_player(self.level, self.seed, self.rules)
        self.running[game] = DctpEngine(self.rules, player)

    def answer(self, game: str, text: str) -> tuple[Reply | None, int | None, bool]:
        """The engine's reply to one line, the ply index when it was a ``genmove``, and
        whether the engine quit (None and False for a game without an engine)."""
        engine = self.running.get(game)
        if engine is None:
            return None, None, False
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
        """The moves waiting out their ``think`` seconds."""
        self.dropping = False

    async def run(self) -> None:
        """Relay until the server says the tournament is over (or the task is cancelled)."""
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
            self.engines.running.clear()  # gone with the connection: the server starts others
            await asyncio.sleep(RETRY_SECONDS)

    async def _session(self, socket: Any) -> bool:
        """One connection: hello, then the server's frames; True once it says finished,
        False for a refusal worth trying again."""
        self.dropping = False
        await socket.send(wire.encoded(wire.Hello(token=self.token)))
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
            async for text in socket:
                if await self._handle(socket, text):
                    return True
        finally:
            for task in [*self.waiting, *([storming] if storming else [])]:
                task.cancel()
        raise ConnectionError("the server closed the connection")

    async def _handle(self, socket: Any, text: str | bytes) -> bool:
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
                task = asyncio.create_task(self._answer(socket, frame.game, reply, ply, received))
                self.waiting.add(task)
                task.add_done_callback(self.waiting.discard)
            else:
                await self._answer(socket, frame.game, reply, ply, received)
            if quit_:
                await self._exited(socket, frame.game)
        elif isinstance(frame, wire.Start):
            self.engines.start(frame.game)
            self.measures.started.add(frame.game)
        elif isinstance(frame, wire.Stop):
            if self.engines.running.pop(frame.game, None) is not None:
                await self._exited(socket, frame.game)
        elif isinstance(frame, wire.Ping):
            await socket.send(wire.encoded(wire.Pong(seq=frame.seq)))
        elif isinstance(frame, wire.Finished):
            self.measures.finished.set()
            return True
        elif isinstance(frame, wire.Refused):
            raise ConnectionError(f"the server ended the connection: {frame.reason}")
        return False

    async def _answer(
        self, socket: Any, game: str, reply: Reply, ply: int | None, received: float
    ) -> None:
        """Send the engine's reply, a move after ``think`` seconds, and keep its times."""
        if ply is not None and self.think:
            await asyncio.sleep(self.think)
        for line in reply.line().split("\n"):
            await socket.send(wire.encoded(wire.Line(game=game, text=line)))
        if ply is not None:
            sent = time.perf_counter()
            self.measures.move_sent(game, ply, sent - received, sent, self.storm is None)

    async def _exited(self, socket: Any, game: str) -> None:
        await socket.send(wire.encoded(wire.Exited(game=game, status=0)))

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
