"""The arena over real sockets on loopback: a relay client connects with its token, the
server drives the engine it relays as a local one; wrong and reused tokens, garbage,
oversized frames, silent connections and too many connections from one address are
refused."""

import asyncio
import contextlib
import json
import re
import shutil
import time
from pathlib import Path

import pytest

pytest.importorskip("websockets")
pytest.importorskip("uvicorn")

from arena_helpers import Heard, arena, relaying, self_signed, settings
from referee_fakes import attacker

from banqi_arena.hub import AUTH_SECONDS, Hub
from banqi_arena.relay import RelayRefusedError, RelaySettings, relay
from banqi_arena.tokens import add_entrant, read_store
from banqi_arena.wire import MAX_FRAME_BYTES, MAX_OUTBOX, Exited, FrameError, Ping, client_frame
from protocol.errors import EngineLimitError
from protocol.messages import Command
from referee.cgroups import cgroup_place
from referee.engine_limits import EngineLimits
from referee.engine_spec import EngineSpec
from referee.reasons import LIMIT_REASONS, Reason
from referee.sandbox import Isolation, working_isolations


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


async def _refusal_of(url: str, *frames: str | bytes) -> str:
    """What the server says to a raw client that sends ``frames``: its refusal's reason."""
    from websockets.asyncio.client import connect

    async with connect(url, max_size=None) as socket:
        for frame in frames:
            await socket.send(frame)
        async with asyncio.timeout(10):
            answer = json.loads(await socket.recv())
    assert answer["type"] == "refused", answer
    return str(answer["reason"])


@pytest.mark.parametrize(
    ("frames", "words"),
    [
        (["not json at all"], "not a client message"),
        ([b"\x00\x01binary"], "binary frames are not part of the protocol"),
        (['{"type": "hello", "token": "short"}'], "token: String should have at least 16"),
        (["[" * 50 + "]" * 50], "the frame is nested deeper than 4 levels"),
        (['{"type": "pong", "seq": 1}'], "the first frame must be hello"),
    ],
)
def test_garbage_before_hello_is_refused_and_closed(
    tmp_path: Path, frames: list[str | bytes], words: str
) -> None:
    add_entrant(tmp_path, "alice")

    async def scenario() -> str:
        async with arena(tmp_path) as (_, url):
            return await _refusal_of(url, *frames)

    assert words in asyncio.run(scenario())


def test_garbage_after_hello_ends_the_connection_and_frees_the_entrant(tmp_path: Path) -> None:
    token, _ = add_entrant(tmp_path, "alice")
    hello = json.dumps({"type": "hello", "token": token})

    async def scenario() -> None:
        from websockets.asyncio.client import connect

        async with arena(tmp_path) as (hub, url):
            async with connect(url) as socket:
                await socket.send(hello)
                assert json.loads(await socket.recv())["type"] == "welcome"
                await socket.send('{"type": "line", "game": "g1"}')
                async with asyncio.timeout(10):
                    while True:
                        answer = json.loads(await socket.recv())
                        if answer["type"] == "refused":
                            break
                assert "text: Field required" in answer["reason"]
            async with asyncio.timeout(10):
                while "alice" in hub.links:
                    await asyncio.sleep(0.02)

    asyncio.run(scenario())


def test_an_oversized_frame_is_refused_by_the_server(tmp_path: Path) -> None:
    add_entrant(tmp_path, "alice")

    async def scenario() -> None:
        from websockets.asyncio.client import connect
        from websockets.exceptions import ConnectionClosed

        async with arena(tmp_path) as (_, url), connect(url, max_size=None) as socket:
            await socket.send("x" * (MAX_FRAME_BYTES + 1))
            with pytest.raises(ConnectionClosed) as closed:
                async with asyncio.timeout(10):
                    await socket.recv()
            assert closed.value.rcvd is not None and closed.value.rcvd.code == 1009

    asyncio.run(scenario())


def test_a_silent_connection_is_refused_after_the_time_to_say_hello(tmp_path: Path) -> None:
    add_entrant(tmp_path, "alice")

    async def scenario() -> str:
        async with arena(tmp_path) as (_, url):
            return await _refusal_of(url)

    assert asyncio.run(scenario()) == f"no hello within {AUTH_SECONDS:g}s"


def test_connections_from_one_address_are_bounded(tmp_path: Path) -> None:
    add_entrant(tmp_path, "alice")

    async def scenario() -> str:
        from websockets.asyncio.client import connect

        async with arena(tmp_path, max_per_address=2) as (_, url), connect(url), connect(url):
            await asyncio.sleep(0.2)
            return await _refusal_of(url)

    assert asyncio.run(scenario()) == "too many connections from 127.0.0.1"


@pytest.mark.skipif(shutil.which("openssl") is None, reason="needs openssl to make a certificate")
def test_over_tls_the_relay_checks_the_server_by_its_certificate(tmp_path: Path) -> None:
    token, _ = add_entrant(tmp_path, "alice")
    cert, key = self_signed(tmp_path)

    async def scenario() -> None:
        async with arena(tmp_path, tls=(cert, key)) as (hub, url):
            assert url.startswith("wss://")
            heard = Heard()
            untrusted = asyncio.create_task(relay(settings(url, token), heard.events()))
            async with asyncio.timeout(20):
                while not heard.lines:
                    await asyncio.sleep(0.05)
            untrusted.cancel()
            assert "CERTIFICATE_VERIFY_FAILED" in heard.lines[0]
            task = asyncio.create_task(relay(settings(url, token, ca_file=cert), Heard().events()))
            async with asyncio.timeout(20):
                client, _, _ = await hub.start_engine("alice", "g1", None)
                assert (await client.request(Command.name(), 10)).ok
                await client.quit()
            task.cancel()

    asyncio.run(scenario())


class StuckClient:
    """A client that says hello, then neither reads nor sends: each of its socket's sends
    blocks, as over a full TCP window."""

    def __init__(self, token: str) -> None:
        self.hello = json.dumps({"type": "hello", "protocol": "banqi-arena/1", "token": token})
        self.said = False
        self.closed_with: int | None = None

    async def receive_text(self) -> str:
        if not self.said:
            self.said = True
            return self.hello
        await asyncio.Event().wait()  # silent for ever
        raise AssertionError("unreachable")

    async def send_text(self, text: str) -> None:
        await asyncio.Event().wait()  # never read

    async def close(self, code: int) -> None:
        self.closed_with = code


def test_a_client_that_does_not_read_is_dropped_and_its_engines_lost(tmp_path: Path) -> None:
    token, _ = add_entrant(tmp_path, "alice")

    async def scenario() -> tuple[bool, bool, float]:
        hub = Hub(read_store(tmp_path), max_per_address=4)
        serving = asyncio.create_task(hub.serve(StuckClient(token), "127.0.0.1"))
        _, pipes, link = await asyncio.wait_for(hub.start_engine("alice", "g1", None), 5)
        started = time.monotonic()
        for seq in range(MAX_OUTBOX + 1):
            link.send(Ping(seq=seq))
        await asyncio.wait_for(serving, 3 * AUTH_SECONDS)
        return pipes.lost, "alice" in hub.links, time.monotonic() - started

    lost, listed, seconds = asyncio.run(scenario())
    assert lost and not listed
    assert seconds <= AUTH_SECONDS + 1  # not waited for past the time to say why


HOG = """
cgroup = open("/proc/self/cgroup").read().splitlines()
REPORT = next((line for line in cgroup if ":memory:" in line), cgroup[-1])


def on_genmove(i, words):
    hoard = [b"\\x01" * (64 << 20) for _ in range(40)]
    reply(i, choose(words[2]))
"""


def cgroup_folder(line: str) -> Path:
    """The folder of a ``/proc/PID/cgroup`` line's group (cgroup v1 memory, or v2)."""
    _, controllers, path = line.split(":", 2)
    return (
        Path("/sys/fs/cgroup", controllers, path.lstrip("/"))
        if controllers
        else Path("/sys/fs/cgroup", path.lstrip("/"))
    )


@pytest.mark.skipif(
    cgroup_place() is None or working_isolations()[0] is Isolation.NONE,
    reason="no sandbox with a control group here",
)
def test_a_relayed_engine_over_its_memory_limit_is_stopped_and_loses_by_it(
    tmp_path: Path,
) -> None:
    """The relay's sandbox stops the engine at its limit and says so with its exit: the
    server's client raises the limit (the referee's ``memory-limit``), not a crash; the
    relay removes the engine's control group."""
    token, _ = add_entrant(tmp_path, "alice")
    hog = attacker(tmp_path / "hog", "hog", HOG)
    spec = EngineSpec(
        name="hog", command=hog.command, cwd=hog.folder, limits=EngineLimits(memory_mib=256)
    )

    async def scenario() -> tuple[str, EngineLimitError]:
        async with arena(tmp_path) as (hub, url):
            relayed = RelaySettings(url, token, spec, working_isolations()[0])
            task = asyncio.create_task(relay(relayed, Heard().events()))
            try:
                async with asyncio.timeout(60):
                    client, _, _ = await hub.start_engine("alice", "g1", None)
                    group = (await client.request(Command.name(), 10)).payload
                    group = group.removeprefix("report:")
                    assert cgroup_folder(group).is_dir()
                    with pytest.raises(EngineLimitError) as stopped:
                        await client.request(Command.genmove("unknown"), 30)
                    await client.quit()
                    return group, stopped.value
            finally:
                task.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await task

    group, error = asyncio.run(scenario())
    assert error.kind == "memory"
    assert "memory limit of 256 MiB" in error.words
    assert LIMIT_REASONS[error.kind] is Reason.MEMORY_LIMIT
    assert not cgroup_folder(group).exists()


@pytest.mark.parametrize(
    ("limit", "words"),
    [
        ({"kind": "disk", "words": "x"}, "limit.kind: Input should be 'memory'"),
        ({"kind": "memory", "words": "x" * 501}, "limit.words: String should have at most 500"),
        ({"kind": "memory"}, "limit.words: Field required"),
    ],
)
def test_an_exit_says_only_a_known_limit_in_few_words(limit: dict[str, str], words: str) -> None:
    good = client_frame(
        json.dumps({"type": "exited", "game": "g1", "limit": {"kind": "cpu", "words": "w"}})
    )
    assert isinstance(good, Exited) and good.limit is not None and good.limit.kind == "cpu"
    with pytest.raises(FrameError, match=re.escape(f"exited.{words}")):
        client_frame(json.dumps({"type": "exited", "game": "g1", "limit": limit}))
