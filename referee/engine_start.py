"""Starting a game's engines: as processes, sandboxed or not, or by any factory a caller gives.

The factory is the seam between the referee and how engines run: the referee asks it
for an :class:`~protocol.connection.EngineConnection` per seat and never starts a
process itself, so tests can play the project's engine loop in-process.
"""

import os
import shutil
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from protocol.client import EngineClient
from protocol.connection import EngineConnection
from protocol.errors import EngineStartError
from protocol.in_process import InProcessEngine
from protocol.line_protocol import TrafficLog

from .engine_env import engine_environment
from .engine_spec import EngineSpec, cwd_problem
from .engine_watch import LimitedStart, limited_start
from .sandbox import (
    Isolation,
    SandboxMode,
    SandboxViewError,
    choose_isolation,
    engine_view,
    resolved_command,
    wrap_command,
)

if TYPE_CHECKING:  # a referee that plays engine processes never loads the engine side
    from protocol.engine_loop import DctpEngine

EngineFactory = Callable[[EngineSpec, TrafficLog | None], Awaitable[EngineConnection]]
"""Starts the engine of a spec, its traffic going to the log if one is given."""


async def start_engine_process(spec: EngineSpec, traffic_log: TrafficLog | None) -> EngineClient:
    """Start the spec's command as a plain process of its own, not isolated."""
    _check_cwd(spec)
    return await EngineClient.start(
        spec.command,
        cwd=spec.cwd,
        env=engine_environment(spec),
        name=spec.name,
        traffic_log=traffic_log,
    )


def _check_cwd(spec: EngineSpec) -> None:
    """Refuse a working directory that is not a folder, in words of the spec's own."""
    problem = cwd_problem(spec)
    if problem:
        raise EngineStartError(spec.name, f"its working directory {problem}")


def _reason(error: BaseException | None) -> str:
    """Why a start failed, without the command line it was given."""
    if isinstance(error, OSError) and error.strerror:
        return error.strerror
    return str(error)


def _not_runnable(program: str) -> str:
    """Why a program given by path cannot run, and what would."""
    if not os.path.exists(program):
        return "no such file"
    if os.path.isdir(program):
        return "it is a folder, not a program: give the engine's executable inside it"
    if program.endswith(".py"):
        script = os.path.basename(program)
        return (
            "not an executable file (chmod +x it and begin it with '#!/usr/bin/env python3', "
            f"or give 'python3 {script}')"
        )
    return "not an executable file (chmod +x it, or give the interpreter before it)"


def _check_program(spec: EngineSpec, program: str, env: dict[str, str]) -> None:
    """Refuse a program (``program``: the spec's, resolved) that cannot run before a sandbox
    hides why."""
    given = list(spec.command)
    if "/" in program:
        if not os.path.isfile(program) or not os.access(program, os.X_OK):
            why = _not_runnable(program)
            raise EngineStartError(spec.name, f"cannot start {given!r}: {why}")
    elif shutil.which(program, path=env.get("PATH", os.defpath)) is None:
        raise EngineStartError(spec.name, f"cannot start {given!r}: {program!r} is not on the PATH")


@dataclass(frozen=True)
class Launch:
    """How to start a spec's engine in a sandbox: the whole command line (the sandbox's
    and the engine's), the environment, and its limits (applied between fork and exec,
    watched while it runs)."""

    command: list[str]
    env: dict[str, str]
    isolation: Isolation
    limited: LimitedStart


def sandboxed_launch(spec: EngineSpec, isolation: Isolation, hidden: Sequence[Path]) -> Launch:
    """The launch of ``spec``'s engine with ``isolation`` (not NONE), in a room of its own,
    the ``hidden`` paths out of its sight; EngineStartError if it cannot be started so."""
    _check_cwd(spec)
    base = (spec.cwd or Path.cwd()).resolve()
    command = resolved_command(spec.command, base)
    env = engine_environment(spec, base)
    _check_program(spec, command[0], env)
    try:
        view = engine_view(
            command,
            base if spec.cwd is not None else None,
            spec.read_only,
            hidden,
            env.get("PATH"),
            network=spec.network,
            tmp_bytes=spec.limits.room_bytes,
        )
    except SandboxViewError as error:
        raise EngineStartError(spec.name, str(error)) from None
    env = engine_environment(spec, view.cwd)  # HOME in its room: the referee's is out of sight
    wrapped = wrap_command(isolation, view, command)
    return Launch(wrapped, env, isolation, limited_start(spec.limits))


def launch_failed(spec: EngineSpec, isolation: Isolation, error: BaseException | None) -> str:
    """Why a sandboxed start failed, in words that name the engine's command, not the
    sandbox's whole command line."""
    return f"cannot start {list(spec.command)!r} in the {isolation.value} sandbox: {_reason(error)}"


def sandboxed_engines(isolation: Isolation, hidden: Sequence[Path]) -> EngineFactory:
    """A factory that starts each engine as a process with ``isolation``, in a room of its
    own, within its limits, the ``hidden`` paths (the referee's secrets) out of its sight."""
    if isolation is Isolation.NONE:
        return start_engine_process

    async def start(spec: EngineSpec, traffic_log: TrafficLog | None) -> EngineClient:
        launch = sandboxed_launch(spec, isolation, hidden)
        try:
            return await EngineClient.start(
                launch.command,
                env=launch.env,
                name=spec.name,
                traffic_log=traffic_log,
                isolation=isolation.value,
                watch=launch.limited.watch,
                before_exec=launch.limited.before_exec,
            )
        except EngineStartError as error:  # its words name the whole sandbox command line
            words = launch_failed(spec, isolation, error.__cause__)
            raise EngineStartError(spec.name, words) from None

    return start


def process_engines(mode: SandboxMode, hidden: Sequence[Path]) -> tuple[EngineFactory, Isolation]:
    """The factory a run with sandbox ``mode`` uses, and the isolation its engines get.

    Raises SandboxUnavailableError for ``required`` where no sandbox works.
    """
    isolation = choose_isolation(mode)
    return sandboxed_engines(isolation, hidden), isolation


def in_process_engines(make: Callable[[EngineSpec], "DctpEngine"]) -> EngineFactory:
    """A factory that plays ``make(spec)``, an engine loop, in this process (no process)."""

    async def start(spec: EngineSpec, traffic_log: TrafficLog | None) -> EngineConnection:
        return InProcessEngine(make(spec), spec.name, traffic_log)

    return start
