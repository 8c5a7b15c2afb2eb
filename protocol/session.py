"""One engine's side of a game, spoken as a DCTP driver: ``EngineSession``.

The one home of what a driver says to an engine (python-chess's ``Protocol``, gomill's
``Gtp_controller``): the start of a game (``reset_board``, ``time_settings``, the rule set
if it is not the platform's, ``ready``), the courtesy questions (``name``, ``version``,
with short forgiving timeouts), a move asked for (``genmove`` → a :class:`MoveAnswer`:
a flip, a move or a resignation, with the time it took), a ply told (its echo and
``time_left``), and the end (``game_over``, ``quit``). The referee's game, the board in
the browser, the check before a run, tuning and the synchronous API all speak through it.

It raises ``protocol.errors``: an :class:`~protocol.errors.EngineError` when the engine
fails to answer, :class:`RulesNotTakenError` when it does not take a rule set it must be
told. What such an error costs in a game is the referee's to say
(``referee.game_faults.fault_of``).
"""

import asyncio
import contextlib
import time
from dataclasses import dataclass
from typing import Final

from banqi_engine.moves import Move, is_flip
from banqi_engine.pieces import COLOUR_NAMES, UNDECIDED, Colour
from banqi_engine.rules import RuleSet

from .connection import EngineConnection
from .cpu import group_cpu_ticks
from .errors import EngineError, EngineTimeoutError, ProtocolError
from .messages import COMMAND_NAMES, Command, CommandId, Reply, parse_genmove_payload
from .rules_told import (
    DRAW_LIMITS,
    differing_fields,
    draw_limit_commands,
    must_be_told,
    untold_words,
)

OPTIONAL_TIMEOUT: Final = 1.0
"""Seconds to wait for an answer to a command the platform itself never sends."""
COURTESY_CHARS: Final = 200
"""The most of a ``name`` or ``version`` answer that is kept."""
GAME_OVER_TIMEOUT: Final = 1.0
"""Seconds an engine may take to acknowledge ``game_over``."""


class RulesNotTakenError(ProtocolError):
    """The engine did not take a rule set it must be told (``must_be_told``: moves onto
    face-down pieces, echoed with ``reveal_move``), so it cannot follow the game.

    ``str()`` says why in the referee's words (``untold_words``); ``cause`` says what the
    engine did: ``its list_commands does not list rule_set``, ``it refused them: …``."""

    def __init__(self, engine: str, rules: RuleSet, cause: str) -> None:
        super().__init__(untold_words(rules))
        self.engine = engine
        self.cause = cause


class CommandRefusedError(EngineError):
    """The engine answered a command of the start of a game with ``?<id>`` (only raised
    when the caller asks for a strict start, as the check before a run does)."""

    def __init__(self, engine: str, command: str, payload: str) -> None:
        super().__init__(engine, f"refused '{command}': {payload}")
        self.args = (engine, command, payload)
        self.command = command
        self.payload = payload


class EngineIdleError(EngineError):
    """The engine's process group used no CPU for ``idle`` seconds while it owed a move."""

    def __init__(self, engine: str, idle: float) -> None:
        super().__init__(engine, f"no move and no CPU used for {idle:g}s while thinking")
        self.args = (engine, idle)
        self.idle = idle


@dataclass(frozen=True)
class MoveAnswer:
    """A genmove answer, typed: ``move`` (a flip is ``flip_move(square)``), or a
    resignation; or why it cannot be read (``unreadable``). ``seconds`` is the time from
    sending ``genmove`` to the reply, ``network_seconds`` the part of the move's time its
    clock is credited back as the network's (an engine relayed from elsewhere)."""

    move: Move | None
    seconds: float
    payload: str
    unreadable: str | None = None
    network_seconds: float = 0.0

    @property
    def resigned(self) -> bool:
        """Whether the engine resigned (``a0 a0``)."""
        return self.move is None and self.unreadable is None

    @property
    def is_flip(self) -> bool:
        """Whether the answer is a flip."""
        return self.move is not None and is_flip(self.move)


@dataclass
class EngineIdentity:
    """What an engine says of itself at the start of a game, if anything."""

    name: str | None = None
    version: str | None = None


def genmove_colour(side: Colour) -> str:
    """The word ``genmove`` names the side to move by: ``unknown`` before the first flip."""
    return "unknown" if side == UNDECIDED else COLOUR_NAMES[side]


class EngineSession:
    """A DCTP engine spoken to as a platform speaks to it, over one connection."""

    def __init__(self, connection: EngineConnection) -> None:
        self.connection = connection

    @property
    def name(self) -> str:
        """The engine's name, as used in errors."""
        return self.connection.name

    async def ask(self, command: Command, timeout: float | None) -> Reply:
        """Send one command and return its reply; ``EngineError`` says how it failed."""
        return await self.connection.request(command, timeout)

    async def start_game(
        self,
        rules: RuleSet,
        time_ms: int,
        timeout: float,
        *,
        tell_rules: bool = True,
        strict: bool = False,
    ) -> bool | None:
        """The platform's start of a game, with the rules: ``reset_board``,
        ``time_settings``, the rule set if it differs from the platform's (and
        ``tell_rules``), ``ready``. Returns whether the engine took every rule that
        differs (None when none was told).

        ``strict``: a ``?`` answer to one of the platform's commands is a
        CommandRefusedError (a game tolerates it). RulesNotTakenError if the engine did
        not take rules it must be told.
        """
        told: bool | None = None
        for command in (Command.reset_board(), Command.time_settings(time_ms)):
            await self._required(command, timeout, strict)
        if tell_rules and differing_fields(rules):
            told = await self._tell_rules(rules, timeout)
        await self._required(Command.ready(), timeout, strict)
        return told

    async def identify(self, timeout: float) -> EngineIdentity:
        """Ask ``name`` and ``version``: silence costs ``OPTIONAL_TIMEOUT`` each, not the
        game."""
        return EngineIdentity(
            name=await self._courtesy(Command.name(), timeout),
            version=await self._courtesy(Command.version(), timeout),
        )

    async def genmove(
        self,
        side: Colour,
        timeout: float,
        *,
        idle_limit: float | None = None,
        deadline: float | None = None,
    ) -> MoveAnswer:
        """Ask for a move and wait ``timeout`` seconds at most. With an ``idle_limit``, an
        engine whose process group uses no CPU that long before the monotonic
        ``deadline`` raises EngineIdleError."""
        command = Command.genmove(genmove_colour(side))
        started = time.monotonic()
        request = self.connection.request(command, timeout)
        pid = self.connection.pid
        if idle_limit is None or pid is None or deadline is None:
            reply = await request
        else:
            reply = await self._watch_cpu(asyncio.ensure_future(request), pid, idle_limit, deadline)
        seconds = time.monotonic() - started
        if not reply.ok:
            return MoveAnswer(
                None, seconds, reply.payload, f"genmove failed: ?{reply.id} {reply.payload}"
            )
        try:
            answer = parse_genmove_payload(reply.payload)
        except ProtocolError as error:
            return MoveAnswer(None, seconds, reply.payload, str(error))
        return MoveAnswer(answer.move, seconds, reply.payload)

    async def tell_move_limit(self, side: Colour, ms: int, timeout: float) -> None:
        """Before a genmove, ``time_left`` with the time the mover may use for this move,
        as the referee tells a per-move limit: for both colours while they are undecided."""
        colours = COLOUR_NAMES if side == UNDECIDED else (COLOUR_NAMES[side],)
        for colour in colours:
            await self.ask(Command.time_left(colour, ms), timeout)

    async def tell_ply(self, echo: Command, time_left: Command | None, timeout: float) -> None:
        """Tell a ply: its echo (``move``, ``flip`` or ``reveal_move``), then the mover's
        ``time_left`` (None before colours are known)."""
        await self.ask(echo, timeout)
        if time_left is not None:
            await self.ask(time_left, timeout)

    async def end_game(self, words: str | None) -> None:
        """``game_over`` (if ``words``; any failure to answer it is forgiven), then ``quit``
        and whatever it takes to end the process."""
        if words is not None:
            with contextlib.suppress(Exception):
                await self.ask(Command.game_over(words), GAME_OVER_TIMEOUT)
        await self.connection.quit()

    async def kill(self) -> None:
        """End the engine at once (it owes a reply that will never be read)."""
        await self.connection.kill()

    # -- the parts -------------------------------------------------------------------

    async def _required(self, command: Command, timeout: float, strict: bool) -> None:
        reply = await self.ask(command, timeout)
        if strict and not reply.ok:
            raise CommandRefusedError(self.name, command.line(), reply.payload)

    async def _tell_rules(self, rules: RuleSet, timeout: float) -> bool:
        """``rule_set`` to an engine that lists it when the rules differ in more than their
        draw limits; otherwise, or if it refuses, the draw-limit commands. Whether the
        engine took every field that differs; RulesNotTakenError if it must have."""
        beyond_draw_limits = bool(differing_fields(rules) - DRAW_LIMITS)
        cause = ""
        if beyond_draw_limits:
            listed = await self._optional(Command.list_commands(), timeout)
            names = listed.payload.split() if listed is not None and listed.ok else []
            cause = "its list_commands does not list rule_set"
            if COMMAND_NAMES[CommandId.RULE_SET] in names:
                told = await self._optional(Command.rule_set(rules), timeout)
                if told is not None and told.ok:
                    return True
                cause = "it did not answer" if told is None else f"it refused them: {told.payload}"
        accepted = True
        for command in draw_limit_commands(rules):
            reply = await self._optional(command, timeout)
            accepted = accepted and reply is not None and reply.ok
        if beyond_draw_limits and must_be_told(rules):
            raise RulesNotTakenError(self.name, rules, cause)
        return accepted and not beyond_draw_limits

    async def _optional(self, command: Command, timeout: float) -> Reply | None:
        """A command the engine may leave unanswered: None after ``OPTIONAL_TIMEOUT``
        (or ``timeout``, if shorter); any other failure is raised."""
        wait = min(OPTIONAL_TIMEOUT, timeout)
        try:
            return await self.ask(command, wait)
        except EngineError as error:
            if isinstance(error, EngineTimeoutError):
                return None
            raise

    async def _courtesy(self, command: Command, timeout: float) -> str | None:
        reply = await self._optional(command, timeout)
        if reply is not None and reply.ok and reply.payload:
            return reply.payload.strip()[:COURTESY_CHARS]
        return None

    async def _watch_cpu(
        self, request: "asyncio.Future[Reply]", pid: int, idle: float, deadline: float
    ) -> Reply:
        """Await ``request``, ending it by EngineIdleError once the engine's processes have
        used no CPU for ``idle`` seconds before ``deadline``."""
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
                raise EngineIdleError(self.name, idle)
