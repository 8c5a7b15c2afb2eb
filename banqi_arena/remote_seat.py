"""A remote entrant's seat: an engine seat whose engine runs on the entrant's machine.

It is an :class:`~referee.seats.EngineSeat` whose engines the hub starts on the entrant's
connection. When the connection drops, the seat keeps the plies it is told and, at its
next turn, waits for the entrant to connect again, with its clock running: the fresh
engine is told the game so far (``reset_board`` and the echoes, as after a take-back) and
asked for its move again. If the entrant is not back by the end of its time, it loses by
``disconnect``. The clock is charged from ``genmove`` sent to the move received, less
the network's share: the median round trip of the connection's pings, at most
``LAG_SHARE`` of the move's time and at most ``LAG_CAP`` seconds (as lichess compensates
lag: bounded, never the whole move).
"""

import asyncio
import contextlib
import dataclasses
import time
from collections.abc import Sequence
from typing import Final

from protocol.connection import EngineConnection
from protocol.errors import EngineDisconnectedError, EngineTimeoutError
from protocol.line_protocol import TrafficLog
from protocol.session import MoveAnswer
from referee.engine_spec import EngineSpec
from referee.record import PlayerInfo
from referee.seats import EngineSeat, Opening, Told, Turn

from .hub import ClientLink, Hub

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
        self._link: ClientLink | None = None
        self._opening: Opening | None = None
        self._heard: list[Told] = []
        self._lost = False
        self._replaying = False

    async def _start_remote(
        self, spec: EngineSpec, traffic_log: TrafficLog | None
    ) -> EngineConnection:
        client, _, link = await self._hub.start_engine(spec.name, self._game, traffic_log)
        self._link = link
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
            await super().open(opening, plies)
        except EngineDisconnectedError:
            self._lost = True

    async def hear(self, told: Told, stall_timeout: float) -> None:
        """As an engine seat, the ply also kept for a fresh engine."""
        if not self._replaying:
            self._heard.append(told)
        if self._lost:
            return
        try:
            await super().hear(told, stall_timeout)
        except EngineDisconnectedError:
            if self._replaying:
                raise
            self._lost = True

    async def play(self, turn: Turn) -> MoveAnswer:
        """The move, the engine started again (and told the game) as often as the
        connection drops within the turn's time; with the network's share credited."""
        started = time.monotonic()
        while True:
            if self._lost:
                await self._recover(turn.deadline)
            spent = time.monotonic() - started
            wait = None if turn.wait is None else max(0.0, turn.wait - spent)
            try:
                answer = await super().play(dataclasses.replace(turn, wait=wait))
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

    def _credit(self, seconds: float) -> float:
        delay = 0.0 if self._link is None else self._link.network_delay()
        return min(delay, LAG_SHARE * seconds, LAG_CAP)

    async def _recover(self, deadline: float | None) -> None:
        """A fresh engine once the entrant is back, told the game so far, by ``deadline``
        (``START_WAIT`` from now without one); else EngineDisconnectedError."""
        assert self._opening is not None, "the seat is opened first"
        until = deadline if deadline is not None else time.monotonic() + START_WAIT
        try:
            async with asyncio.timeout_at(until):
                while self._lost:
                    await self.close(None, at_once=True)
                    await EngineSeat.start(self)
                    self._lost = False
                    self._replaying = True
                    try:
                        await EngineSeat.open(self, self._opening, self._heard)
                    except EngineDisconnectedError:
                        self._lost = True  # dropped again while told the game
                    finally:
                        self._replaying = False
        except TimeoutError:
            raise EngineDisconnectedError(
                self.spec.name, "its connection dropped and it did not come back in time"
            ) from None

    async def close(self, result: str | None, *, at_once: bool) -> None:
        """As an engine seat (an engine already lost is only forgotten)."""
        with contextlib.suppress(EngineDisconnectedError):
            await super().close(result, at_once=at_once)
