"""One game between two DCTP engines: the referee's main loop.

The referee speaks to each engine as the platform does: ``reset_board``,
``time_settings``, ``ready``; then ``genmove`` to the side to move (``unknown``
until the first flip), and after every ply, to both engines, the echo (``move``
or ``flip`` with the revealed piece) followed by ``time_left`` for the side that
moved; at the end ``game_over`` and ``quit``. Every wait has a timeout, every
engine fault ends the game with a reason code, and both engines are always
stopped, also when the game is cancelled. Engines come from an
:data:`~referee.engine_start.EngineFactory` (processes unless a caller says otherwise).
"""

import asyncio
import contextlib
import time
from collections.abc import Callable, Coroutine
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, Final

from banqi_engine.errors import MoveError
from banqi_engine.game import Game
from banqi_engine.moves import Move, is_flip, move_from, move_to
from banqi_engine.notation import format_flip, format_move
from banqi_engine.pieces import COLOUR_NAMES, UNDECIDED, Colour, Piece, colour_of, opponent
from banqi_engine.rules import PRESETS, RuleSet
from protocol.connection import EngineConnection
from protocol.errors import (
    EngineError,
    EnginePipeClosedError,
    EngineTerminatedError,
    EngineTimeoutError,
    ProtocolError,
)
from protocol.messages import Command, Reply, parse_genmove_payload

from .cpu import group_cpu_ticks
from .deals import layout_from_secret
from .engine_spec import EngineSpec
from .engine_start import EngineFactory, start_engine_process
from .game_setup import GameSetup
from .reasons import Reason
from .record import GameEnd, GameRecord, PlayerInfo, PlyRecord, build_record, player_info
from .sandbox import Isolation
from .timecontrol import Clock
from .transcript import Transcript

OPTIONAL_TIMEOUT: Final = 1.0
"""Seconds to wait for an answer to a command the platform itself never sends."""
OLYMPIAD: Final = PRESETS["olympiad"]
"""The platform's own rule set: its draw limits need not be told to an engine."""


@dataclass
class _Fault(Exception):
    """An engine misbehaved: it loses the game for this reason."""

    player: int
    reason: Reason
    detail: str
    stopped_answering: bool = False


def fault_of(
    player: int, error: EngineError, command: Command, *, allowance: float | None = None
) -> _Fault:
    """The one mapping from an engine error to the reason its engine loses by.

    No reply in time is a stall, or, to a ``genmove`` (whose ``allowance`` is given), a
    time loss; either way the engine stopped answering. A dead process or a closed pipe
    is a crash; anything else it said is an unreadable reply.
    """
    if isinstance(error, EngineTimeoutError):
        if allowance is not None:
            detail = (
                f"no move within the {allowance:.3f}s allowed, nor in the "
                f"{error.timeout - allowance:g}s after"
            )
            return _Fault(player, Reason.TIME_FORFEIT, detail, stopped_answering=True)
        detail = f"no reply to '{command.line()}' within {error.timeout:g}s"
        return _Fault(player, Reason.STALL, detail, stopped_answering=True)
    if isinstance(error, EngineTerminatedError | EnginePipeClosedError):
        return _Fault(player, Reason.CRASH, str(error))
    return _Fault(player, Reason.UNREADABLE_REPLY, str(error))


@dataclass
class _Seat:
    spec: EngineSpec
    info: PlayerInfo
    engine: EngineConnection | None = None
    colour: Colour | None = None


class GameRunner:
    """Plays one ``GameSetup`` dealt from its secret and returns its record (and, if asked,
    the DCTP transcript)."""

    def __init__(
        self,
        setup: GameSetup,
        secret: str,
        *,
        start_engine: EngineFactory = start_engine_process,
        keep_traffic: bool = False,
    ) -> None:
        self.setup = setup
        self.secret = secret
        self.layout = layout_from_secret(secret)
        self.game = Game(setup.rules)
        self.clock = Clock(setup.time_control)
        self.plies: list[PlyRecord] = []
        self.traffic = Transcript() if keep_traffic else None
        self.seats = [_Seat(spec, player_info(spec)) for spec in setup.players]
        self._start_engine = start_engine

    async def run(self) -> GameRecord:
        """Play the game to its end and build the record."""
        started = datetime.now(UTC)
        fault: _Fault | None = None
        try:
            await self._each(self._start)
            await self._each(self._handshake)
            while self.game.outcome is None:
                await self._turn()
        except _Fault as found:
            fault = found
        finally:
            await self._stop_engines(fault)
        seats = (self.seats[0].info, self.seats[1].info)
        end = self._end(fault)
        return build_record(
            self.setup, self.secret, seats, self.plies, end, started, datetime.now(UTC)
        )

    # -- engine I/O ------------------------------------------------------------------

    async def _start(self, player: int) -> None:
        seat = self.seats[player]
        log = self.traffic.logger(seat.spec.name) if self.traffic else None
        try:
            seat.engine = await self._start_engine(seat.spec, log)
        except (EngineError, OSError) as error:
            raise _Fault(player, Reason.CRASH, f"could not start: {error}") from None
        seat.info.isolation = Isolation(seat.engine.isolation)

    async def _each(self, action: Callable[[int], Coroutine[Any, Any, None]]) -> None:
        """Run ``action`` for both players at once; re-raise the first player's fault first."""
        results = await asyncio.gather(action(0), action(1), return_exceptions=True)
        for result in results:
            if isinstance(result, BaseException):
                raise result

    def _engine(self, player: int) -> EngineConnection:
        engine = self.seats[player].engine
        assert engine is not None
        return engine

    async def _ask(self, player: int, command: Command, timeout: float) -> Reply:
        """Send one command; any way the engine fails to answer is a fault."""
        try:
            return await self._engine(player).request(command, timeout=timeout)
        except EngineError as error:
            raise fault_of(player, error, command) from None

    async def _handshake(self, player: int) -> None:
        """The platform's start of a game, then the courtesy questions.

        ``reset_board``, ``time_settings`` and ``ready`` are what the platform sends and
        must be answered. The draw limits of a non-Olympiad rule set and ``name`` and
        ``version`` are extras that an engine written for the platform may not answer:
        silence there costs it ``OPTIONAL_TIMEOUT`` seconds, not the game.
        """
        stall = self.setup.stall_timeout
        await self._ask(player, Command.reset_board(), stall)
        await self._ask(player, Command.time_settings(self.setup.time_control.time_ms), stall)
        for command in _draw_limit_commands(self.setup.rules):
            await self._ask_optional(player, command)
        await self._ask(player, Command.ready(), stall)
        info = self.seats[player].info
        info.engine_name = await self._ask_courtesy(player, Command.name())
        info.version = await self._ask_courtesy(player, Command.version())

    async def _ask_optional(self, player: int, command: Command) -> Reply | None:
        """``_ask`` for a command the engine may leave unanswered (None then)."""
        try:
            return await self._ask(player, command, min(OPTIONAL_TIMEOUT, self.setup.stall_timeout))
        except _Fault as fault:
            if fault.reason is Reason.STALL:
                return None
            raise

    async def _ask_courtesy(self, player: int, command: Command) -> str | None:
        """What the engine says to ``name`` or ``version``, if it says anything."""
        reply = await self._ask_optional(player, command)
        if reply is not None and reply.ok and reply.payload:
            return reply.payload.strip()[:200]
        return None

    # -- one ply ---------------------------------------------------------------------

    async def _turn(self) -> None:
        """Ask the mover for a move, judge it, play it and tell both engines."""
        first = self.setup.first
        mover = first if len(self.plies) % 2 == 0 else 1 - first
        reply, elapsed = await self._genmove(mover)
        move = self._judge(mover, reply)
        piece = self.layout[move_from(move)] if is_flip(move) else None
        self.game.play(move, piece)
        self._note_colours(mover, piece)
        await self._echo(mover, move, piece, elapsed)

    async def _genmove(self, mover: int) -> tuple[Reply, float]:
        """The mover's genmove reply and its thinking time, charged to its clock.

        A move that comes after the allowance (clock or per-move limit, and the margin)
        loses on time. The referee still waits the stall timeout for it, to tell an engine
        that answers late from one that stopped answering (only the latter is failing).
        """
        side = self.game.side
        command = Command.genmove("unknown" if side == UNDECIDED else COLOUR_NAMES[side])
        allowance = self.clock.allowance(mover)
        started = time.monotonic()
        try:
            reply = await self._think(mover, command, allowance)
        except EngineError as error:
            self.clock.charge(mover, time.monotonic() - started)
            raise fault_of(mover, error, command, allowance=allowance) from None
        elapsed = time.monotonic() - started
        if not self.clock.charge(mover, elapsed):
            detail = f"moved after {elapsed:.3f}s, {allowance:.3f}s allowed"
            raise _Fault(mover, Reason.TIME_FORFEIT, detail)
        return reply, elapsed

    async def _think(self, player: int, command: Command, allowance: float) -> Reply:
        """Await a genmove reply, for at most the allowance and the stall timeout after it.

        An engine whose process group uses no CPU for the stall timeout while it owes a
        move within its allowance is stuck, and loses by ``stall`` without waiting for
        its clock; past the allowance the move is lost on time and only a late answer is
        awaited.
        """
        engine = self._engine(player)
        stall = self.setup.stall_timeout
        deadline = time.monotonic() + allowance
        request = asyncio.ensure_future(engine.request(command, timeout=allowance + stall))
        last: int | None = None  # sampled only once the engine is slow to answer
        active = time.monotonic()
        while True:
            done, _ = await asyncio.wait({request}, timeout=min(0.5, stall / 4))
            if done:
                return request.result()
            if time.monotonic() >= deadline:
                return await request
            ticks = None if engine.pid is None else group_cpu_ticks(engine.pid)
            if ticks is None:
                return await request
            if last is None or ticks > last:
                last, active = ticks, time.monotonic()
            elif time.monotonic() - active >= stall:
                request.cancel()
                with contextlib.suppress(asyncio.CancelledError, EngineError):
                    await request
                detail = f"no move and no CPU used for {stall:g}s while thinking"
                raise _Fault(player, Reason.STALL, detail, stopped_answering=True)

    def _judge(self, mover: int, reply: Reply) -> Move:
        """The legal move a genmove reply names; a fault if it names none."""
        if not reply.ok:
            detail = f"genmove failed: ?{reply.id} {reply.payload}"
            raise _Fault(mover, Reason.UNREADABLE_REPLY, detail)
        try:
            answer = parse_genmove_payload(reply.payload)
        except ProtocolError as error:
            raise _Fault(mover, Reason.UNREADABLE_REPLY, str(error)) from None
        if answer.move is None:
            raise _Fault(mover, Reason.RESIGN, "resigned (a0 a0)")
        move = answer.move
        try:
            self.game.check(move, self.layout[move_from(move)] if is_flip(move) else None)
        except MoveError as error:
            raise _Fault(mover, Reason.ILLEGAL_MOVE, f"{reply.payload.strip()}: {error}") from None
        return move

    def _note_colours(self, mover: int, piece: Piece | None) -> None:
        """The first flip decides colours: its mover takes the revealed piece's colour."""
        if piece is None or self.seats[mover].colour is not None:
            return
        colour = colour_of(piece)
        for seat, seat_colour in ((mover, colour), (1 - mover, opponent(colour))):
            self.seats[seat].colour = seat_colour
            self.seats[seat].info.colour = "red" if seat_colour == 0 else "black"

    async def _echo(self, mover: int, move: Move, piece: Piece | None, elapsed: float) -> None:
        """Record the ply, then tell both engines what was played and the mover's clock."""
        square = move_from(move)
        if piece is not None:
            text, echo = format_flip(square, piece), Command.flip(square, piece)
        else:
            text, echo = format_move(move), Command.move(square, move_to(move))
        clocks = (self.clock.remaining_ms(0), self.clock.remaining_ms(1))
        self.plies.append(
            PlyRecord(player=mover, move=text, ms=round(elapsed * 1000), clocks_ms=clocks)
        )
        mover_colour = self.seats[mover].colour
        assert mover_colour is not None
        time_left = Command.time_left(COLOUR_NAMES[mover_colour], clocks[mover])

        async def tell(player: int) -> None:
            for command in (echo, time_left):
                await self._ask(player, command, self.setup.stall_timeout)

        try:
            await self._each(tell)
        except _Fault:
            # A fault after the ply that ended the game on the board does not change its result.
            if self.game.outcome is None:
                raise

    async def _stop_engines(self, fault: _Fault | None) -> None:
        """Tell both engines the game is over and end them; an engine that stopped
        answering is killed at once, as it would not answer ``quit`` either."""

        async def stop(player: int) -> None:
            engine = self.seats[player].engine
            if engine is None:
                return
            if fault is not None and fault.player == player and fault.stopped_answering:
                await engine.kill()
                return
            with contextlib.suppress(Exception):
                if fault is None:
                    await engine.request(Command.game_over("end"), timeout=1.0)
            await engine.quit()

        await asyncio.shield(asyncio.gather(stop(0), stop(1)))

    # -- the end ---------------------------------------------------------------------

    def _label(self, player: int) -> str:
        colour = self.seats[player].colour
        return COLOUR_NAMES[colour] if colour is not None else self.seats[player].spec.name

    def _end(self, fault: _Fault | None) -> GameEnd:
        """How the game ended: the fault's, or the board's."""
        if fault is not None:
            winner = 1 - fault.player
            return GameEnd(
                winner=winner,
                reason=fault.reason,
                result=f"{self._label(winner)} wins: "
                f"{self._label(fault.player)} {fault.reason.loser_words}",
                detail=fault.detail,
                stopped_answering=fault.stopped_answering,
            )
        outcome = self.game.outcome
        assert outcome is not None
        board_winner = None
        if outcome.winner is not None:
            board_winner = next(i for i, s in enumerate(self.seats) if s.colour == outcome.winner)
        return GameEnd(
            winner=board_winner,
            reason=Reason.of_board_end(outcome.reason),
            result=outcome.description,
        )

    def transcript(self) -> str:
        """The DCTP traffic of the game, one line per message, if it was kept."""
        return self.traffic.text() if self.traffic else ""


def _draw_limit_commands(rules: RuleSet) -> list[Command]:
    """The draw-limit commands that tell an engine how ``rules`` differ from the platform's."""
    commands = []
    if rules.repetition_count != OLYMPIAD.repetition_count:
        commands.append(Command.num_repetition(rules.repetition_count))
    if rules.no_progress_limit != OLYMPIAD.no_progress_limit:
        commands.append(Command.num_moves_to_draw(rules.no_progress_limit))
    return commands


@dataclass(frozen=True)
class PlayedGame:
    """A finished game: its complete record, and its DCTP transcript if it was kept."""

    record: GameRecord
    transcript: str | None


async def play_game(
    setup: GameSetup,
    secret: str,
    *,
    keep_traffic: bool = False,
    start_engine: EngineFactory = start_engine_process,
) -> PlayedGame:
    """Play one game dealt from ``secret``, keeping its DCTP transcript if asked.

    Nothing is written: the caller saves the record and the transcript (see
    ``referee.deal_records``); a game cut short keeps neither.
    """
    runner = GameRunner(setup, secret, start_engine=start_engine, keep_traffic=keep_traffic)
    record = await runner.run()
    return PlayedGame(record, runner.transcript() if keep_traffic else None)
