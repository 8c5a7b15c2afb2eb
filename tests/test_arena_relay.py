"""The arena over real sockets on loopback: a relay client connects with its token, the
server drives the engine it relays as a local one; wrong and reused tokens are refused."""

import asyncio
from pathlib import Path

import pytest

pytest.importorskip("websockets")
pytest.importorskip("uvicorn")

from arena_helpers import Heard, arena, relaying, settings

from banqi_arena.relay import RelayRefusedError, relay
from banqi_arena.tokens import add_entrant
from protocol.messages import Command


def test_a_relayed_engine_answers_the_server_as_a_local_one_does(tmp_path: Path) -> None:
    token, _ = add_entrant(tmp_path, "alice")

    async def scenario() -> None:
        heard = Heard()
        async with arena(tmp_path) as (hub, url), relaying(url, token, heard):
            async with asyncio.timeout(20):
                client, pipes, _ = await hub.start_engine("alice", "g1", None)
                reply = await client.request(Command.name(), 10)
                assert reply.ok and reply.payload
                assert client.isolation == "remote" and client.pid is None
                await client.quit()
                assert pipes.get_returncode() is not None and not pipes.lost
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
        first, second = Heard(), Heard()
        async with arena(tmp_path) as (hub, url), relaying(url, token, first):
            async with asyncio.timeout(20):
                await hub.wait_for("alice")
                async with relaying(url, token, second):
                    while not second.lines:
                        await asyncio.sleep(0.05)
        assert second.lines[0] == "dropped entrant alice is already connected"
        assert first.lines == ["connected alice"]

    asyncio.run(scenario())
