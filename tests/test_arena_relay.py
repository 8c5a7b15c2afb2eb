"""The arena over real sockets on loopback: a relay client connects with its token, the
server drives the engine it relays as a local one; wrong and reused tokens are refused."""

import asyncio
import contextlib
import shutil
import socket
import sys
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

pytest.importorskip("websockets")
pytest.importorskip("uvicorn")

from banqi_arena.hub import Hub
from banqi_arena.relay import RelayEvents, RelayRefusedError, RelaySettings, relay
from banqi_arena.server_app import ARENA_PATH, arena_server, serve_on
from banqi_arena.tokens import add_entrant, read_store
from protocol.messages import Command
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
async def arena(folder: Path) -> AsyncIterator[tuple[Hub, str]]:
    hub = Hub(read_store(folder), max_per_address=32)
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


def settings(url: str, token: str) -> RelaySettings:
    spec = EngineSpec(name="relayed", command=engine_command())
    return RelaySettings(url=url, token=token, engine=spec, isolation=Isolation.NONE)


def test_a_relayed_engine_answers_the_server_as_a_local_one_does(tmp_path: Path) -> None:
    token, _ = add_entrant(tmp_path, "alice")

    async def scenario() -> None:
        async with arena(tmp_path) as (hub, url):
            heard = Heard()
            client_task = asyncio.create_task(relay(settings(url, token), heard.events()))
            async with asyncio.timeout(20):
                client, pipes, _ = await hub.start_engine("alice", "g1", None)
                reply = await client.request(Command.name(), 10)
                assert reply.ok and reply.payload
                assert client.isolation == "remote" and client.pid is None
                await client.quit()
                assert pipes.get_returncode() is not None and not pipes.lost
            client_task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await client_task
            assert heard.lines[:2] == ["connected alice", "g1 started"]

    asyncio.run(scenario())


def test_a_wrong_token_is_refused_for_good(tmp_path: Path) -> None:
    add_entrant(tmp_path, "alice")

    async def scenario() -> None:
        async with arena(tmp_path) as (_, url):
            with pytest.raises(RelayRefusedError, match="unknown token"):
                async with asyncio.timeout(20):
                    await relay(settings(url, "x" * 43), Heard().events())

    asyncio.run(scenario())


def test_a_token_in_use_is_refused_while_its_entrant_is_connected(tmp_path: Path) -> None:
    token, _ = add_entrant(tmp_path, "alice")

    async def scenario() -> None:
        async with arena(tmp_path) as (hub, url):
            first, second = Heard(), Heard()
            one = asyncio.create_task(relay(settings(url, token), first.events()))
            async with asyncio.timeout(20):
                await hub.wait_for("alice")
                two = asyncio.create_task(relay(settings(url, token), second.events()))
                while not second.lines:
                    await asyncio.sleep(0.05)
            assert second.lines[0] == "dropped entrant alice is already connected"
            assert first.lines == ["connected alice"]
            for task in (one, two):
                task.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await task

    asyncio.run(scenario())
