"""One game between two DCTP engines: the referee's main loop.

The referee speaks to each engine as the platform does: ``reset_board``,
``time_settings``, ``ready``; then ``genmove`` to the side to move (``unknown``
until the first flip), and after every ply, to both engines, the echo (``move``, ``flip``
with the revealed piece, or ``reveal_move`` for a move onto a face-down piece) followed
by ``time_left`` for the side that moved; at the end ``game_over`` and ``quit``. Before
``ready`` an engine is told a rule set other than the platform's (``rule_set`` if it
lists that extension, else the draw-limit commands; an engine that does not take a rule
set it must be told, one with moves onto face-down pieces, loses by ``rules-refused``),
and under a per-move limit the mover hears, in ``time_left``
before each ``genmove``, the time it may use for that move. Every wait has a
timeout, every engine fault ends the game with a reason code (a game in which both
engines fail at once is void), and both engines are always stopped, also when the
game is cancelled. Engines come from an :data:`~referee.engine_start.EngineFactory`
(processes unless a caller says otherwise).
"""

import asyncio
import contextlib
import time
from collections.abc import Callable, Coroutine
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Final

from banqi_engine.errors import MoveError
from banqi_engine.game import Game
from banqi_engine.moves import Move
from banqi_engine.notation import Ply
from banqi_engine.pieces import COLOUR_NAMES, UNDECIDED, Colour, Piece, colour_of, opponent
from protocol.connection import EngineConnection
from protocol.cpu import group_cpu_ticks
from protocol.echo import echo_command
from protocol.errors import (
    EngineError,
    ProtocolError,
)
from protocol.messages import COMMAND_NAMES, Command, CommandId, Reply, parse_genmove_payload
from protocol.rules_told import (
    DRAW_LIMITS,
    differing_fields,
    draw_limit_commands,
    must_be_told,
    untold_words,
)

from .deals import Deal, dealt
from .engine_spec import EngineSpec
from .engine_start import EngineFactory, start_engine_process
from .game_faults import Allowance, Fault, Void, fault_of, faults_of
from .game_setup import GameSetup
from .live import end_live, live_view, write_live
from .reasons import Reason
from .record import GameEnd, GameRecord, PlayerInfo, PlyRecord, build_record, player_info
from .sandbox import Isolation
from .timecontrol import Clock
from .transcript import Transcript

OPTIONAL_TIMEOUT: Final = 1.0
"""Seconds to wait for an answer to a command the platform itself never sends."""


@dataclass
class _Seat:
    spec: EngineSpec
    info: PlayerInfo
    engine: EngineConnection | None = None
    colour: Colour | None = None


class GameRunner:
    """Plays one ``GameSetup`` on its deal (a Deal, or the secret it is the shuffle of) and
    returns its record (and, if asked, the DCTP transcript)."""

    def __init__(
        self,
        setup: GameSetup,
        deal: Deal | str,
        *,
        start_engine: EngineFactory = start_engine_process,
        keep_traffic: bool = False,
        live_path: Path | None = None,
    ) -> None:
        """``live_path``: where to keep the game's public live view while it runs."""
        self.setup = setup
        self.live_path = live_path
        self.deal = dealt(deal)
        self.layout = self.deal.layout
        self.game = Game(setup.rules)
        self.clock = Clock((setup.time_control_of(0), setup.time_control_of(1)))
        self.plies: list[PlyRecord] = []
        self.traffic = Transcript() if keep_traffic else None
        self.seats = [
            _Seat(spec, player_info(spec, own))
            for spec, own in zip(setup.players, setup.own_time, strict=True)
        ]
        self._start_engine = start_engine

    async def run(self) -> GameRecord:
        """Play the game to its end and build the record."""
        started = datetime.now(UTC)
        ending: Fault | Void | None = None
        try:
            self._publish()
            await self._each(self._start, "neither engine started")
            await self._each(self._handshake, "neither engine answered the start of the game")
            while self.game.outcome is None:
                await self._turn()
        except (Fault, Void) as found:
            ending = found
        finally:
            if self.live_path is not None:
                end_live(self.live_path)
            over = ending is not None or self.game.outcome is not None
            try:
                await self._stop_engines(ending)
            except asyncio.CancelledError:
                if not over:
                    raise
                # The game is decided: its record is still made; the caller, whose task
                # is being cancelled, stops after saving it (see Task.cancelling).
        seats = (self.seats[0].info, self.seats[1].info)
        end = self._end(ending)
        return build_record(
            self.setup, self.deal, seats, self.plies, end, started, datetime.now(UTC)
        )

    # -- engine I/O ------------------------------------------------------------------

    async def _start(self, player: int) -> None:
        seat = self.seats[player]
        log = self.traffic.logger(seat.spec.name) if self.traffic else None
        try:
            seat.engine = await self._start_engine(seat.spec, log)
        except (EngineError, OSError) as error:
            raise Fault(player, Reason.CRASH, f"could not start: {error}") from None
        seat.info.isolation = Isolation(seat.engine.isolation)

    async def _each(
        self, action: Callable[[int], Coroutine[Any, Any, None]], both_failed: str
    ) -> None:
        """Run ``action`` for both players at once. One fault is raised as it is; a fault of
        each player makes the game void (``both_failed`` says how, in words)."""
        results = await asyncio.gather(action(0), action(1), return_exceptions=True)
        for result in results:
            if isinstance(result, BaseException) and not isinstance(result, Fault):
                raise result
        faults = [result for result in results if isinstance(result, Fault)]
        if len(faults) == 2:
            raise Void(both_failed, (faults[0], faults[1]))
        if faults:
            raise faults[0]

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
        """The platform's start of a game, the rules, then the courtesy questions.

        ``reset_board``, ``time_settings`` and ``ready`` are what the platform sends and
        must be answered. Telling a non-Olympiad rule set and asking ``name`` and
        ``version`` are extras that an engine written for the platform may not answer:
        silence there costs it ``OPTIONAL_TIMEOUT`` seconds, not the game.
        """
        stall = self.setup.stall_timeout
        info = self.seats[player].info
        await self._ask(player, Command.reset_board(), stall)
        await self._ask(player, Command.time_settings(self.clock.controls[player].time_ms), stall)
        if differing_fields(self.setup.rules):
            info.rules_told = await self._tell_rules(player)
            if not info.rules_told and must_be_told(self.setup.rules):
                raise Fault(player, Reason.RULES_REFUSED, untold_words(self.setup.rules))
        await self._ask(player, Command.ready(), stall)
        info.engine_name = await self._ask_courtesy(player, Command.name())
        info.version = await self._ask_courtesy(player, Command.version())

    async def _tell_rules(self, player: int) -> bool:
        """Tell the engine the rule set; whether it accepted every field that differs from
        the platform's.

        A rule set that differs in more than its draw limits goes as ``rule_set`` to an
        engine that lists that command; otherwise, or if the engine refuses it, the draw
        limits go as ``num_repetition``/``num_moves_to_draw``.
        """
        rules = self.setup.rules
        beyond_draw_limits = bool(differing_fields(rules) - DRAW_LIMITS)
        if beyond_draw_limits and await self._lists_rule_set(player):
            told = await self._ask_optional(player, Command.rule_set(rules))
            if told is not None and told.ok:
                return True
        accepted = True
        for command in draw_limit_commands(rules):
            reply = await self._ask_optional(player, command)
            accepted = accepted and reply is not None and reply.ok
        return accepted and not beyond_draw_limits

    async def _lists_rule_set(self, player: int) -> bool:
        """Whether the engine's ``list_commands`` names the ``rule_set`` extension."""
        reply = await self._ask_optional(player, Command.list_commands())
        names = reply.payload.split() if reply is not None and reply.ok else []
        return COMMAND_NAMES[CommandId.RULE_SET] in names

    async def _ask_optional(self, player: int, command: Command) -> Reply | None:
        """``_ask`` for a command the engine may leave unanswered (None then)."""
        try:
            return await self._ask(player, command, min(OPTIONAL_TIMEOUT, self.setup.stall_timeout))
        except Fault as fault:
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
        piece = self.game.piece_shown(move, self.layout)
        echo = echo_command(self.game.position, self.game.rules, move, piece)
        self.game.play(move, piece)
        self._note_colours(mover, piece)
        await self._echo(mover, str(Ply(move, piece)), echo, elapsed)

    async def _genmove(self, mover: int) -> tuple[Reply, float]:
        """The mover's genmove reply and its thinking time, charged to its clock.

        Under a per-move limit the mover first hears in ``time_left`` what it may use for
        this move. A move that comes after the allowance (clock or per-move limit, and the
        margin) loses on time. The referee still waits the stall timeout for it, to tell
        an engine that answers late from one that stopped answering (only the latter is
        failing).
        """
        side = self.game.side
        if self.clock.controls[mover].move_time is not None:
            await self._tell_move_limit(mover, side)
        command = Command.genmove("unknown" if side == UNDECIDED else COLOUR_NAMES[side])
        allowance = Allowance(self.clock.allowance(mover), self.clock.left_words(mover))
        started = time.monotonic()
        try:
            reply = await self._think(mover, command, allowance.seconds)
        except EngineError as error:
            self.clock.charge(mover, time.monotonic() - started)
            raise fault_of(mover, error, command, allowance=allowance) from None
        elapsed = time.monotonic() - started
        if not self.clock.charge(mover, elapsed):
            detail = (
                f"moved after {elapsed:.3f}s with {allowance.words}: "
                f"{allowance.seconds:.3f}s allowed with the margin"
            )
            raise Fault(mover, Reason.TIME_FORFEIT, detail)
        return reply, elapsed

    async def _tell_move_limit(self, mover: int, side: Colour) -> None:
        """``time_left`` to the mover with the time it may use for this move: its clock or
        the per-move limit, whichever is less (for both colours while they are undecided)."""
        colours = ("red", "black") if side == UNDECIDED else (COLOUR_NAMES[side],)
        for colour in colours:
            command = Command.time_left(colour, self.clock.limit_ms(mover))
            await self._ask(mover, command, self.setup.stall_timeout)

    async def _think(self, player: int, command: Command, allowance: float) -> Reply:
        """Await a genmove reply, for at most the allowance and the stall timeout after it.

        Only with an idle limit (``TimeControl.idle_limit``): an engine whose process group
        uses no CPU for that long while it owes a move within its allowance is stuck, and
        loses by ``stall`` without waiting for its clock; past the allowance the move is
        lost on time and only a late answer is awaited.
        """
        engine = self._engine(player)
        deadline = time.monotonic() + allowance
        request = engine.request(command, timeout=allowance + self.setup.stall_timeout)
        idle = self.clock.controls[player].idle_limit
        if idle is None or engine.pid is None:
            return await request
        return await self._watch_cpu(player, asyncio.ensure_future(request), idle, deadline)

    async def _watch_cpu(
        self, player: int, request: "asyncio.Future[Reply]", idle: float, deadline: float
    ) -> Reply:
        """Await ``request``, ending it by ``stall`` once the engine's processes have used no
        CPU for ``idle`` seconds before the ``deadline`` of its allowance."""
        pid = self._engine(player).pid
        assert pid is not None
        last: int | None = None  # sampled only once the engine is slow to answer
        active = time.monotonic()
        while True:
            done, _ = await asyncio.wait({request}, timeout=min(0.5, idle / 4))
            if done:
                return request.result()
            if time.monotonic() >= deadline:
                return await request
            ticks = group_cpu_ticks(pid)
            if ticks is None:
                return await request
            if last is None or ticks > last:
                last, active = ticks, time.monotonic()
            elif time.monotonic() - active >= idle:
                request.cancel()
                with contextlib.suppress(asyncio.CancelledError, EngineError):
                    await request
                detail = (
                    f"no move and no CPU used for {idle:g}s while thinking "
                    f"(the idle limit; it had {self.clock.left_words(player)})"
                )
                raise Fault(player, Reason.STALL, detail, stopped_answering=True)

    def _judge(self, mover: int, reply: Reply) -> Move:
        """The legal move a genmove reply names; a fault if it names none."""
        if not reply.ok:
            detail = f"genmove failed: ?{reply.id} {reply.payload}"
            raise Fault(mover, Reason.UNREADABLE_REPLY, detail)
        try:
            answer = parse_genmove_payload(reply.payload)
        except ProtocolError as error:
            raise Fault(mover, Reason.UNREADABLE_REPLY, str(error)) from None
        if answer.move is None:
            raise Fault(mover, Reason.RESIGN, "resigned (a0 a0)")
        move = answer.move
        try:
            self.game.check(move, self.game.piece_shown(move, self.layout))
        except MoveError as error:
            raise Fault(mover, Reason.ILLEGAL_MOVE, f"{reply.payload.strip()}: {error}") from None
        return move

    def _note_colours(self, mover: int, piece: Piece | None) -> None:
        """The first flip decides colours: its mover takes the revealed piece's colour."""
        if piece is None or self.seats[mover].colour is not None:
            return
        colour = colour_of(piece)
        for seat, seat_colour in ((mover, colour), (1 - mover, opponent(colour))):
            self.seats[seat].colour = seat_colour
            self.seats[seat].info.colour = "red" if seat_colour == 0 else "black"

    async def _echo(self, mover: int, text: str, echo: Command, elapsed: float) -> None:
        """Record the ply (``text``, its move string), then tell both engines what was
        played (``echo``) and the mover's clock."""
        clocks = (self.clock.remaining_ms(0), self.clock.remaining_ms(1))
        self.plies.append(
            PlyRecord(player=mover, move=text, ms=round(elapsed * 1000), clocks_ms=clocks)
        )
        self._publish()
        mover_colour = self.seats[mover].colour
        assert mover_colour is not None
        time_left = Command.time_left(COLOUR_NAMES[mover_colour], clocks[mover])

        async def tell(player: int) -> None:
            for command in (echo, time_left):
                await self._ask(player, command, self.setup.stall_timeout)

        try:
            await self._each(tell, "both engines failed after a ply")
        except (Fault, Void):
            # A fault after the ply that ended the game on the board does not change its result.
            if self.game.outcome is None:
                raise

    async def _stop_engines(self, ending: Fault | Void | None) -> None:
        """Tell both engines the game is over and end them; an engine that stopped
        answering is killed at once, as it would not answer ``quit`` either."""
        faults = faults_of(ending)
        silent = {fault.player for fault in faults if fault.stopped_answering}

        async def stop(player: int) -> None:
            engine = self.seats[player].engine
            if engine is None:
                return
            if player in silent:
                await engine.kill()
                return
            with contextlib.suppress(Exception):
                if not faults:
                    await engine.request(Command.game_over("end"), timeout=1.0)
            await engine.quit()

        await asyncio.shield(asyncio.gather(stop(0), stop(1)))

    # -- the end ---------------------------------------------------------------------

    def _label(self, player: int) -> str:
        colour = self.seats[player].colour
        return COLOUR_NAMES[colour] if colour is not None else self.seats[player].spec.name

    def _end(self, ending: Fault | Void | None) -> GameEnd:
        """How the game ended: void, a fault's, or the board's."""
        if isinstance(ending, Void):
            return self._void_end(ending)
        fault = ending
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

    def _void_end(self, void: Void) -> GameEnd:
        """A void game: no winner, the first player's reason, both faults in words."""
        first = void.faults[0]
        what = "; ".join(f"{self._label(f.player)} {f.reason.loser_words}" for f in void.faults)
        return GameEnd(
            winner=None,
            reason=first.reason,
            result=f"void: {void.words} ({what})",
            detail="; ".join(f"{self._label(f.player)}: {f.detail}" for f in void.faults),
            stopped_answering=first.stopped_answering,
            void=True,
        )

    def _publish(self) -> None:
        """Rewrite the public live view (players, plies so far), if one is kept."""
        if self.live_path is not None:
            infos = [seat.info for seat in self.seats]
            write_live(self.live_path, live_view(self.setup, infos, self.plies))

    def transcript(self) -> str:
        """The DCTP traffic of the game, one line per message, if it was kept."""
        return self.traffic.text() if self.traffic else ""


@dataclass(frozen=True)
class PlayedGame:
    """A finished game: its complete record, and its DCTP transcript if it was kept."""

    record: GameRecord
    transcript: str | None


async def play_game(
    setup: GameSetup,
    deal: Deal | str,
    *,
    keep_traffic: bool = False,
    start_engine: EngineFactory = start_engine_process,
    live_path: Path | None = None,
) -> PlayedGame:
    """Play one game on ``deal`` (a Deal, or the secret it is the shuffle of), keeping its
    DCTP transcript if asked.

    Nothing is written but the live view at ``live_path`` while the game runs (if given;
    removed at its end): the caller saves the record and the transcript (see
    ``referee.deal_records``); a game cut short keeps neither.
    """
    runner = GameRunner(
        setup, deal, start_engine=start_engine, keep_traffic=keep_traffic, live_path=live_path
    )
    record = await runner.run()
    return PlayedGame(record, runner.transcript() if keep_traffic else None)
