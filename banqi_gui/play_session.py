"""One game played in the browser: the referee's game loop over a person's seat and an
engine's (or two people's), and what is the browser's own: the view, undo and hints.

The loop (:class:`referee.game_loop.GameLoop`) holds the layout (shuffled from a fresh
secret, as the referee deals), judges every ply, keeps the clocks and ends the game. A
person's action arrives from a request and goes to the loop through the person's seat. A
flip is asked for by its square alone (``b6``), a move onto a face-down piece (where the
rules allow it) by its two squares alone (``a2-a3``); the piece either one turns up is
the layout's, never the page's. Nothing the page is sent shows a face-down piece: the
layout only once the game is over. The finished game is saved as a record (JSON and
platform text) in ``<out>/games/``.

An engine that does not take a rule set it must be told (``must_be_told``: moves onto
face-down pieces) is not seated: the new game is refused, saying why.
"""

import asyncio
import logging
import secrets
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any, Final

from banqi_common.write_errors import WriteError
from banqi_engine.errors import MoveError
from banqi_engine.game import Game
from banqi_engine.moves import Move, move_from
from banqi_engine.notation import format_move, parse_ply
from banqi_engine.players import MAX_LEVEL, Player, make_player
from banqi_engine.squares import square_name
from referee.engine_spec import EngineSpec
from referee.game_faults import Fault
from referee.game_loop import GameLoop, LoopOptions
from referee.game_setup import GameSetup
from referee.reasons import Reason
from referee.record import GameRecord, player_info
from referee.seats import EngineSeat, PersonSeat, Resignation, Seat, TakeBack
from referee.storage import save_game

from .play_settings import EngineChoice, PlayOptions, PlaySettings
from .play_view import NO_UNDO_PAST_A_FLIP, SessionFacts, session_view, undo_keep

ENGINE_SEAT: Final = 1
"""Against an engine, the person is player 0 and the engine player 1."""
PERSON_COMMAND: Final = ("(person)",)
"""The command a person's seat has in a record."""
UNTIMED_MOVE_WAIT: Final = 120.0
"""Seconds an untimed engine may think before it counts as having stopped answering."""
HINT_SECONDS: Final = 1.0
"""Seconds the built-in full engine thinks about a hint."""
HINT_LEVEL: Final = MAX_LEVEL
"""Hints come from the built-in engine at its top level, whatever the opponent's level."""
SETTLE_SECONDS: Final = 30.0
"""The longest a request waits for the game loop to take in a person's action."""
SETTLE_POLL: Final = 0.005
"""Seconds between two looks at whether the loop has taken in an action."""
RESIGNED: Final = "resigned at the board"

log = logging.getLogger(__name__)


def fresh_secret() -> str:
    """A new game's secret, from which its layout is dealt (as the referee deals)."""
    return secrets.token_hex(32)


class SessionError(Exception):
    """A request the game refuses: an HTTP status and a message for the page."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.message = message


class PlaySession:
    """A game between a person and an engine, or two people, judged by the game loop."""

    def __init__(
        self, settings: PlaySettings, options: PlayOptions, engine: EngineChoice | None
    ) -> None:
        self.id = secrets.token_urlsafe(16)
        self.settings = settings
        self.options = options
        self.engine_choice = engine
        started = datetime.now(UTC)
        persons = ("player 1", "player 2") if engine is None else ("you",)
        specs = [EngineSpec(name=name, command=PERSON_COMMAND) for name in persons]
        own_time = None
        if engine is not None:
            specs.append(engine.spec)
            own_time = settings.engine_time_control()
        self.setup = GameSetup(
            game_id=f"gui-{started:%Y%m%d-%H%M%S}-{secrets.token_hex(3)}",
            rules=settings.rule_set(),
            time_control=settings.time_control(),
            players=(specs[0], specs[1]),
            first={"you": 0, "opponent": 1}.get(settings.first, secrets.randbelow(2)),
            seed=0,
            deal="1",
            own_time=(None, own_time),
        )
        you = PersonSeat(player_info(specs[0]))
        self.persons = {0: you}
        self.engine: EngineSeat | None = None
        seats: tuple[Seat, Seat]
        if engine is None:
            self.persons[1] = PersonSeat(player_info(specs[1]))
            seats = (you, self.persons[1])
        else:
            info = player_info(engine.spec, own_time)
            self.engine = EngineSeat(engine.spec, options.factory, info)
            seats = (you, self.engine)
        self.loop = GameLoop(
            self.setup,
            fresh_secret(),
            seats,
            options=LoopOptions(enforce_clock=settings.timed, untimed_wait=UNTIMED_MOVE_WAIT),
            on_change=self._changed_now,
        )
        self._adviser: Player | None = None
        self.hint: str | None = None
        self.version = 0
        self._changed = asyncio.Event()
        self._lock = asyncio.Lock()
        self._task: asyncio.Task[None] | None = None

    # -- what the page reads ---------------------------------------------------------

    @property
    def record(self) -> GameRecord | None:
        """The record, once the game is over."""
        return self.loop.record

    def is_person(self, player: int) -> bool:
        """Whether a person plays this seat."""
        return player in self.persons

    def view(self) -> dict[str, Any]:
        """The public state of the game (no face-down piece; the layout once it is over)."""
        facts = SessionFacts(
            self.id,
            self.version,
            self.settings,
            self.engine_choice,
            frozenset(self.persons),
            self.hint,
        )
        return session_view(self.loop, facts)

    def _changed_now(self) -> None:
        self.version += 1
        self.wake()

    def wake(self) -> None:
        """Every request waiting for a change returns now (with the state as it is)."""
        self._changed.set()
        self._changed = asyncio.Event()

    async def wait_change(self, version: int, timeout: float) -> None:
        """Return once the game is past ``version``, after ``timeout`` seconds, or once
        woken."""
        if version != self.version or self.record is not None:
            return
        changed = self._changed
        try:
            async with asyncio.timeout(timeout):
                await changed.wait()
        except TimeoutError:
            pass

    # -- the game's life -------------------------------------------------------------

    async def seat_engine(self) -> None:
        """Start the engine and tell it the start of the game: SessionError (the game
        closed) if it does not take rules it must be told, rather than a game it cannot
        follow."""
        await self.loop.open()
        ending = self.loop.ending
        if isinstance(ending, Fault) and ending.reason is Reason.RULES_REFUSED:
            name = self.setup.players[ending.player].name
            await self.close()
            raise SessionError(422, f"{name} cannot play these rules: {ending.detail}")

    def start(self) -> None:
        """Play the game in the background (the engine's first move, if it flips first)."""
        self._task = asyncio.ensure_future(self._play())

    async def _play(self) -> None:
        await self.loop.play()
        record = self.loop.record
        assert record is not None
        try:
            await asyncio.to_thread(save_game, self.options.out, record)
        except WriteError as error:
            log.warning("%s", error)

    async def close(self) -> None:
        """End the game (if it is still on, as abandoned) and stop the engines; a request
        waiting for a change of it returns."""
        if self._task is not None and not self._task.done():
            self._task.cancel()
            await asyncio.gather(self._task, return_exceptions=True)
        elif self._task is None and self.engine is not None:
            await self.engine.close(None, at_once=False)
        self.wake()

    # -- the person's actions --------------------------------------------------------

    async def act(self, text: str) -> None:
        """Play the person's action: ``a2-a3`` (a move, a capture, or a move onto a
        face-down piece), or a flip by its square alone (``b6``). The piece a flip or a
        move onto a face-down piece turns up comes from the layout, never from the page."""
        async with self._lock:
            seat = await self._person_on_move()
            try:
                ply = parse_ply(text)
            except MoveError as error:
                raise SessionError(400, str(error)) from None
            if ply.piece is not None or "(" in text:
                raise SessionError(400, _piece_named(ply.is_flip, format_move(ply.move), text))
            if ply.is_flip and self.loop.piece_shown(ply.move) is None:
                where = square_name(move_from(ply.move))
                raise SessionError(400, f"cannot flip {where}: it is not face down")
            try:
                self.loop.check(ply.move)
            except MoveError as error:
                raise SessionError(400, str(error)) from None
            played = len(self.loop.plies)
            self.hint = None  # before the ply: every state after it is without the hint
            self._submit(seat, ply.move)
            await self._settle(lambda: len(self.loop.plies) > played)

    async def undo(self) -> None:
        """Take back the person's last ply and the engine's reply (between two people, the
        last ply), never past a flip (``play_view.undo_keep``)."""
        async with self._lock:
            seat = await self._person_on_move()
            plies = self.loop.plies
            if not any(self.is_person(ply.player) for ply in plies):
                raise SessionError(409, "there is no move of yours to take back")
            keep = undo_keep(plies, frozenset(self.persons))
            if keep is None:
                raise SessionError(409, NO_UNDO_PAST_A_FLIP)
            self.hint = None
            self._submit(seat, TakeBack(keep))
            await self._settle(lambda: len(self.loop.plies) == keep and self._asking())

    async def resign(self) -> None:
        """The person to move (against an engine: the person) resigns."""
        async with self._lock:
            if self.loop.over:
                raise SessionError(409, f"the game is over: {self._result()}")
            loser = 0 if self.engine is not None else self.loop.mover
            seat = self.persons[loser]
            if seat.on_move.is_set():
                self._submit(seat, Resignation(RESIGNED))
            else:
                self.loop.stop(Fault(loser, Reason.RESIGN, RESIGNED))
            await self._settle(lambda: False)

    async def ask_hint(self) -> str:
        """The move the built-in full engine suggests, after a short think, for the person
        to move (a flip as its square, a move onto a face-down piece as its two squares: no
        piece is shown). It sees the game as the person does: no face-down piece."""
        async with self._lock:
            await self._person_on_move()
            rules = self.setup.rules
            if self._adviser is None:
                self._adviser = make_player(HINT_LEVEL, None, rules)
            game = Game(rules, play_past_end=True)
            for ply in self.loop.plies:
                game.play_ply(parse_ply(ply.move))
            move = await asyncio.to_thread(self._adviser.choose, game, HINT_SECONDS)
            self.hint = format_move(move)
            self._changed_now()
            return self.hint

    # -- the parts -------------------------------------------------------------------

    async def _person_on_move(self) -> PersonSeat:
        """The seat of the person to move, once the loop asks it; SessionError unless the
        game is on and a person is to move."""
        if self.loop.over:
            raise SessionError(409, f"the game is over: {self._result()}")
        seat = self.persons.get(self.loop.mover)
        if seat is None:
            raise SessionError(409, "it is the engine's turn: wait for its move")
        await self._settle(lambda: seat.on_move.is_set())
        if self.loop.over:
            raise SessionError(409, f"the game is over: {self._result()}")
        return seat

    def _submit(self, seat: PersonSeat, action: Move | TakeBack | Resignation) -> None:
        """Hand the action to the loop; SessionError 409 if the person's turn ended first
        (their time ran out between the request's checks and now)."""
        try:
            seat.submit(action)
        except RuntimeError:
            raise SessionError(409, f"the turn ended first: {self._result()}") from None

    def _asking(self) -> bool:
        """Whether the loop waits for a person's action."""
        return any(seat.on_move.is_set() for seat in self.persons.values())

    async def _settle(self, done: Callable[[], bool]) -> None:
        """Wait until ``done()``, the game is over (its record made) or its loop stopped;
        SessionError 503 after ``SETTLE_SECONDS``."""
        try:
            async with asyncio.timeout(SETTLE_SECONDS):
                while not done() and self.record is None:
                    if self._task is not None and self._task.done():
                        return
                    await asyncio.sleep(SETTLE_POLL)
        except TimeoutError:
            raise SessionError(503, "the game did not take the action in time") from None

    def _result(self) -> str:
        end = self.loop.end
        return end.result if end is not None else "it has ended"


def _piece_named(is_flip: bool, squares: str, text: str) -> str:
    """Why an action that names the piece it turns up is refused."""
    if is_flip:
        return f"a flip is sent as its square alone, like b6, not {text}"
    return (
        f"a move onto a face-down piece is sent as its two squares alone, like {squares}, "
        f"not {text}: the piece it turns up is the layout's"
    )
