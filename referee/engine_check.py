"""Before a run's first game: does each engine start and answer the platform's handshake?

A run whose engine cannot work at all (a missing program, one that is not executable,
dies at start or never answers) is stopped before any game, naming the engine, its
command and the cause, rather than played as a row of lost games.
"""

import asyncio
from collections.abc import Sequence
from typing import Final

from protocol.errors import EngineError
from protocol.messages import Command

from .engine_spec import EngineSpec
from .engine_start import EngineFactory
from .errors import InputError

CHECKS_AT_ONCE: Final = 4
"""Engines started at the same time for the check."""


class EngineCheckError(InputError):
    """An engine that cannot play: it did not start or did not answer the handshake."""


async def check_engine(
    spec: EngineSpec, start_engine: EngineFactory, time_ms: int, timeout: float
) -> None:
    """Start the engine, play the handshake of a game (``reset_board``, ``time_settings``,
    ``ready``), and stop it; EngineCheckError says what went wrong."""
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
    except EngineError as error:
        raise EngineCheckError(f"{where} failed the handshake: {error.message}") from None
    finally:
        await engine.quit()


async def check_engines(
    specs: Sequence[EngineSpec], start_engine: EngineFactory, time_ms: int, timeout: float
) -> None:
    """Check every engine (a few at once); raise the first failure in the given order."""
    gate = asyncio.Semaphore(CHECKS_AT_ONCE)

    async def check(spec: EngineSpec) -> None:
        async with gate:
            await check_engine(spec, start_engine, time_ms, timeout)

    results = await asyncio.gather(*(check(spec) for spec in specs), return_exceptions=True)
    for result in results:
        if isinstance(result, BaseException):
            raise result
