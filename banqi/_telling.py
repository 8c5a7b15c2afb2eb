"""Telling an engine the game to move in, as a platform does, and only what it lacks.

A game starts with the platform's start (``EngineSession.start_game``: ``reset_board``,
``time_settings``, the rules, ``ready``), then ``init_board`` if it does not start from
the opening (to an engine whose ``list_commands`` lists it), then each ply as its echo
(``protocol.echo.echo_command``). A game that goes on from the one told last is told
only its new plies, so the engine sees one game move after move, as in a real game.
"""

from dataclasses import dataclass

from banqi_engine.game import Game
from banqi_engine.notation import Ply
from banqi_engine.position import Position
from banqi_engine.rules import RuleSet
from protocol.echo import echo_command
from protocol.messages import COMMAND_NAMES, Command, CommandId
from protocol.session import EngineSession

from .errors import PositionNotSupportedError, PositionRefusedError

OPENING: str = Position.opening().to_string()


@dataclass(frozen=True)
class ToldGame:
    """What the engine has been told of its game: the start and the plies since."""

    start: str
    plies: tuple[Ply, ...]

    def continued_by(self, game: Game) -> bool:
        """Whether ``game`` is this one with plies added (or none)."""
        count = len(self.plies)
        return game.start.to_string() == self.start and tuple(game.plies[:count]) == self.plies


class Teller:
    """Tells one engine, through its session, the game it is asked to move in."""

    def __init__(self, session: EngineSession, rules: RuleSet, timeout: float) -> None:
        self.session = session
        self.rules = rules
        self.timeout = timeout
        self.told: ToldGame | None = None
        """None until a game is told, and again after anything went wrong."""
        self._commands: list[str] | None = None

    async def tell(self, game: Game, time_ms: int) -> None:
        """Bring the engine to ``game``: a new game (with ``time_ms`` for ``time_settings``)
        unless ``game`` continues the one told, then the plies it has not heard."""
        told, self.told = self.told, None
        if told is None or not told.continued_by(game):
            await self._new_game(game.start, time_ms)
            told = ToldGame(game.start.to_string(), ())
        replay = Game(self.rules, game.start, play_past_end=True)
        for ply in told.plies:
            replay.play_ply(ply)
        for ply in game.plies[len(told.plies) :]:
            await self._echo(replay, ply)
        self.told = ToldGame(told.start, tuple(game.plies))

    async def _new_game(self, start: Position, time_ms: int) -> None:
        await self.session.start_game(self.rules, time_ms, self.timeout)
        position = start.to_string()
        if position == OPENING:
            return
        if COMMAND_NAMES[CommandId.INIT_BOARD] not in await self._listed():
            raise PositionNotSupportedError(
                self.session.name,
                "its list_commands does not list init_board, so it cannot be told a position "
                "other than the opening; give it a Game played from the opening instead",
            )
        await self._ask(Command.init_board(position))

    async def _echo(self, replay: Game, ply: Ply) -> None:
        echo = echo_command(replay.position, self.rules, ply.move, ply.piece)
        await self._ask(echo)
        replay.play(ply.move, ply.piece)

    async def _ask(self, command: Command) -> None:
        """Send ``command``; PositionRefusedError if the engine answers ``?``."""
        reply = await self.session.ask(command, self.timeout)
        if not reply.ok:
            raise PositionRefusedError(self.session.name, command.line(), reply.payload)

    async def _listed(self) -> list[str]:
        """The engine's ``list_commands`` (asked once; nothing if it refuses)."""
        if self._commands is None:
            reply = await self.session.ask(Command.list_commands(), self.timeout)
            self._commands = reply.payload.split() if reply.ok else []
        return self._commands
