"""The arena bench's spectators: many clients of the event's web API, in a process of
their own (niced, as spectators are on other machines: their CPU is not the server's).

- ``poll``: half the spectators long-poll ``/api/event?since=V`` (or read it every second
  when its answer has no version to wait on), the other half ask for a live game's board
  (``/api/event/games/ID``) every second, as the event page does.
- ``flood``: every spectator asks again as soon as it is answered, ``/api/event`` and a
  live game's board in turn.
- ``slow``: every spectator asks for ``/api/event`` (the largest answer: standings,
  crosstable, live boards) on a connection with a small receive buffer; half of them never
  read the answer, the others read a KiB a second and then ask again, on a new connection.

Answers are read whole; of the event's, only the version is taken (it comes first), and
the games being played at most once a ``POLL_SECONDS`` for all: parsing each answer of a
64-entrant event (hundreds of KiB) would take this process a core of the machine the
server is measured on, which spectators on other machines do not.

``python -m banqi_arena.bench_spectators PLAN_JSON`` watches until its stdin closes, then
prints its figures (``SpectatorFigures``) as JSON on stdout.
"""

import asyncio
import contextlib
import json
import os
import random
import re
import socket
import sys
import time
from collections import Counter
from typing import Any, Final, Literal
from urllib.parse import urlsplit

from pydantic import BaseModel, ConfigDict, Field

from .bench_figures import RequestFigures, SpectatorFigures, Spread

POLL_SECONDS: Final = 1.0
VERSION: Final = re.compile(rb'^\{"version":(\d{1,18})[,}]')
"""The version at the start of an event view."""
"""Seconds between a polling spectator's looks at a game's board."""
REQUEST_SECONDS: Final = 40.0
"""Seconds a request may take (a long-poll waits up to 20 s)."""
SLOW_BYTES: Final = 1024
"""Bytes a slow reader reads a second."""
SLOW_BUFFER: Final = 4096
"""A slow reader's socket receive buffer, in bytes."""
NICE: Final = 10
"""How much the spectators' process gives way to the server and the relays."""
NEEDS_HTTPX: Final = "the spectators of banqi bench arena need httpx2: pip install httpx2"


class SpectatorPlan(BaseModel):
    """Who watches, and how."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    base: str = Field(description="The server's address: http://HOST:PORT.")
    mode: Literal["poll", "flood", "slow"]
    clients: int = Field(ge=1, le=10_000)


class _Tally:
    """The requests of one kind: their statuses, failures and latencies."""

    def __init__(self) -> None:
        self.statuses: Counter[str] = Counter()
        self.failed = 0
        self.latencies: list[float] = []

    def figures(self) -> RequestFigures:
        return RequestFigures(
            requests=sum(self.statuses.values()),
            failed=self.failed,
            statuses=dict(self.statuses),
            latency_ms=Spread.of(self.latencies),
        )


class _Spectators:
    """The spectators of one plan, what they know of the event, and their tallies."""

    def __init__(self, plan: SpectatorPlan) -> None:
        self.plan = plan
        self.live: list[str] = []
        self.live_read = -POLL_SECONDS
        """When the games being played were last read from an answer."""
        self.tallies: dict[str, _Tally] = {}

    def tally(self, kind: str) -> _Tally:
        return self.tallies.setdefault(kind, _Tally())

    async def ask(self, client: Any, kind: str, path: str) -> int | None:
        """One request; the version of an event view answered (None if it failed, was not
        200 or has none)."""
        import httpx2

        tally = self.tally(kind)
        began = time.perf_counter()
        try:
            answer = await client.get(path)
        except httpx2.HTTPError:
            tally.failed += 1
            return None
        tally.latencies.append(1000 * (time.perf_counter() - began))
        tally.statuses[str(answer.status_code)] += 1
        if answer.status_code >= 500:
            tally.failed += 1
        if answer.status_code != 200:
            return None
        if kind == "game":
            return None
        if time.monotonic() - self.live_read >= POLL_SECONDS:
            self.live_read = time.monotonic()
            data = answer.json()
            self.live = [board.get("game_id") for board in data.get("live", [])]
        found = VERSION.match(answer.content)
        return int(found.group(1)) if found else None

    def game_path(self) -> str | None:
        return f"/api/event/games/{random.choice(self.live)}" if self.live else None

    async def long_poll(self, client: Any) -> None:
        """The event as it is, then each change of it as it comes."""
        kind, path = "event", "/api/event"
        while True:
            version = await self.ask(client, kind, path)
            if version is not None:
                kind, path = "long-poll", f"/api/event?since={version}"
            else:  # failed, or no version to wait on: read it again a second later
                kind, path = "event", "/api/event"
                await asyncio.sleep(POLL_SECONDS)

    async def poll_games(self, client: Any) -> None:
        await asyncio.sleep(random.uniform(0, POLL_SECONDS))
        while True:
            path = self.game_path()
            if path is not None:
                await self.ask(client, "game", path)
            await asyncio.sleep(POLL_SECONDS)

    async def flood(self, client: Any) -> None:
        while True:
            await self.ask(client, "event", "/api/event")
            path = self.game_path()
            if path is not None:
                await self.ask(client, "game", path)

    async def slow_reader(self, reads: bool) -> None:
        """Ask for ``/api/event`` on a small receive buffer and read a KiB a second (or never),
        then ask again on a new connection."""
        address = urlsplit(self.plan.base)
        host, port = address.hostname or "127.0.0.1", address.port or 80
        request = f"GET /api/event HTTP/1.1\r\nHost: {host}:{port}\r\nConnection: close\r\n\r\n"
        tally = self.tally("slow")
        while True:
            sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, SLOW_BUFFER)
            sock.setblocking(False)
            try:
                await asyncio.get_running_loop().sock_connect(sock, (host, port))
                reader, writer = await asyncio.open_connection(sock=sock, limit=SLOW_BUFFER)
            except OSError:
                sock.close()
                tally.failed += 1
                await asyncio.sleep(POLL_SECONDS)
                continue
            try:
                writer.write(request.encode())
                if not reads:
                    await asyncio.Event().wait()
                head = await reader.readuntil(b"\r\n\r\n")
                tally.statuses[head.split(b" ", 2)[1].decode()] += 1
                length = _content_length(head)
                while length > 0:
                    length -= len(await reader.readexactly(min(SLOW_BYTES, length)))
                    await asyncio.sleep(1)
            except (OSError, asyncio.IncompleteReadError, asyncio.LimitOverrunError, IndexError):
                tally.failed += 1
            finally:
                writer.close()

    async def watch(self, stop: asyncio.Event) -> SpectatorFigures:
        """Watch until ``stop`` is set; the figures."""
        began = time.monotonic()
        tasks: list[asyncio.Task[None]] = []
        client = None
        if self.plan.mode == "slow":
            tasks = [
                asyncio.create_task(self.slow_reader(reads=number % 2 == 1))
                for number in range(self.plan.clients)
            ]
        else:
            import httpx2

            count = self.plan.clients
            client = httpx2.AsyncClient(
                base_url=self.plan.base,
                limits=httpx2.Limits(max_connections=count, max_keepalive_connections=count),
                timeout=httpx2.Timeout(REQUEST_SECONDS),
            )
            for number in range(count):
                if self.plan.mode == "flood":
                    work = self.flood(client)
                else:
                    work = self.long_poll(client) if number % 2 == 0 else self.poll_games(client)
                tasks.append(asyncio.create_task(work))
        await stop.wait()
        for task in tasks:
            task.cancel()
        for task in tasks:
            with contextlib.suppress(asyncio.CancelledError):
                await task
        if client is not None:
            await client.aclose()
        return SpectatorFigures(
            spectators=self.plan.clients,
            seconds=time.monotonic() - began,
            cpu_seconds=time.process_time(),
            kinds={kind: tally.figures() for kind, tally in sorted(self.tallies.items())},
        )


def _content_length(head: bytes) -> int:
    for line in head.split(b"\r\n"):
        name, _, value = line.partition(b":")
        if name.strip().lower() == b"content-length":
            return int(value)
    return 0


async def watch_from_another_process(plan: SpectatorPlan, stop: asyncio.Event) -> SpectatorFigures:
    """Run the spectators of ``plan`` in a process of their own until ``stop`` is set;
    their figures. RuntimeError if that process fails."""
    process = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        __name__,
        plan.model_dump_json(),
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    await stop.wait()
    said, complaint = await process.communicate(b"")
    if process.returncode != 0:
        words = complaint.decode(errors="replace").strip().splitlines()
        raise RuntimeError(f"the spectators failed: {words[-1] if words else process.returncode}")
    return SpectatorFigures.model_validate_json(said)


async def _until_stdin_closes(stop: asyncio.Event) -> None:
    await asyncio.to_thread(sys.stdin.buffer.read)
    stop.set()


async def _main(plan: SpectatorPlan) -> SpectatorFigures:
    stop = asyncio.Event()
    closing = asyncio.create_task(_until_stdin_closes(stop))
    figures = await _Spectators(plan).watch(stop)
    await closing
    return figures


if __name__ == "__main__":
    os.nice(NICE)
    chosen = SpectatorPlan.model_validate(json.loads(sys.argv[1]))
    if chosen.mode != "slow":
        try:
            import httpx2  # noqa: F401
        except ImportError:
            sys.exit(NEEDS_HTTPX)
    print(asyncio.run(_main(chosen)).model_dump_json())
