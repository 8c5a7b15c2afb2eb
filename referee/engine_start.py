"""Starting a game's engines: as processes by default, or by any factory a caller gives.

The factory is the seam between the referee and how engines run: the referee asks it
for an :class:`~protocol.connection.EngineConnection` per seat and never starts a
process itself, so tests can play the project's engine loop in-process.
"""

import os
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING

from protocol.client import EngineClient
from protocol.connection import EngineConnection
from protocol.in_process import InProcessEngine
from protocol.line_protocol import TrafficLog

from .deals import KEY_ENV
from .engine_spec import EngineSpec

if TYPE_CHECKING:  # a referee that plays engine processes never loads the engine side
    from protocol.engine_loop import DctpEngine

EngineFactory = Callable[[EngineSpec, TrafficLog | None], Awaitable[EngineConnection]]
"""Starts the engine of a spec, its traffic going to the log if one is given."""


def engine_environment(extra: dict[str, str]) -> dict[str, str]:
    """The referee's environment for an engine, less the key-file path, plus ``extra``."""
    env = {k: v for k, v in os.environ.items() if k != KEY_ENV}
    env.update(extra)
    return env


async def start_engine_process(spec: EngineSpec, traffic_log: TrafficLog | None) -> EngineClient:
    """Start the spec's command as a process of its own (the referee's default)."""
    return await EngineClient.start(
        spec.command,
        cwd=spec.cwd,
        env=engine_environment(spec.env),
        name=spec.name,
        traffic_log=traffic_log,
    )


def in_process_engines(make: Callable[[EngineSpec], "DctpEngine"]) -> EngineFactory:
    """A factory that plays ``make(spec)``, an engine loop, in this process (no process)."""

    async def start(spec: EngineSpec, traffic_log: TrafficLog | None) -> EngineConnection:
        return InProcessEngine(make(spec), spec.name, traffic_log)

    return start
