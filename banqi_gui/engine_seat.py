"""One engine of a play session: started by the referee's engine factory (sandboxed as the
referee starts engines), told the rules, and kept in step with the game by echoes.

The engine learns the game only as DCTP tells it: ``move``/``flip``/``reveal_move``
echoes (as the referee echoes them, ``protocol.echo``: a flip or a move onto a face-down
piece with the piece it turned up) and ``time_left`` after each ply. After an undo it is
re-synchronised by the protocol: ``reset_board``, the start of a game again, and the
echoes of the plies that remain; an engine that fails at that is started afresh.

A rule set the engine must be told (``protocol.rules_told.must_be_told``: moves onto
face-down pieces, echoed with ``reveal_move``) is one the engine must take, as the
referee requires: an engine that does not is not seated (``RulesRefusedError``).
"""

import asyncio
import contextlib
from collections.abc import Sequence
from typing import Final

from banqi_engine.game import Game
from banqi_engine.moves import is_flip
from banqi_engine.notation import parse_ply
from banqi_engine.pieces import COLOUR_NAMES, Colour, colour_of
from banqi_engine.rules import RuleSet
from protocol.connection import EngineConnection
from protocol.echo import echo_command
from protocol.errors import EngineError
from protocol.messages import COMMAND_NAMES, Command, CommandId, Reply
from protocol.rules_told import (
    DRAW_LIMITS,
    differing_fields,
    draw_limit_commands,
    must_be_told,
    untold_words,
)
from referee.engine_spec import EngineSpec
from referee.engine_start import EngineFactory
from referee.game_runner import OPTIONAL_TIMEOUT
from referee.record import PlayerInfo, PlyRecord, player_info
from referee.sandbox import Isolation
from referee.timecontrol import TimeControl

STALL_TIMEOUT: Final = 5.0
"""Seconds an engine gets to answer anything but genmove."""


class RulesRefusedError(Exception):
    """The engine did not take a rule set it must be told (``must_be_told``): it cannot
    follow the game's echoes, so it may not play or advise under it. The message says why
    (``untold_words``)."""


class EngineSeat:
    """A DCTP engine playing (or advising) in a play session."""

    def __init__(
        self, spec: EngineSpec, factory: EngineFactory, rules: RuleSet, control: TimeControl
    ) -> None:
        self.spec = spec
        self.info: PlayerInfo = player_info(spec)
        self._factory = factory
        self._rules = rules
        self._control = control
        self._engine: EngineConnection | None = None
        self._told: list[str] = []
        """The plies the engine has been told, as move strings."""
        self._game = Game(rules, play_past_end=True)
        """The game as the engine has been told it: the position each echo is made from."""

    @property
    def heard(self) -> int:
        """How many plies the engine has been told."""
        return len(self._told)

    async def ask(self, command: Command, timeout: float) -> Reply:
        """Send one command to the started engine; EngineError says how it failed."""
        assert self._engine is not None, "sync() starts the engine"
        return await self._engine.request(command, timeout=timeout)

    async def sync(self, plies: Sequence[PlyRecord], colours: Sequence[Colour | None]) -> None:
        """Start the engine if it is not running, then tell it the plies it has not heard
        yet; after an undo, the game again from its start (an engine that fails at that is
        started afresh). EngineError says how the engine failed; RulesRefusedError that it
        did not take a rule set it must be told (it is stopped then)."""
        moves = [ply.move for ply in plies]
        if self._engine is not None and moves[: len(self._told)] != self._told:
            try:
                await self._start_game()
            except EngineError:
                await self.kill()
            except RulesRefusedError:
                await self.stop()
                raise
        if self._engine is None:
            self._engine = await self._factory(self.spec, None)
            self.info.isolation = Isolation(self._engine.isolation)
            try:
                await self._start_game()
            except RulesRefusedError:
                await self.stop()
                raise
            self.info.engine_name = await self._courtesy(Command.name())
            self.info.version = await self._courtesy(Command.version())
        for ply in plies[len(self._told) :]:
            await self._echo(ply, colours)

    async def _start_game(self) -> None:
        """``reset_board``, ``time_settings``, the rules if they are not the platform's,
        ``ready``: the start of a game as the referee plays it (``_handshake``).
        RulesRefusedError if the engine did not take a rule set it must be told."""
        assert self._engine is not None
        self._told = []
        self._game = Game(self._rules, play_past_end=True)
        for command in (Command.reset_board(), Command.time_settings(self._control.time_ms)):
            await self._engine.request(command, timeout=STALL_TIMEOUT)
        if differing_fields(self._rules):
            self.info.rules_told = await self._tell_rules()
            if not self.info.rules_told and must_be_told(self._rules):
                raise RulesRefusedError(untold_words(self._rules))
        await self._engine.request(Command.ready(), timeout=STALL_TIMEOUT)

    async def _tell_rules(self) -> bool:
        """``rule_set`` to an engine that lists it, else (or if it refuses) the draw-limit
        commands; whether the engine took every rule that differs from the platform's."""
        rules = self._rules
        beyond_draw_limits = bool(differing_fields(rules) - DRAW_LIMITS)
        if beyond_draw_limits:
            listed = await self._optional(Command.list_commands())
            names = listed.payload.split() if listed is not None and listed.ok else []
            if COMMAND_NAMES[CommandId.RULE_SET] in names:
                told = await self._optional(Command.rule_set(rules))
                if told is not None and told.ok:
                    return True
        accepted = True
        for command in draw_limit_commands(rules):
            reply = await self._optional(command)
            accepted = accepted and reply is not None and reply.ok
        return accepted and not beyond_draw_limits

    async def _optional(self, command: Command) -> Reply | None:
        """A command the engine may leave unanswered (None then)."""
        assert self._engine is not None
        try:
            return await self._engine.request(command, timeout=OPTIONAL_TIMEOUT)
        except EngineError:
            return None

    async def _courtesy(self, command: Command) -> str | None:
        reply = await self._optional(command)
        if reply is not None and reply.ok and reply.payload:
            return reply.payload.strip()[:200]
        return None

    async def _echo(self, ply: PlyRecord, colours: Sequence[Colour | None]) -> None:
        """The echo of one ply (``move``, ``flip`` or ``reveal_move``, made from the
        position before it), then ``time_left`` for the colour that played it."""
        parsed = parse_ply(ply.move)
        echo = echo_command(self._game.position, self._rules, parsed.move, parsed.piece)
        self._game.play_ply(parsed)
        mover_colour = colours[ply.player]
        if mover_colour is None and is_flip(parsed.move) and parsed.piece is not None:
            mover_colour = colour_of(parsed.piece)  # the first flip: its mover takes its colour
        await self.ask(echo, STALL_TIMEOUT)
        if mover_colour is not None:
            clock = ply.clocks_ms[ply.player]
            await self.ask(Command.time_left(COLOUR_NAMES[mover_colour], clock), STALL_TIMEOUT)
        self._told.append(ply.move)

    async def stop(self) -> None:
        """End the engine process (``quit``, then whatever it takes)."""
        engine, self._engine = self._engine, None
        self._told = []
        if engine is not None:
            with contextlib.suppress(Exception):
                await asyncio.shield(engine.quit())

    async def kill(self) -> None:
        """End the engine at once (it owes a reply that will never be read)."""
        engine, self._engine = self._engine, None
        self._told = []
        if engine is not None:
            with contextlib.suppress(Exception):
                await asyncio.shield(engine.kill())
