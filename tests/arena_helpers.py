"""Helpers of the arena's tests: an arena on a loopback port, relay clients, what they say."""

import asyncio
import contextlib
import shutil
import socket
import sys
from collections.abc import AsyncIterator
from pathlib import Path

from banqi_arena.hub import Hub
from banqi_arena.relay import RelayEvents, RelaySettings, relay
from banqi_arena.server_app import ARENA_PATH, arena_server, serve_on
from banqi_arena.tokens import read_store
from referee.engine_spec import EngineSpec
from referee.sandbox import Isolation


def engine_command() -> tuple[str, ...]:
    program = shutil.which("banqi-engine")
    return (program,) if program else (sys.executable, "-m", "banqi_cli.engine")


class Heard:
    def __init__(self) -> None:
        self.lines: list[str] = []

    def events(self) -> RelayEvents:
        return RelayEvents(
            connected=lambda who: self.lines.append(f"connected {who}"),
            dropped=lambda why: self.lines.append(f"dropped {why}"),
            game=lambda game, what: self.lines.append(f"{game} {what}"),
        )


@contextlib.asynccontextmanager
async def arena(folder: Path, max_per_address: int = 32) -> AsyncIterator[tuple[Hub, str]]:
    """An arena with ``folder``'s tokens on a free loopback port, and its address."""
    hub = Hub(read_store(folder), max_per_address=max_per_address)
    server = arena_server(hub)
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    sock.bind(("127.0.0.1", 0))
    sock.listen()
    task = await serve_on(server, sock)
    try:
        yield hub, f"ws://127.0.0.1:{sock.getsockname()[1]}{ARENA_PATH}"
    finally:
        server.should_exit = True
        await task


def settings(url: str, token: str, *args: str) -> RelaySettings:
    spec = EngineSpec(name="relayed", command=(*engine_command(), *args))
    return RelaySettings(url=url, token=token, engine=spec, isolation=Isolation.NONE)


@contextlib.asynccontextmanager
async def relaying(url: str, token: str, heard: "Heard", *args: str) -> AsyncIterator[None]:
    """A relay client running while the block runs, cancelled at its end."""
    task = asyncio.create_task(relay(settings(url, token, *args), heard.events()))
    try:
        yield
    finally:
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task
