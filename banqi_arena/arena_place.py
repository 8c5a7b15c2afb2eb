"""A tournament's games with remote entrants: the server up while the run plays.

``ArenaPlace`` is the run's :data:`~tournaments.runner.PlayPlace`: opened in the run's
event loop, it starts the arena's web server on its socket (the relays' WebSocket, and the
event's pages for spectators and the organiser, fed from the run folder by
``banqi_gui.event_feed``), plays each game with the referee (remote entrants in
:class:`RemoteSeat`, the others started as the run starts local engines), and when the
run ends tells every client the tournament is over and stops the server. It is also what
the feed asks of the arena: who is connected, and which games wait for whom.
"""

import asyncio
import contextlib
import socket
from collections.abc import AsyncIterator, Sequence
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from dataclasses import dataclass
from pathlib import Path

from starlette.routing import BaseRoute

from banqi_gui.event_feed import EntrantLink, EventFacts, EventFeed, WaitingGame
from banqi_gui.event_routes import event_routes
from banqi_gui.spectator_delay import SpectatorDelay
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
from tournaments.tournament_job import ArenaRun

from .hub import Hub
from .remote_seat import RemoteSeat
from .server_app import arena_server, serve_on
from .wire import Finished

FINISH_SECONDS = 2.0
"""Seconds the clients get to hear that the tournament is over before the server stops."""


@dataclass(frozen=True)
class EventPages:
    """What the event's pages need beyond the run: its name, how far behind the games
    spectators are kept, and the organiser's token."""

    name: str
    delay: SpectatorDelay
    organiser_token: str


class ArenaPlace:
    """The arena of one run: its hub, the socket it listens on, its TLS files, how many
    games it plays at once, and its run folder and pages."""

    def __init__(
        self,
        hub: Hub,
        sock: socket.socket,
        concurrency: int,
        remote: frozenset[str],
        folder: Path,
        pages: EventPages,
        tls: tuple[Path, Path] | None = None,
    ) -> None:
        self.hub = hub
        self.sock = sock
        self.concurrency = concurrency
        self.remote = remote
        self.folder = folder
        self.pages = pages
        self.tls = tls
        self._playing: dict[str, tuple[str, str]] = {}
        """The players of each game being played (or waiting to start), by game id."""

    def place(self, start_engine: EngineFactory, run: ArenaRun) -> PlayPlace:
        """The run's place: remote entrants on the hub, the others by ``start_engine``."""
        facts = EventFacts(
            name=self.pages.name,
            rules=run.config.rules.name,
            names=tuple(entry.name for entry in run.config.engines),
            remote=self.remote,
            max_failures=run.config.max_failures,
            total_games=sum(len(ids) for ids in run.deal_games.values()),
            deal_games=run.deal_games,
            delay=self.pages.delay,
        )
        feed = EventFeed(self.folder, facts, self, run.control)
        routes = event_routes(feed, run.control, self.pages.organiser_token)

        def opened(macs: MacKeys) -> AbstractAsyncContextManager[tuple[GamePlayer, int]]:
            return self._serving(start_engine, routes)

        return opened

    def links(self) -> dict[str, EntrantLink]:
        """The open connection of each connected remote entrant."""
        return {
            name: EntrantLink(
                address=link.address,
                rtt_ms=1000 * link.network_delay() if link.rtts else None,
                connected_since=link.connected_since,
            )
            for name, link in self.hub.links.items()
            if not link.closed
        }

    def waiting(self) -> list[WaitingGame]:
        """The games whose remote entrant has not connected yet."""
        return [
            WaitingGame(
                game_id=game_id, players=self._playing[game_id], waiting_for=entrant, since=since
            )
            for (game_id, entrant), since in self.hub.waiting.items()
            if game_id in self._playing
        ]

    @asynccontextmanager
    async def _serving(
        self, start_engine: EngineFactory, routes: Sequence[BaseRoute]
    ) -> AsyncIterator[tuple[GamePlayer, int]]:
        cert, key = self.tls if self.tls is not None else (None, None)
        server = arena_server(self.hub, cert, key, routes)
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

            players = setup.players[0].name, setup.players[1].name
            self._playing[setup.game_id] = players
            try:
                return await play_game(
                    setup,
                    deal,
                    keep_traffic=keep_traffic,
                    start_engine=start_engine,
                    live_path=live_path,
                    make_seat=make_seat,
                )
            finally:
                del self._playing[setup.game_id]

        return play
