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
from protocol.errors import EngineError
from protocol.rules_told import must_be_told
from protocol.session import CommandRefusedError, EngineSession, RulesNotTakenError

from .engine_spec import EngineSpec
from .engine_start import EngineFactory

CHECKS_AT_ONCE: Final = 4
"""Engines started at the same time for the check."""


class EngineCheckError(InputError):
    """An engine that cannot play: it did not start or did not answer the handshake."""


async def check_engine(
    spec: EngineSpec, start_engine: EngineFactory, time_ms: int, timeout: float, rules: RuleSet
) -> None:
    """Start the engine, play the start of a game as the referee does (``reset_board``,
    ``time_settings``, ``rules`` if it must be told them, ``ready``), and stop it;
    EngineCheckError says what went wrong."""
    where = f"engine {spec.name!r} ({spec.describe()})"
    try:
        connection = await start_engine(spec, None)
    except EngineError as error:
        cause = error.message.removeprefix(f"cannot start {list(spec.command)!r}: ")
        raise EngineCheckError(f"{where} cannot start: {cause}") from None
    except OSError as error:
        raise EngineCheckError(f"{where} cannot start: {error.strerror or error}") from None
    session = EngineSession(connection)
    try:
        await session.start_game(
            rules, time_ms, timeout, tell_rules=must_be_told(rules), strict=True
        )
    except CommandRefusedError as error:
        raise EngineCheckError(f"{where} {error.message}") from None
    except RulesNotTakenError as error:
        raise EngineCheckError(
            f"{where} cannot play the rule set {rules.name!r}: moves onto face-down pieces "
            "must be told with the rule_set command (id 19) and are echoed with reveal_move "
            f"(id 20), and {error.cause}"
        ) from None
    except EngineError as error:
        raise EngineCheckError(f"{where} failed the handshake: {error.message}") from None
    finally:
        await connection.quit()


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
