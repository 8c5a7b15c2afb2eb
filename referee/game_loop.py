"""One game, played by one loop over two seats: ``GameLoop``.

The loop owns everything that decides the game (gomill's ``Game_runner``): the hidden
layout, judging every ply, colours from the first flip, both clocks, the end and the
record. Its seats (:mod:`referee.seats`) only answer: an engine through its DCTP session,
a person through whatever hands it their actions. The referee's games, the board in the
browser, self-play and tuning all play through it.

The order is the platform's: each seat is started and told the start of the game (both
at once); then the mover is asked for a move (``unknown`` until the first flip), its time
is charged, the answer judged and played, and both seats are told the ply (the echo and
the mover's ``time_left``). Every way a seat fails ends the game with a reason code
(``referee.game_faults``; a game in which both engines fail at once is void), and both
seats are always closed, also when the game is cancelled.
"""

import asyncio
import contextlib
import time
from collections.abc import Callable, Coroutine
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from banqi_engine.errors import MoveError
from banqi_engine.game import Game
from banqi_engine.moves import Move
from banqi_engine.notation import Ply, parse_ply
from banqi_engine.pieces import COLOUR_NAMES, Colour, Piece, colour_of, seat_colours
from protocol.echo import echo_command
from protocol.errors import ProtocolError
from protocol.messages import Command
from protocol.session import MoveAnswer

from .deals import Deal, dealt
from .game_faults import Allowance, Fault, Void, fault_of, faults_of
from .game_setup import GameSetup
from .reasons import Reason
from .record import GameEnd, GameRecord, PlyRecord, build_record
from .seats import Opening, Resignation, Seat, TakeBack, Told, Turn
from .timecontrol import Clock


@dataclass(frozen=True)
class LoopOptions:
    """How the loop keeps time and records: ``enforce_clock`` False (a casual game)
    charges the clocks but loses no game on time, and waits ``untimed_wait`` seconds for
    an engine's move before it counts as having stopped answering."""

    enforce_clock: bool = True
    untimed_wait: float = 120.0
    keep_record: bool = True
    """False: no record is made (self-play on a layout that has no deal secret)."""


class GameLoop:
    """Plays one ``GameSetup`` on its deal between two seats and builds its record."""

    def __init__(
        self,
        setup: GameSetup,
        deal: Deal | str,
        seats: tuple[Seat, Seat],
        *,
        options: LoopOptions = LoopOptions(),
        on_change: Callable[[], None] | None = None,
    ) -> None:
        """``on_change`` is called whenever the game moves on (a ply, colours, the end)."""
        self.setup = setup
        self.deal = dealt(deal)
        self.seats = seats
        self.options = options
        self._on_change = on_change
        self.game = Game(setup.rules)
        self.clock = self._new_clock()
        self.plies: list[PlyRecord] = []
        self._told: list[Told] = []
        self.colours: list[Colour | None] = [None, None]
        self.turn_started = time.monotonic()
        self.ending: Fault | Void | None = None
        self.record: GameRecord | None = None
        self.started_at = datetime.now(UTC)
        self._owing: int | None = None
        self._interrupt: Fault | None = None
        self._turn_task: asyncio.Task[None] | None = None
        self._play_opening()

    # -- what others read ------------------------------------------------------------

    @property
    def mover(self) -> int:
        """The player to move: the first player on even plies."""
        first = self.setup.first
        return first if len(self.plies) % 2 == 0 else 1 - first

    @property
    def over(self) -> bool:
        """Whether the game has ended (on the board, by a fault, or void)."""
        return self.ending is not None or self.game.outcome is not None

    @property
    def end(self) -> GameEnd | None:
        """How the game ended, once it has (before its seats are closed and its record
        made)."""
        return self._end() if self.over else None

    def piece_shown(self, move: Move) -> Piece | None:
        """The layout's piece ``move`` turns up, if any (never to be shown before it is
        played)."""
        return self.game.piece_shown(move, self.deal.layout)

    def check(self, move: Move) -> None:
        """MoveError unless ``move`` is legal for the side to move now."""
        self.game.check(move, self.piece_shown(move))

    def label(self, player: int) -> str:
        """How results name a player: its colour once known, else its name."""
        colour = self.colours[player]
        return COLOUR_NAMES[colour] if colour is not None else self.seats[player].info.name

    # -- the game --------------------------------------------------------------------

    async def run(self) -> GameRecord:
        """Open both seats and play the game to its end; return the record."""
        await self.open()
        await self.play()
        assert self.record is not None, "a loop that keeps no record is played by play()"
        return self.record

    async def open(self) -> None:
        """Start both seats, then tell both the start of the game; a failure ends the game
        (see :attr:`ending`) and is played out by :meth:`play`."""
        self._changed()
        try:
            await self._each(self._start, "neither engine started")
            await self._each(self._open, "neither engine answered the start of the game")
        except (Fault, Void) as found:
            self.ending = found
        except asyncio.CancelledError:
            await self._close_seats()
            raise

    async def play(self) -> None:
        """Play turns until the game ends, make the record and close both seats."""
        try:
            while not self.over:
                await self._next_turn()
        except (Fault, Void) as found:
            self.ending = found
        finally:
            if self.over:  # the record is made as the game ends, before the seats close
                if self.options.keep_record:
                    self.record = self._build_record()
                self._changed()
            try:
                await self._close_seats()
            except asyncio.CancelledError:
                if not self.over:
                    raise
                # The game is decided: its record is kept; the caller, whose task is
                # being cancelled, stops after saving it (see Task.cancelling).

    def stop(self, fault: Fault) -> None:
        """End the game from outside: ``fault``'s player loses by its reason (e.g. a person
        who resigns while the engine thinks). A seat on move is closed at once."""
        if self.over or self._interrupt is not None:
            return
        self._interrupt = fault
        if self._turn_task is not None and not self._turn_task.done():
            self._turn_task.cancel()

    @property
    def told(self) -> tuple[Told, ...]:
        """Every ply so far as seats are told it."""
        return tuple(self._told)

    def opening(self, player: int) -> Opening:
        """What ``player``'s seat is told at the start of the game."""
        control = self.clock.controls[player]
        return Opening(self.setup.rules, control.time_ms, self.setup.stall_timeout)

    # -- turns -----------------------------------------------------------------------

    async def _next_turn(self) -> None:
        if self._interrupt is not None:
            raise self._interrupt
        self._turn_task = asyncio.ensure_future(self._turn())
        try:
            await self._turn_task
        except asyncio.CancelledError:
            task = asyncio.current_task()
            if self._interrupt is None or (task is not None and task.cancelling()):
                raise
        if self._interrupt is not None:
            raise self._interrupt

    async def _turn(self) -> None:
        """Ask the mover for a move, judge it, play it and tell both seats."""
        mover = self.mover
        try:
            answer, elapsed = await self._ask_move(mover)
        except TakeBack as back:
            await self._take_back(back.keep)
            return
        move = self._judge(mover, answer)
        piece = self.piece_shown(move)
        self._play(mover, move, piece, elapsed)
        self._changed()
        await self._tell(self._told[-1])

    def _turn_for(self, mover: int) -> tuple[Turn, Allowance | None]:
        control = self.clock.controls[mover]
        seat = self.seats[mover]
        stall = self.setup.stall_timeout
        if self.options.enforce_clock:
            allowance = Allowance(self.clock.allowance(mover), self.clock.left_words(mover))
            wait = allowance.seconds + (stall if seat.stall_timeout_applies else 0.0)
        else:
            allowance, wait = None, self.options.untimed_wait
        limit_ms = self.clock.limit_ms(mover) if control.move_time is not None else None
        seconds = None if allowance is None else allowance.seconds
        deadline = time.monotonic() + seconds if seconds is not None else None
        turn = Turn(self.game.side, wait, seconds, limit_ms, control.idle_limit, deadline, stall)
        return turn, allowance

    async def _ask_move(self, mover: int) -> tuple[MoveAnswer, float]:
        """The mover's answer and its thinking time, charged to its clock (a fault if it
        lost on time or failed to answer)."""
        turn, allowance = self._turn_for(mover)
        self._owing = mover  # until it answers: a cancelled turn closes it at once
        started = self.turn_started = time.monotonic()
        try:
            answer = await self.seats[mover].play(turn)
        except ProtocolError as error:
            self._owing = None
            self.clock.charge(mover, time.monotonic() - started)
            raise fault_of(mover, error, allowance=allowance) from None
        except TimeoutError:  # a person's allowance ran out
            self._owing = None
            elapsed = time.monotonic() - started
            words = self.clock.left_words(mover)
            self.clock.charge(mover, elapsed)
            detail = f"no move within {elapsed:.1f}s ({words} before)"
            raise Fault(mover, Reason.TIME_FORFEIT, detail) from None
        except (Resignation, TakeBack) as choice:
            self._owing = None
            if isinstance(choice, TakeBack):
                raise
            raise Fault(mover, Reason.RESIGN, str(choice)) from None
        self._owing = None
        elapsed = max(0.0, time.monotonic() - started - answer.network_seconds)
        if not self.clock.charge(mover, elapsed) and allowance is not None:
            detail = (
                f"moved after {elapsed:.3f}s with {allowance.words}: "
                f"{allowance.seconds:.3f}s allowed with the margin"
            )
            raise Fault(mover, Reason.TIME_FORFEIT, detail)
        return answer, elapsed

    def _judge(self, mover: int, answer: MoveAnswer) -> Move:
        """The legal move an answer names; a fault if it names none."""
        if answer.unreadable is not None:
            raise Fault(mover, Reason.UNREADABLE_REPLY, answer.unreadable)
        if answer.move is None:
            raise Fault(mover, Reason.RESIGN, "resigned (a0 a0)")
        try:
            self.check(answer.move)
        except MoveError as error:
            raise Fault(mover, Reason.ILLEGAL_MOVE, f"{answer.payload.strip()}: {error}") from None
        return answer.move

    def _play(self, mover: int, move: Move, piece: Piece | None, elapsed: float) -> None:
        """Play a judged ply: the board, colours, the record line and its echo."""
        echo = echo_command(self.game.position, self.game.rules, move, piece)
        self.game.play(move, piece)
        self._note_colours(mover, piece)
        clocks = (self.clock.remaining_ms(0), self.clock.remaining_ms(1))
        text = str(Ply(move, piece))
        self.plies.append(
            PlyRecord(player=mover, move=text, ms=round(elapsed * 1000), clocks_ms=clocks)
        )
        colour = self.colours[mover]
        time_left = (
            None if colour is None else Command.time_left(COLOUR_NAMES[colour], clocks[mover])
        )
        self._told.append(Told(Ply(move, piece), echo, time_left))
        self.turn_started = time.monotonic()

    def _play_opening(self) -> None:
        """The deal's opening, played before either player is asked for a move: no time
        charged, the seats told it as the start of the game (a deal book's opening is
        checked under the run's rules before the run: ``LoadedBook.check_fits``)."""
        for text in self.deal.opening:
            move = parse_ply(text).move
            self._play(self.mover, move, self.piece_shown(move), 0.0)

    def _note_colours(self, mover: int, piece: Piece | None) -> None:
        """The first flip decides colours: its mover takes the revealed piece's colour."""
        if piece is None or self.colours[mover] is not None:
            return
        self.colours = list(seat_colours(mover, colour_of(piece)))
        for seat, colour in zip(self.seats, self.colours, strict=True):
            seat.info.colour = "red" if colour == 0 else "black"

    async def _tell(self, told: Told) -> None:
        """Tell both seats the ply; a fault after the ply that ended the game on the board
        does not change its result."""
        stall = self.setup.stall_timeout

        async def tell(player: int) -> None:
            try:
                await self.seats[player].hear(told, stall)
            except ProtocolError as error:
                raise fault_of(player, error) from None

        try:
            await self._each(tell, "both engines failed after a ply")
        except (Fault, Void):
            if self.game.outcome is None:
                raise

    async def _take_back(self, keep: int) -> None:
        """Keep the first ``keep`` plies (the deal's opening at least): the game, colours and
        clocks as they were after them, and both seats told the game again."""
        kept = self.plies[: max(keep, len(self.deal.opening))]
        self.game = Game(self.setup.rules)
        self.clock = self._new_clock()
        self.plies, self._told, self.colours = [], [], [None, None]
        for seat in self.seats:
            seat.info.colour = None
        for ply in kept:
            parsed = parse_ply(ply.move)
            self._play(ply.player, parsed.move, parsed.piece, ply.ms / 1000)
        self.plies = kept
        if kept:
            self.clock.remaining = [ms / 1000 for ms in kept[-1].clocks_ms]
        self.turn_started = time.monotonic()
        self._changed()
        await self._each(self._open, "neither engine answered the start of the game")

    # -- seats -----------------------------------------------------------------------

    async def _start(self, player: int) -> None:
        try:
            await self.seats[player].start()
        except ProtocolError as error:
            raise fault_of(player, error) from None
        except OSError as error:
            raise Fault(player, Reason.CRASH, f"could not start: {error}") from None

    async def _open(self, player: int) -> None:
        try:
            await self.seats[player].open(self.opening(player), self._told)
        except ProtocolError as error:
            raise fault_of(player, error) from None

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

    async def _close_seats(self) -> None:
        """Tell both seats the game is over and close them; a seat that stopped answering
        or owes a move is closed at once."""
        faults = faults_of(self.ending)
        at_once = {fault.player for fault in faults if fault.stopped_answering}
        if self._owing is not None:
            at_once.add(self._owing)
        result = None if faults else "end"

        async def close(player: int) -> None:
            with contextlib.suppress(Exception):
                await self.seats[player].close(result, at_once=player in at_once)

        await asyncio.shield(asyncio.gather(close(0), close(1)))

    # -- the end ---------------------------------------------------------------------

    def _build_record(self) -> GameRecord:
        infos = (self.seats[0].info, self.seats[1].info)
        return build_record(
            self.setup,
            self.deal,
            infos,
            self.plies,
            self._end(),
            self.started_at,
            datetime.now(UTC),
            opening_plies=len(self.deal.opening),
        )

    def _end(self) -> GameEnd:
        """How the game ended: void, a fault's, or the board's."""
        ending = self.ending
        if isinstance(ending, Void):
            return self._void_end(ending)
        if ending is not None:
            winner = 1 - ending.player
            return GameEnd(
                winner=winner,
                reason=ending.reason,
                result=ending.reason.result_words(self.label(winner), self.label(ending.player)),
                detail=ending.detail,
                stopped_answering=ending.stopped_answering,
            )
        outcome = self.game.outcome
        assert outcome is not None
        board_winner = None if outcome.winner is None else self.colours.index(outcome.winner)
        return GameEnd(
            winner=board_winner,
            reason=Reason.of_board_end(outcome.reason),
            result=outcome.description,
        )

    def _void_end(self, void: Void) -> GameEnd:
        """A void game: no winner, the first player's reason, both faults in words."""
        first = void.faults[0]
        what = "; ".join(f"{self.label(f.player)} {f.reason.loser_words}" for f in void.faults)
        return GameEnd(
            winner=None,
            reason=first.reason,
            result=f"void: {void.words} ({what})",
            detail="; ".join(f"{self.label(f.player)}: {f.detail}" for f in void.faults),
            stopped_answering=first.stopped_answering,
            void=True,
        )

    def _new_clock(self) -> Clock:
        return Clock((self.setup.time_control_of(0), self.setup.time_control_of(1)))

    def _changed(self) -> None:
        if self._on_change is not None:
            self._on_change()
