"""Helpers of the arena's tests: an arena on a loopback port, relay clients, what they say."""

import asyncio
import contextlib
import json
import os
import shutil
import socket
import subprocess
import sys
from collections.abc import AsyncIterator
from pathlib import Path

from processes import run_banqi, script, wait_for

from banqi_arena.hub import Hub
from banqi_arena.relay import RelayEvents, RelaySettings, relay
from banqi_arena.server_app import ARENA_PATH, arena_server, serve_on
from banqi_arena.tokens import read_store
from referee.engine_spec import EngineSpec
from referee.record import GameRecord
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
async def arena(
    folder: Path, max_per_address: int = 32, tls: tuple[Path, Path] | None = None
) -> AsyncIterator[tuple[Hub, str]]:
    """An arena with ``folder``'s tokens on a free loopback port (TLS with ``tls``, a
    certificate and its key), and its address."""
    hub = Hub(read_store(folder), max_per_address=max_per_address)
    server = arena_server(hub, *(tls or (None, None)))
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    sock.bind(("127.0.0.1", 0))
    sock.listen()
    task = await serve_on(server, sock)
    try:
        scheme = "wss" if tls is not None else "ws"
        yield hub, f"{scheme}://localhost:{sock.getsockname()[1]}{ARENA_PATH}"
    finally:
        server.should_exit = True
        await task


def settings(url: str, token: str, *args: str, ca_file: Path | None = None) -> RelaySettings:
    spec = EngineSpec(name="relayed", command=(*engine_command(), *args))
    return RelaySettings(url, token, spec, Isolation.NONE, ca_file)


def self_signed(folder: Path) -> tuple[Path, Path]:
    """A certificate for localhost and 127.0.0.1, signed by itself, and its key."""
    cert, key = folder / "cert.pem", folder / "key.pem"
    request = ["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1"]
    names = ["-subj", "/CN=localhost", "-addext", "subjectAltName=DNS:localhost,IP:127.0.0.1"]
    files = ["-keyout", str(key), "-out", str(cert)]
    subprocess.run([*request, *names, *files], check=True, capture_output=True)
    return cert, key


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


BANQI = (sys.executable, "-c", "from banqi_cli.main import cli; cli()")


def remote_event(folder: Path, entrant: str, relay_args: list[str]) -> list[GameRecord]:
    """The records of ``banqi serve`` in ``folder``: one round of remote ``entrant``, which
    ``banqi connect RELAY_ARGS`` relays from ``folder``, against a local banqi-engine."""
    local = f"{script('banqi-engine')} --level 0 --seed 1"
    (folder / "field.toml").write_text(
        'rounds = 1\nstall_timeout = 30\ntime = { time = 30 }\nrules = "casual"\n'
        f'[[engines]]\nname = "{entrant}"\nremote = true\n[[engines]]\nname = "local"\n'
        f"command = {json.dumps(local)}\n"
    )
    added = ["serve", "field.toml", "--out", "run", "--add-entrant", entrant]
    made = run_banqi(added, folder, folder)
    assert made.returncode == 0, made.stderr
    token = made.stdout.splitlines()[1]
    log_path = folder / "serve.log"
    with open(log_path, "w") as log:
        server = subprocess.Popen(
            [*BANQI, "serve", "field.toml", "--out", "run", "--port", "0"],
            cwd=folder,
            env={**os.environ, "HOME": str(folder)},
            stdout=log,
            stderr=subprocess.STDOUT,
            text=True,
        )
    try:
        wait_for("the server's address", lambda: "ws://" in log_path.read_text())
        url = next(word for word in log_path.read_text().split() if word.startswith("ws://"))
        relayed = run_banqi(
            ["connect", url, "--token", token, *relay_args], folder, folder, timeout=240
        )
        assert relayed.returncode == 0, relayed.stderr
        server.wait(timeout=60)
    finally:
        server.kill()
        server.wait()
    paths = sorted((folder / "run" / "games").glob("*.json"))
    return [GameRecord.model_validate_json(path.read_text()) for path in paths]
