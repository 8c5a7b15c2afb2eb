"""The two seats of a game: an engine (a DCTP session, in a process or in-process) or a
person (whose actions arrive from outside, e.g. the browser's requests).

A seat is what :class:`~referee.game_loop.GameLoop` plays over (gomill's ``Backend``): it
is opened at the start of the game, asked for a move on its turns, told every ply, and
closed at the end. It judges nothing and keeps no clock: the loop does. An engine seat
raises ``protocol.errors`` as its engine fails (the loop maps them to reasons); a person's
seat may take a ply back (:class:`TakeBack`) or resign (:class:`Resignation`).
"""

import asyncio
import contextlib
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

from banqi_engine.game import Game
from banqi_engine.moves import Move
from banqi_engine.notation import Ply
from banqi_engine.pieces import Colour
from banqi_engine.rules import RuleSet
from protocol.errors import ProtocolError
from protocol.line_protocol import TrafficLog
from protocol.messages import Command, format_genmove
from protocol.session import EngineSession, MoveAnswer

from .engine_spec import EngineSpec
from .engine_start import EngineFactory
from .record import PlayerInfo
from .sandbox import Isolation

if TYPE_CHECKING:  # the search is loaded only by whoever makes a player
    from banqi_engine.players import Player


@dataclass(frozen=True)
class Opening:
    """What a seat is told at the start of a game (and again after a take-back)."""

    rules: RuleSet
    time_ms: int
    stall_timeout: float


@dataclass(frozen=True)
class Turn:
    """A seat's turn: what it is asked, and how long it may take.

    ``allowance`` is what it may think before losing on time (None: untimed), ``wait``
    how long the loop waits for an engine (the allowance and the stall timeout);
    ``move_limit_ms`` the time it is told it may use under a per-move limit."""

    side: Colour
    wait: float | None
    allowance: float | None
    move_limit_ms: int | None
    idle_limit: float | None
    deadline: float | None
    stall_timeout: float


@dataclass(frozen=True)
class Told:
    """A ply as a seat is told it: the ply, its echo and the mover's ``time_left`` (None
    while colours are unknown)."""

    ply: Ply
    echo: Command
    time_left: Command | None


class TakeBack(Exception):
    """A person's seat asks the loop to take plies back: keep the first ``keep``."""

    def __init__(self, keep: int) -> None:
        super().__init__(keep)
        self.keep = keep


class Resignation(Exception):
    """A person's seat resigns; ``detail`` says how, for the record."""


class Seat(Protocol):
    """One side of a game, as the loop plays it."""

    info: PlayerInfo
    """The seat's entry in the record, filled in as the game goes."""
    stall_timeout_applies: bool
    """Whether the seat is an engine, waited for past its allowance."""

    async def start(self) -> None:
        """Start the seat's engine, if it has one and it is not running."""
        ...

    async def open(self, opening: Opening, plies: Sequence[Told]) -> None:
        """Tell the start of the game, then ``plies`` already played (a game taken back)."""
        ...

    async def play(self, turn: Turn) -> MoveAnswer:
        """The seat's move for this turn."""
        ...

    async def hear(self, told: Told, stall_timeout: float) -> None:
        """Be told a ply (either side's)."""
        ...

    async def close(self, result: str | None, *, at_once: bool) -> None:
        """The game is over (``result``: its words, None after a fault): stop, at once
        when the seat owes a reply that will never be read."""
        ...


class EngineSeat:
    """An engine's seat: a session over a connection the factory makes when the seat opens.

    Reopened after a take-back, it keeps its process and is told the game again from its
    start (``reset_board`` and the echoes of the plies kept); one that fails at that is
    started afresh."""

    stall_timeout_applies = True

    def __init__(
        self,
        spec: EngineSpec,
        factory: EngineFactory,
        info: PlayerInfo,
        traffic_log: TrafficLog | None = None,
    ) -> None:
        self.spec = spec
        self.info = info
        self._factory = factory
        self._traffic_log = traffic_log
        self.session: EngineSession | None = None
        self._identified = False

    async def start(self) -> None:
        """Start the engine process (or in-process engine) if it is not running."""
        if self.session is None:
            connection = await self._factory(self.spec, self._traffic_log)
            self.session = EngineSession(connection)
            self.info.isolation = Isolation(connection.isolation)
            if self.info.isolation not in (Isolation.IN_PROCESS, Isolation.REMOTE):
                self.info.network = self.spec.network or self.info.isolation is Isolation.NONE
            if self.info.isolation.sandboxed:
                self.info.limits = self.spec.limits
            self._identified = False

    async def open(self, opening: Opening, plies: Sequence[Told]) -> None:
        """The start of the game (with ``name`` and ``version`` the first time), then the
        echoes of ``plies``. An engine told a game before that fails at it is started
        afresh."""
        if self._identified:
            try:
                await self._tell_game(opening, plies)
                return
            except ProtocolError:
                await self.close(None, at_once=True)
                await self.start()
        await self._tell_game(opening, plies, identify=True)

    async def _tell_game(
        self, opening: Opening, plies: Sequence[Told], *, identify: bool = False
    ) -> None:
        session = self._session()
        told = await session.start_game(opening.rules, opening.time_ms, opening.stall_timeout)
        self.info.rules_told = told
        if identify:
            identity = await session.identify(opening.stall_timeout)
            self.info.engine_name, self.info.version = identity.name, identity.version
            self._identified = True
        for ply in plies:
            await self.hear(ply, opening.stall_timeout)

    async def play(self, turn: Turn) -> MoveAnswer:
        """Under a per-move limit, ``time_left`` with the move's limit; then ``genmove``."""
        session = self._session()
        if turn.move_limit_ms is not None:
            await session.tell_move_limit(turn.side, turn.move_limit_ms, turn.stall_timeout)
        return await session.genmove(
            turn.side, turn.wait or 0.0, idle_limit=turn.idle_limit, deadline=turn.deadline
        )

    async def hear(self, told: Told, stall_timeout: float) -> None:
        """The echo of a ply and the mover's clock."""
        await self._session().tell_ply(told.echo, told.time_left, stall_timeout)

    async def close(self, result: str | None, *, at_once: bool) -> None:
        """``game_over`` and ``quit`` (just the kill when ``at_once``), shielded from a
        cancellation so the process is always reaped."""
        session, self.session = self.session, None
        if session is None:
            return
        stop = session.kill() if at_once else session.end_game(result)
        with contextlib.suppress(Exception):
            await asyncio.shield(stop)

    def _session(self) -> EngineSession:
        assert self.session is not None, "the seat is opened first"
        return self.session


class PersonSeat:
    """A person's seat: each turn waits for :meth:`submit` (a move, a take-back or a
    resignation), for the allowance at most when the game is timed."""

    stall_timeout_applies = False

    def __init__(self, info: PlayerInfo) -> None:
        self.info = info
        self._action: asyncio.Future[Move | BaseException] | None = None
        self.on_move = asyncio.Event()
        """Set while the seat is asked for a move."""

    async def start(self) -> None:
        """Nothing to start."""

    async def open(self, opening: Opening, plies: Sequence[Told]) -> None:
        """Nothing to tell: a person sees the board."""

    async def play(self, turn: Turn) -> MoveAnswer:
        """The move submitted; TimeoutError when the allowance runs out first."""
        loop = asyncio.get_running_loop()
        self._action = loop.create_future()
        self.on_move.set()
        started = loop.time()
        try:
            async with asyncio.timeout(turn.allowance):
                action = await self._action
        finally:
            self._action = None
            self.on_move.clear()
        if isinstance(action, BaseException):
            raise action
        return MoveAnswer(action, loop.time() - started, "")

    def submit(self, action: Move | TakeBack | Resignation) -> None:
        """Hand the loop the person's action; RuntimeError when the seat is not on move."""
        if self._action is None or self._action.done():
            raise RuntimeError("the person's seat is not on move")
        self._action.set_result(action)

    async def hear(self, told: Told, stall_timeout: float) -> None:
        """A person sees the ply on the board."""

    async def close(self, result: str | None, *, at_once: bool) -> None:
        """Nothing to stop."""


class PlayerSeat:
    """A built-in player in this process, with no protocol between: it keeps its own game
    from the plies it hears and chooses with ``budget_seconds`` a move (self-play)."""

    stall_timeout_applies = False

    def __init__(self, player: "Player", info: PlayerInfo, budget_seconds: float | None) -> None:
        self.info = info
        self._player = player
        self._budget = budget_seconds
        self._game: Game | None = None

    async def start(self) -> None:
        """Nothing to start."""

    async def open(self, opening: Opening, plies: Sequence[Told]) -> None:
        """A fresh game, then the plies so far."""
        self._game = Game(opening.rules, play_past_end=True)
        for told in plies:
            self._game.play_ply(told.ply)

    async def play(self, turn: Turn) -> MoveAnswer:
        """The player's choice (it blocks: there is nothing else to wait for)."""
        assert self._game is not None, "the seat is opened first"
        started = time.monotonic()
        move = self._player.choose(self._game, self._budget)
        return MoveAnswer(move, time.monotonic() - started, format_genmove(move))

    async def hear(self, told: Told, stall_timeout: float) -> None:
        """The ply, on the player's own game."""
        assert self._game is not None, "the seat is opened first"
        self._game.play_ply(told.ply)

    async def close(self, result: str | None, *, at_once: bool) -> None:
        """Nothing to stop."""
