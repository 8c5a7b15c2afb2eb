"""A tournament's games with remote entrants: the server up while the run plays.

``ArenaPlace`` is the run's :data:`~tournaments.runner.PlayPlace`: opened in the run's
event loop, it starts the arena's web server on its socket, plays each game with the
referee (remote entrants in :class:`RemoteSeat`, the others started as the run starts
local engines), and when the run ends tells every client the tournament is over and
stops the server.
"""

import asyncio
import contextlib
import socket
from collections.abc import AsyncIterator
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from pathlib import Path

from protocol.line_protocol import TrafficLog
from referee.deals import Deal
from referee.engine_spec import EngineSpec
from referee.engine_start import EngineFactory
from referee.game_runner import PlayedGame, play_game
from referee.game_setup import GameSetup
from referee.macs import MacKeys
from referee.record import PlayerInfo
from referee.seats import EngineSeat, Seat
from tournaments.runner import GamePlayer, PlayPlace

from .hub import Hub
from .remote_seat import RemoteSeat
from .server_app import arena_server, serve_on
from .wire import Finished

FINISH_SECONDS = 2.0
"""Seconds the clients get to hear that the tournament is over before the server stops."""


class ArenaPlace:
    """The arena of one run: its hub, the socket it listens on, its TLS files, and how many
    games it plays at once."""

    def __init__(
        self,
        hub: Hub,
        sock: socket.socket,
        concurrency: int,
        remote: frozenset[str],
        tls: tuple[Path, Path] | None = None,
    ) -> None:
        self.hub = hub
        self.sock = sock
        self.concurrency = concurrency
        self.remote = remote
        self.tls = tls

    def place(self, start_engine: EngineFactory) -> PlayPlace:
        """The run's place: remote entrants on the hub, the others by ``start_engine``."""

        def opened(macs: MacKeys) -> AbstractAsyncContextManager[tuple[GamePlayer, int]]:
            return self._serving(start_engine)

        return opened

    @asynccontextmanager
    async def _serving(self, start_engine: EngineFactory) -> AsyncIterator[tuple[GamePlayer, int]]:
        cert, key = self.tls if self.tls is not None else (None, None)
        server = arena_server(self.hub, cert, key)
        task = await serve_on(server, self.sock)
        try:
            yield self._player(start_engine), self.concurrency
        finally:
            for link in list(self.hub.links.values()):
                link.send(Finished())
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(FINISH_SECONDS):
                    while any(not link.outbox.empty() for link in self.hub.links.values()):
                        await asyncio.sleep(0.05)
            server.should_exit = True
            with contextlib.suppress(Exception):
                await task

    def _player(self, start_engine: EngineFactory) -> GamePlayer:
        async def play(
            setup: GameSetup, deal: Deal, keep_traffic: bool, live_path: Path | None
        ) -> PlayedGame:
            def make_seat(
                spec: EngineSpec,
                factory: EngineFactory,
                info: PlayerInfo,
                log: TrafficLog | None,
            ) -> Seat:
                if spec.name in self.remote:
                    return RemoteSeat(spec, self.hub, setup.game_id, info, log)
                return EngineSeat(spec, factory, info, log)

            return await play_game(
                setup,
                deal,
                keep_traffic=keep_traffic,
                start_engine=start_engine,
                live_path=live_path,
                make_seat=make_seat,
            )

        return play
