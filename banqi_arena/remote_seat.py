"""A remote entrant's seat: an engine seat whose engine runs on the entrant's machine.

It is an :class:`~referee.seats.EngineSeat` whose engines the hub starts on the entrant's
connection. When the connection drops, the seat keeps the plies it is told and, at its
next turn, waits for the entrant to connect again, with its clock running. A client that
resumes (``wire`` version 2) still holds the engine: it is told only the plies it missed.
Otherwise a fresh engine is told the game so far (``reset_board`` and the echoes, as after
a take-back) and asked for its move again. If the entrant is not back by the end of its
time, it loses by ``disconnect``. The clock is charged from ``genmove`` sent to the move
received, less the network's share: the median round trip of the connection's pings, at
most ``LAG_SHARE`` of the move's time and at most ``LAG_CAP`` seconds (as lichess
compensates lag: bounded, never the whole move).
"""

import asyncio
import contextlib
import dataclasses
import time
from collections.abc import Iterator, Sequence
from typing import Final

from protocol.connection import EngineConnection
from protocol.errors import EngineDisconnectedError, EngineTimeoutError
from protocol.line_protocol import TrafficLog
from protocol.session import MoveAnswer
from referee.engine_spec import EngineSpec
from referee.record import PlayerInfo
from referee.seats import EngineSeat, Opening, Told, Turn

from .hub import Hub
from .remote_engine import RemotePipes

LAG_SHARE: Final = 0.25
"""At most this share of a move's time is credited back as the network's."""
LAG_CAP: Final = 0.5
"""At most this many seconds of a move are credited back as the network's."""
START_WAIT: Final = 60.0
"""Seconds an entrant has to be connected once its game starts (and to come back when its
connection drops in a game without a clock)."""


class RemoteSeat(EngineSeat):
    """The seat of entrant ``spec.name`` in game ``game``, its engines on the hub."""

    def __init__(
        self,
        spec: EngineSpec,
        hub: Hub,
        game: str,
        info: PlayerInfo,
        traffic_log: TrafficLog | None = None,
    ) -> None:
        super().__init__(spec, self._start_remote, info, traffic_log)
        self._hub = hub
        self._game = game
        self._pipes: RemotePipes | None = None
        self._opening: Opening | None = None
        self._heard: list[Told] = []
        self._told = 0
        """How many of the plies heard the engine has been told."""
        self._lost = False
        self._replaying = False
        self._pending: asyncio.Task[None] | None = None
        """A ply being told when the connection dropped: it ends once it is back."""

    async def _start_remote(
        self, spec: EngineSpec, traffic_log: TrafficLog | None
    ) -> EngineConnection:
        client, self._pipes, _ = await self._hub.start_engine(spec.name, self._game, traffic_log)
        return client

    async def start(self) -> None:
        """The entrant's engine, once it is connected (within ``START_WAIT``)."""
        try:
            async with asyncio.timeout(START_WAIT):
                await super().start()
        except TimeoutError:
            raise EngineDisconnectedError(
                self.spec.name, f"was not connected within {START_WAIT:g}s of its game's start"
            ) from None

    async def open(self, opening: Opening, plies: Sequence[Told]) -> None:
        """As an engine seat; a connection that drops meanwhile is dealt with at the turn."""
        self._opening, self._heard, self._lost = opening, list(plies), False
        try:
            await self._tell_game_so_far()
        except EngineDisconnectedError:
            self._lost = True

    async def _tell_game_so_far(self) -> None:
        """The start of the game and the plies heard, to the engine."""
        assert self._opening is not None, "the seat is opened first"
        self._told, self._replaying = 0, True
        try:
            with self._drop_is_loss():
                await EngineSeat.open(self, self._opening, list(self._heard))
        finally:
            self._replaying = False
        self._told = len(self._heard)

    async def hear(self, told: Told, stall_timeout: float) -> None:
        """As an engine seat, the ply also kept for a fresh engine; while the connection
        is down, kept to tell the engine at its turn, if it is resumed."""
        if self._replaying:
            await EngineSeat.hear(self, told, stall_timeout)
            return
        self._heard.append(told)
        if self._lost or self._suspended() or self._told < len(self._heard) - 1:
            return
        assert self._pipes is not None, "the seat is opened first"
        telling = asyncio.create_task(self._tell(told, stall_timeout))
        down = asyncio.create_task(self._pipes.down.wait())
        await asyncio.wait((telling, down), return_when=asyncio.FIRST_COMPLETED)
        down.cancel()
        if telling.done():
            telling.result()
        else:  # the game goes on: the engine's answer comes once it is back, by its turn
            self._pending = telling

    async def _tell(self, told: Told, stall_timeout: float) -> None:
        try:
            with self._drop_is_loss():
                await EngineSeat.hear(self, told, stall_timeout)
            self._told += 1
        except EngineDisconnectedError:
            self._lost = True

    async def play(self, turn: Turn) -> MoveAnswer:
        """The move, the engine resumed or started again (and told the game) as often as
        the connection drops within the turn's time; with the network's share credited."""
        started = time.monotonic()
        while True:
            if self._lost or not await self._caught_up(turn):
                await self._recover(turn.deadline)
            spent = time.monotonic() - started
            wait = None if turn.wait is None else max(0.0, turn.wait - spent)
            try:
                answer = await self._genmove(dataclasses.replace(turn, wait=wait))
            except EngineDisconnectedError:
                self._lost = True
                continue
            except EngineTimeoutError as error:
                if turn.wait is None:
                    raise
                # the whole turn's wait, as the game loop gave it, not the rest of it
                raise EngineTimeoutError(
                    error.engine, error.command, turn.wait, error.noise
                ) from None
            return dataclasses.replace(answer, network_seconds=self._credit(answer.seconds))

    async def _genmove(self, turn: Turn) -> MoveAnswer:
        """As an engine seat; an engine whose connection is down at the turn's deadline
        is lost then (its clock is out: the turn ends by ``disconnect``, not after the
        grace its connection has to come back)."""
        pipes = self._pipes
        if turn.deadline is None or pipes is None:
            return await EngineSeat.play(self, turn)
        watch = asyncio.create_task(_lose_if_away(pipes, turn.deadline))
        try:
            return await EngineSeat.play(self, turn)
        finally:
            watch.cancel()

    def _credit(self, seconds: float) -> float:
        link = self._hub.links.get(self.spec.name)
        delay = 0.0 if link is None else link.network_delay()
        return min(delay, LAG_SHARE * seconds, LAG_CAP)

    def _suspended(self) -> bool:
        return self._pipes is not None and self._pipes.suspended

    @contextlib.contextmanager
    def _drop_is_loss(self) -> Iterator[None]:
        """A reply that does not come in time because the connection dropped meanwhile is
        the connection's loss, not the engine's stall: the engine is lost."""
        pipes = self._pipes
        drops = 0 if pipes is None else pipes.drops
        try:
            yield
        except EngineTimeoutError:
            if pipes is None or pipes.drops == drops:
                raise
            pipes.lose()
            raise EngineDisconnectedError(
                self.spec.name, "its connection dropped while it was told the game"
            ) from None

    async def _caught_up(self, turn: Turn) -> bool:
        """Once the connection that dropped is back (by the turn's deadline, else
        EngineDisconnectedError), whether the engine was resumed and told the plies it
        missed; False if it was lost (a fresh one is needed)."""
        pipes = self._pipes
        if pipes is None:
            return True
        until = turn.deadline if turn.deadline is not None else time.monotonic() + START_WAIT
        try:
            async with asyncio.timeout_at(until):
                await pipes.settled.wait()
                if self._pending is not None:
                    pending, self._pending = self._pending, None
                    await pending
        except TimeoutError:
            raise EngineDisconnectedError(
                self.spec.name, "its connection dropped and it did not come back in time"
            ) from None
        if pipes.lost:
            return False
        try:
            while self._told < len(self._heard):
                with self._drop_is_loss():
                    await EngineSeat.hear(self, self._heard[self._told], turn.stall_timeout)
                self._told += 1
        except EngineDisconnectedError:
            return False
        return True

    async def _recover(self, deadline: float | None) -> None:
        """A fresh engine once the entrant is back, told the game so far, by ``deadline``
        (``START_WAIT`` from now without one); else EngineDisconnectedError."""
        until = deadline if deadline is not None else time.monotonic() + START_WAIT
        try:
            async with asyncio.timeout_at(until):
                while True:
                    await self.close(None, at_once=True)
                    await EngineSeat.start(self)
                    self._lost = False
                    try:
                        await self._tell_game_so_far()
                        return
                    except EngineDisconnectedError:
                        pass  # dropped again while told the game
        except TimeoutError:
            raise EngineDisconnectedError(
                self.spec.name, "its connection dropped and it did not come back in time"
            ) from None

    async def close(self, result: str | None, *, at_once: bool) -> None:
        """As an engine seat (an engine already lost is only forgotten, one whose
        connection is down is stopped at once)."""
        with contextlib.suppress(EngineDisconnectedError):
            await super().close(result, at_once=at_once or self._suspended())
        if self._pending is not None:
            pending, self._pending = self._pending, None
            pending.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await pending


async def _lose_if_away(pipes: RemotePipes, deadline: float) -> None:
    """Lose the engine if its connection is down at ``deadline``."""
    await asyncio.sleep(max(0.0, deadline - time.monotonic()))
    if pipes.suspended:
        pipes.lose()
