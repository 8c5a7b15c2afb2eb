"""Before a run's first game: does each engine start and answer the platform's handshake?

A run whose engine cannot work at all (a missing program, one that is not executable,
dies at start or never answers), or cannot play the run's rule set (one it must be told,
``must_be_told``, that it does not take), is stopped before any game, naming the engine,
its command and the cause, rather than played as a row of lost games.
"""

import asyncio
from collections.abc import Sequence
from typing import Final

from banqi_common.errors import InputError
from banqi_engine.rules import RuleSet
from protocol.connection import EngineConnection
from protocol.errors import EngineError
from protocol.messages import COMMAND_NAMES, Command, CommandId
from protocol.rules_told import must_be_told

from .engine_spec import EngineSpec
from .engine_start import EngineFactory

CHECKS_AT_ONCE: Final = 4
"""Engines started at the same time for the check."""


class EngineCheckError(InputError):
    """An engine that cannot play: it did not start or did not answer the handshake."""


async def check_engine(
    spec: EngineSpec, start_engine: EngineFactory, time_ms: int, timeout: float, rules: RuleSet
) -> None:
    """Start the engine, play the handshake of a game (``reset_board``, ``time_settings``,
    and, for ``rules`` it must be told, ``rule_set``; then ``ready``), and stop it;
    EngineCheckError says what went wrong."""
    where = f"engine {spec.name!r} ({spec.describe()})"
    try:
        engine = await start_engine(spec, None)
    except EngineError as error:
        cause = error.message.removeprefix(f"cannot start {list(spec.command)!r}: ")
        raise EngineCheckError(f"{where} cannot start: {cause}") from None
    except OSError as error:
        raise EngineCheckError(f"{where} cannot start: {error.strerror or error}") from None
    try:
        for command in (Command.reset_board(), Command.time_settings(time_ms), Command.ready()):
            reply = await engine.request(command, timeout)
            if not reply.ok:
                raise EngineCheckError(f"{where} refused '{command.line()}': {reply.payload}")
            if command.id is CommandId.TIME_SETTINGS and must_be_told(rules):
                await _check_rules_taken(engine, rules, where, timeout)
    except EngineError as error:
        raise EngineCheckError(f"{where} failed the handshake: {error.message}") from None
    finally:
        await engine.quit()


async def _check_rules_taken(
    engine: EngineConnection, rules: RuleSet, where: str, timeout: float
) -> None:
    """EngineCheckError unless the engine lists ``rule_set`` and takes ``rules``."""
    cannot = (
        f"{where} cannot play the rule set {rules.name!r}: moves onto face-down pieces must "
        "be told with the rule_set command (id 19) and are echoed with reveal_move (id 20)"
    )
    listed = await engine.request(Command.list_commands(), timeout)
    names = listed.payload.split() if listed.ok else []
    if COMMAND_NAMES[CommandId.RULE_SET] not in names:
        raise EngineCheckError(f"{cannot}, and its list_commands does not list rule_set")
    reply = await engine.request(Command.rule_set(rules), timeout)
    if not reply.ok:
        raise EngineCheckError(f"{cannot}, and it refused them: {reply.payload}")


async def check_engines(
    specs: Sequence[EngineSpec],
    start_engine: EngineFactory,
    time_ms: int,
    timeout: float,
    rules: RuleSet,
) -> None:
    """Check every engine (a few at once); raise the first failure in the given order."""
    gate = asyncio.Semaphore(CHECKS_AT_ONCE)

    async def check(spec: EngineSpec) -> None:
        async with gate:
            await check_engine(spec, start_engine, time_ms, timeout, rules)

    results = await asyncio.gather(*(check(spec) for spec in specs), return_exceptions=True)
    for result in results:
        if isinstance(result, BaseException):
            raise result
