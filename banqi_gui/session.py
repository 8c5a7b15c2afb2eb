"""One game played in the browser: the hidden layout, judging, clocks, the engine's turns.

The server holds the layout (shuffled from a fresh secret, as the referee deals) and
judges every action with :class:`banqi_engine.game.Game`. A flip is asked for by its
square alone (``b6``), a move onto a face-down piece (where the rules allow it) by its
two squares alone (``a2-a3``); the piece either one turns up is taken from the layout
(``Game.piece_shown``) only once the action is legal, and the ply is recorded with it
(``b6(K)``, ``a2-a3(k)``). Nothing the page is sent shows a face-down piece: the layout
only once the game is over. The finished game is saved as a record (JSON and platform
text) in ``<out>/games/``.

An engine that does not take a rule set it must be told (``must_be_told``: moves onto
face-down pieces) is not seated: the new game is refused, saying why.
"""

import asyncio
import logging
import secrets
import time
from datetime import UTC, datetime
from typing import Any, Final

from banqi_engine.errors import MoveError
from banqi_engine.game import Game
from banqi_engine.moves import Move, is_flip, move_from, move_to
from banqi_engine.notation import Ply, format_move, parse_ply
from banqi_engine.pieces import (
    COLOUR_NAMES,
    SQUARE_LETTERS,
    UNDECIDED,
    Colour,
    Piece,
    colour_of,
    opponent,
)
from banqi_engine.squares import square_name
from protocol.errors import (
    EngineError,
    EnginePipeClosedError,
    EngineStartError,
    EngineTerminatedError,
    EngineTimeoutError,
    ProtocolError,
)
from protocol.messages import Command, parse_genmove_payload
from protocol.rules_told import must_be_told
from referee.deals import layout_from_secret
from referee.engine_spec import EngineSpec
from referee.game_setup import GameSetup
from referee.reasons import Reason
from referee.record import GameEnd, GameRecord, PlyRecord, build_record, player_info
from referee.storage import save_game
from referee.timecontrol import Clock

from .board_view import add_taken, board_letters, legal_actions, no_captures, taken_piece
from .engine_seat import STALL_TIMEOUT, EngineSeat, RulesRefusedError
from .play_settings import EngineChoice, PlayOptions, PlaySettings

ENGINE_SEAT: Final = 1
"""Against an engine, the person is player 0 and the engine player 1."""
PERSON_COMMAND: Final = ("(person)",)
"""The command a person's seat has in a record."""
UNTIMED_MOVE_WAIT: Final = 120.0
"""Seconds an untimed engine may think before it counts as having stopped answering."""
HINT_SECONDS: Final = 10.0
"""Seconds an engine may think about a hint."""

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
    """A game between a person and an engine, or two people, judged by the server."""

    def __init__(
        self, settings: PlaySettings, options: PlayOptions, engine: EngineChoice | None
    ) -> None:
        self.id = secrets.token_urlsafe(16)
        self.settings = settings
        self.rules = settings.rule_set()
        self.control = settings.time_control()
        self.options = options
        self.engine_choice = engine
        self.started_at = datetime.now(UTC)
        self.game_id = f"gui-{self.started_at:%Y%m%d-%H%M%S}-{secrets.token_hex(3)}"
        self._secret = fresh_secret()
        self._layout = layout_from_secret(self._secret)
        self.first = {"you": 0, "opponent": 1}.get(settings.first, secrets.randbelow(2))
        if engine is None:
            persons = ("player 1", "player 2")
            self.specs = tuple(EngineSpec(name=name, command=PERSON_COMMAND) for name in persons)
            self.engine: EngineSeat | None = None
        else:
            self.specs = (EngineSpec(name="you", command=PERSON_COMMAND), engine.spec)
            self.engine = self._seat(engine.spec)
        self.infos = [player_info(spec) for spec in self.specs]
        if self.engine is not None:
            self.infos[ENGINE_SEAT] = self.engine.info
        self._advisor: EngineSeat | None = None
        self.game = Game(self.rules)
        self.plies: list[PlyRecord] = []
        self.captured = no_captures()
        self.colours: list[Colour | None] = [None, None]
        self.clock = Clock((self.control, self.control))
        self._turn_start = time.monotonic()
        self.end: GameEnd | None = None
        self.record: GameRecord | None = None
        self.hint: str | None = None
        self.version = 0
        self._changed = asyncio.Event()
        self._lock = asyncio.Lock()
        self._task: asyncio.Task[None] | None = None
        self._chores: set[asyncio.Task[None]] = set()

    def _seat(self, spec: EngineSpec) -> EngineSeat:
        return EngineSeat(spec, self.options.factory, self.rules, self.control)

    # -- whose turn ------------------------------------------------------------------

    @property
    def mover(self) -> int:
        """The player to move: the first player on even plies."""
        return self.first if len(self.plies) % 2 == 0 else 1 - self.first

    def is_person(self, player: int) -> bool:
        """Whether a person plays this seat."""
        return self.engine is None or player != ENGINE_SEAT

    @property
    def thinking(self) -> bool:
        """Whether the engine is on move and thinking."""
        return self.end is None and not self.is_person(self.mover)

    def _label(self, player: int) -> str:
        colour = self.colours[player]
        return COLOUR_NAMES[colour] if colour is not None else self.specs[player].name

    def _changed_now(self) -> None:
        self.version += 1
        self._changed.set()
        self._changed = asyncio.Event()

    async def wait_change(self, version: int, timeout: float) -> None:
        """Return once the game is past ``version``, or after ``timeout`` seconds."""
        self.check_time()
        if version != self.version or self.end is not None:
            return
        changed = self._changed
        if self.settings.timed and self.is_person(self.mover):  # wake up when time runs out
            left = self.clock.allowance(self.mover) - (time.monotonic() - self._turn_start)
            timeout = min(timeout, max(0.0, left) + 0.05)
        try:
            async with asyncio.timeout(timeout):
                await changed.wait()
        except TimeoutError:
            self.check_time()

    # -- the person's actions --------------------------------------------------------

    async def seat_engine(self) -> None:
        """Under a rule set the engine must be told, start it now and have it take the
        rules: SessionError (the game closed) if it does not, rather than a game it cannot
        follow. (Otherwise the engine starts with its first turn, as before.)"""
        if self.engine is None or not must_be_told(self.rules):
            return
        try:
            await self.engine.sync(self.plies, self.colours)
        except RulesRefusedError as error:
            await self.close()
            raise SessionError(
                422, f"{self.engine.spec.name} cannot play these rules: {error}"
            ) from None
        except EngineError as error:
            await self.engine.kill()
            self._engine_fault(error, None)
        self._turn_start = time.monotonic()  # the person's clock starts once it is seated

    def start(self) -> None:
        """Start the engine (and its first move, if it flips first)."""
        self._kick()

    async def act(self, text: str) -> None:
        """Play the person's action: ``a2-a3`` (a move, a capture, or a move onto a
        face-down piece), or a flip by its square alone (``b6``). The piece a flip or a
        move onto a face-down piece turns up comes from the layout, never from the page."""
        async with self._lock:
            self._ready_for_person()
            try:
                ply = parse_ply(text)
            except MoveError as error:
                raise SessionError(400, str(error)) from None
            if ply.piece is not None or "(" in text:
                if ply.is_flip:
                    words = f"a flip is sent as its square alone, like b6, not {text}"
                else:
                    words = (
                        "a move onto a face-down piece is sent as its two squares alone, "
                        f"like {format_move(ply.move)}, not {text}: the piece it turns up "
                        "is the layout's"
                    )
                raise SessionError(400, words)
            mover = self.mover
            piece = self._piece_shown(ply.move)
            if ply.is_flip and piece is None:
                where = square_name(move_from(ply.move))
                raise SessionError(400, f"cannot flip {where}: it is not face down")
            try:
                self.game.check(ply.move, piece)
            except MoveError as error:
                raise SessionError(400, str(error)) from None
            elapsed = time.monotonic() - self._turn_start
            if not self.clock.charge(mover, elapsed):
                self._lose_on_time(mover, elapsed)
                return
            self._apply(mover, ply.move, piece, elapsed)
            self._kick()

    def _piece_shown(self, move: Move) -> Piece | None:
        """The layout's piece that ``move`` turns up: a flip's, or a move onto a face-down
        piece's (None if it turns nothing up; the rules then refuse a flip without it)."""
        return self.game.piece_shown(move, self._layout)

    def _ready_for_person(self) -> None:
        """Refuse unless the game is on and a person is to move."""
        self.check_time()
        if self.end is not None:
            raise SessionError(409, f"the game is over: {self.end.result}")
        if not self.is_person(self.mover):
            raise SessionError(409, "it is the engine's turn: wait for its move")

    async def undo(self) -> None:
        """Take back the person's last ply and the engine's reply (between two people, the
        last ply)."""
        async with self._lock:
            self._ready_for_person()
            await self._settle()
            keep = len(self.plies)
            while keep and not self.is_person(self.plies[keep - 1].player):
                keep -= 1
            if keep == 0:
                raise SessionError(409, "there is no move of yours to take back")
            del self.plies[keep - 1 :]
            self._replay()
            self._changed_now()
            self._kick()

    async def resign(self) -> None:
        """The person to move (against an engine: the person) resigns."""
        async with self._lock:
            self.check_time()
            if self.end is not None:
                raise SessionError(409, f"the game is over: {self.end.result}")
            loser = 0 if self.engine is not None else self.mover
            winner = 1 - loser
            self._finish(
                GameEnd(
                    winner=winner,
                    reason=Reason.RESIGN,
                    result=f"{self._label(winner)} wins: {self._label(loser)} resigned",
                    detail="resigned at the board",
                )
            )

    async def ask_hint(self) -> str:
        """The move an engine suggests for the person to move (a flip as its square, a move
        onto a face-down piece as its two squares: no piece is shown)."""
        async with self._lock:
            self._ready_for_person()
            await self._settle()
            if self._advisor is None and self.engine is None:
                self._advisor = self._seat(self.options.advisor().spec)
            adviser = self.engine or self._advisor
            assert adviser is not None
            side = self.game.side
            try:
                await adviser.sync(self.plies, self.colours)
                reply = await adviser.ask(
                    Command.genmove("unknown" if side == UNDECIDED else COLOUR_NAMES[side]),
                    HINT_SECONDS + STALL_TIMEOUT,
                )
                if not reply.ok:
                    raise SessionError(502, f"the engine gave no hint: ?{reply.id} {reply.payload}")
                answer = parse_genmove_payload(reply.payload)
            except (EngineError, ProtocolError) as error:
                await adviser.kill()
                raise SessionError(502, f"the engine gave no hint: {error}") from None
            except RulesRefusedError as error:
                raise SessionError(
                    409, f"{adviser.spec.name} cannot give hints under these rules: {error}"
                ) from None
            if answer.move is None:
                raise SessionError(502, "the engine would resign here: it has no hint")
            try:
                self.game.check(answer.move, self._piece_shown(answer.move))
            except MoveError as error:
                raise SessionError(502, f"the engine suggested an illegal move: {error}") from None
            self.hint = format_move(answer.move)
            self._changed_now()
            return self.hint

    def check_time(self) -> None:
        """End the game if the person to move has run out of time."""
        if self.end is not None or not self.settings.timed or not self.is_person(self.mover):
            return
        elapsed = time.monotonic() - self._turn_start
        if elapsed > self.clock.allowance(self.mover):
            self.clock.charge(self.mover, elapsed)
            self._lose_on_time(self.mover, elapsed)

    # -- plies and the end -----------------------------------------------------------

    def _apply(self, player: int, move: Move, piece: Piece | None, elapsed: float) -> None:
        """Play a judged ply and note it: record line, strips, colours, clocks."""
        ply = Ply(move, piece)
        self.captured = add_taken(self.captured, taken_piece(self.game.position, ply, self.rules))
        if is_flip(move) and piece is not None and self.colours[player] is None:
            self.colours[player] = colour_of(piece)
            self.colours[1 - player] = opponent(colour_of(piece))
            for seat in (0, 1):
                self.infos[seat].colour = "red" if self.colours[seat] == 0 else "black"
        outcome = self.game.play(move, piece)
        clocks = (self.clock.remaining_ms(0), self.clock.remaining_ms(1))
        self.plies.append(
            PlyRecord(player=player, move=str(ply), ms=round(elapsed * 1000), clocks_ms=clocks)
        )
        self._turn_start = time.monotonic()
        self.hint = None
        if outcome is not None:
            winner = None
            if outcome.winner is not None:
                winner = self.colours.index(outcome.winner)
            self._finish(
                GameEnd(
                    winner=winner,
                    reason=Reason.of_board_end(outcome.reason),
                    result=outcome.description,
                )
            )
        self._changed_now()

    def _replay(self) -> None:
        """Rebuild the game, strips, colours and clocks from the plies kept (after an undo)."""
        plies = self.plies
        self.plies = []
        self.game = Game(self.rules)
        self.captured = no_captures()
        self.colours = [None, None]
        for info in self.infos:
            info.colour = None
        for ply in plies:
            parsed = parse_ply(ply.move)
            self._apply(ply.player, parsed.move, parsed.piece, ply.ms / 1000)
        self.plies = plies
        self.clock = Clock((self.control, self.control))
        if plies:
            self.clock.remaining = [ms / 1000 for ms in plies[-1].clocks_ms]
        self._turn_start = time.monotonic()

    def _lose_on_time(self, player: int, elapsed: float) -> None:
        winner = 1 - player
        self._finish(
            GameEnd(
                winner=winner,
                reason=Reason.TIME_FORFEIT,
                result=f"{self._label(winner)} wins: {self._label(player)} "
                f"{Reason.TIME_FORFEIT.loser_words}",
                detail=f"no move within {elapsed:.1f}s ({self.clock.left_words(player)} before)",
            )
        )

    def _finish(self, end: GameEnd) -> None:
        """End the game (once): build and save its record, stop the engines."""
        if self.end is not None:
            return
        self.end = end
        setup = GameSetup(
            game_id=self.game_id,
            rules=self.rules,
            time_control=self.control,
            players=(self.specs[0], self.specs[1]),
            first=self.first,
            seed=0,
            deal="1",
        )
        self.record = build_record(
            setup,
            self._secret,
            (self.infos[0], self.infos[1]),
            self.plies,
            end,
            self.started_at,
            datetime.now(UTC),
        )
        self._chore(self._save(self.record))
        self._chore(self.close())
        self._changed_now()

    async def _save(self, record: GameRecord) -> None:
        try:
            await asyncio.to_thread(save_game, self.options.out, record)
        except OSError as error:
            log.warning("cannot save the record of %s: %s", record.game_id, error)

    def _chore(self, work: Any) -> None:
        task = asyncio.ensure_future(work)
        self._chores.add(task)
        task.add_done_callback(self._chores.discard)

    async def close(self) -> None:
        """Stop the engines (a thinking one at once)."""
        busy = self._task is not None and not self._task.done()
        if self._task is not None and busy:
            self._task.cancel()
            await asyncio.gather(self._task, return_exceptions=True)
        if self.engine is not None:
            await (self.engine.kill() if busy else self.engine.stop())
        if self._advisor is not None:
            await self._advisor.stop()

    # -- the engine's turns ----------------------------------------------------------

    def _kick(self) -> None:
        """Have the engine catch up with the game and move when it is on move."""
        if (
            self.engine is not None
            and self.end is None
            and (self._task is None or self._task.done())
        ):
            self._task = asyncio.ensure_future(self._engine_turns())

    async def _settle(self) -> None:
        """Wait for the engine to hear the last ply (the person being on move)."""
        if self._task is not None and not self._task.done():
            await asyncio.gather(self._task, return_exceptions=True)

    async def _engine_turns(self) -> None:
        engine = self.engine
        assert engine is not None
        while self.end is None:
            try:
                await engine.sync(self.plies, self.colours)
            except EngineError as error:
                await engine.kill()
                self._engine_fault(error, None)
                return
            except RulesRefusedError as error:  # as the referee: it loses, rules refused
                self._fault(Reason.RULES_REFUSED, str(error))
                return
            if engine.heard < len(self.plies):
                continue  # the person moved meanwhile
            if self.end is not None or self.is_person(self.mover):
                return
            await self._engine_move(engine)

    async def _engine_move(self, engine: EngineSeat) -> None:
        """Ask for the engine's move, judge it and play it; a fault ends the game."""
        player = ENGINE_SEAT
        side = self.game.side
        colour = "unknown" if side == UNDECIDED else COLOUR_NAMES[side]
        command = Command.genmove(colour)
        allowance = self.clock.allowance(player)
        wait = allowance + STALL_TIMEOUT if self.settings.timed else UNTIMED_MOVE_WAIT
        started = time.monotonic()
        try:
            if self.control.move_time is not None:
                for told in ("red", "black") if side == UNDECIDED else (colour,):
                    await engine.ask(
                        Command.time_left(told, self.clock.limit_ms(player)), STALL_TIMEOUT
                    )
            reply = await engine.ask(command, wait)
        except EngineError as error:
            await engine.kill()
            self._engine_fault(error, command)
            return
        elapsed = time.monotonic() - started
        if self.end is not None:
            return
        if not self.clock.charge(player, elapsed) and self.settings.timed:
            self._lose_on_time(player, elapsed)
            return
        try:
            if not reply.ok:
                raise ProtocolError(f"genmove failed: ?{reply.id} {reply.payload}")
            answer = parse_genmove_payload(reply.payload)
        except ProtocolError as error:
            self._fault(Reason.UNREADABLE_REPLY, str(error))
            return
        if answer.move is None:
            self._fault(Reason.RESIGN, "resigned (a0 a0)")
            return
        piece = self._piece_shown(answer.move)
        try:
            self.game.check(answer.move, piece)
        except MoveError as error:
            self._fault(Reason.ILLEGAL_MOVE, f"{reply.payload.strip()}: {error}")
            return
        self._apply(player, answer.move, piece, elapsed)

    def _engine_fault(self, error: EngineError, genmove: Command | None) -> None:
        """The engine failed to answer: the one mapping of the referee's reasons."""
        if isinstance(error, EngineTimeoutError):
            reason = Reason.TIME_FORFEIT if genmove is not None else Reason.STALL
            self._fault(reason, f"no reply within {error.timeout:g}s", stopped_answering=True)
        elif isinstance(error, EngineStartError | EngineTerminatedError | EnginePipeClosedError):
            self._fault(Reason.CRASH, str(error))
        else:
            self._fault(Reason.UNREADABLE_REPLY, str(error))

    def _fault(self, reason: Reason, detail: str, *, stopped_answering: bool = False) -> None:
        winner = 1 - ENGINE_SEAT
        self._finish(
            GameEnd(
                winner=winner,
                reason=reason,
                result=f"{self._label(winner)} wins: "
                f"{self._label(ENGINE_SEAT)} {reason.loser_words}",
                detail=detail,
                stopped_answering=stopped_answering,
            )
        )

    # -- what the page is sent -------------------------------------------------------

    def view(self) -> dict[str, Any]:
        """The public state of the game (no face-down piece; the layout once it is over)."""
        self.check_time()
        over = self.end
        person_on_move = over is None and self.is_person(self.mover)
        last = None
        if self.plies:
            parsed = parse_ply(self.plies[-1].move)
            last = {
                "from": square_name(move_from(parsed.move)),
                "to": square_name(move_to(parsed.move)),
            }
        side = self.game.side
        return {
            "id": self.id,
            "game_id": self.game_id,
            "version": self.version,
            "mode": self.settings.mode,
            "engine": None
            if self.engine_choice is None
            else {"id": self.engine_choice.id, "label": self.engine_choice.label},
            "rules": self.rules.model_dump(),
            "players": [
                {
                    "name": self.specs[seat].name,
                    "person": self.is_person(seat),
                    "colour": self.infos[seat].colour,
                }
                for seat in (0, 1)
            ],
            "first": self.first,
            "board": board_letters(self.game.position),
            "to_move": None if over is not None else self.mover,
            "side": None if side == UNDECIDED or over is not None else COLOUR_NAMES[side],
            "plies": [{"player": ply.player, "move": ply.move} for ply in self.plies],
            "last": last,
            "legal": legal_actions(self.game) if person_on_move else {},
            "captured": self.captured,
            "clocks": self._clocks(),
            "move_time": self.control.move_time,
            "thinking": self.thinking,
            "hint": self.hint,
            "can_undo": person_on_move and any(self.is_person(ply.player) for ply in self.plies),
            "no_progress": self.game.position.no_progress,
            "over": None
            if over is None
            else {
                "result": over.result,
                "reason": over.reason.value,
                "reason_words": "the loser resigned"
                if over.reason is Reason.RESIGN
                else over.reason.meaning,
                "winner": over.winner,
                "detail": over.detail,
            },
            "layout": None
            if over is None
            else "".join(SQUARE_LETTERS[piece] for piece in self._layout),
        }

    def _clocks(self) -> dict[str, Any] | None:
        """Both clocks in ms, the one on move counting down; None when the game has no clock."""
        if self.settings.time is None:
            return None
        remaining = [self.clock.remaining[0], self.clock.remaining[1]]
        running = None
        if self.end is None:
            running = self.mover
            remaining[running] -= time.monotonic() - self._turn_start
        return {"ms": [max(0, round(r * 1000)) for r in remaining], "running": running}
