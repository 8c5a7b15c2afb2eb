"""The arena's web app: the WebSocket route clients connect to, served by uvicorn.

Frames over ``wire.MAX_FRAME_BYTES`` are refused by uvicorn itself (``ws_max_size``)
before they are buffered; everything else about a connection is the hub's.
"""

import asyncio
import socket
from pathlib import Path
from typing import Final

import uvicorn
from starlette.applications import Starlette
from starlette.routing import WebSocketRoute
from starlette.websockets import WebSocket, WebSocketDisconnect

from .hub import Hub
from .wire import MAX_FRAME_BYTES

ARENA_PATH: Final = "/arena"
"""The route clients connect to: ``ws://HOST:PORT/arena`` (``wss://`` with TLS)."""


class _StarletteSocket:
    """A Starlette WebSocket as the hub's ``Socket``."""

    def __init__(self, websocket: WebSocket) -> None:
        self._websocket = websocket

    async def receive_text(self) -> str | bytes:
        message = await self._websocket.receive()
        if message["type"] == "websocket.disconnect":
            raise WebSocketDisconnect(message.get("code", 1000))
        text = message.get("text")
        if text is not None:
            return str(text)
        return bytes(message.get("bytes") or b"")

    async def send_text(self, text: str) -> None:
        await self._websocket.send_text(text)

    async def close(self, code: int) -> None:
        await self._websocket.close(code)


def arena_app(hub: Hub) -> Starlette:
    """The app: one WebSocket route, each connection served by ``hub``."""

    async def endpoint(websocket: WebSocket) -> None:
        await websocket.accept()
        peer = websocket.client.host if websocket.client is not None else "unknown"
        await hub.serve(_StarletteSocket(websocket), peer)

    return Starlette(routes=[WebSocketRoute(ARENA_PATH, endpoint)])


def arena_server(hub: Hub, cert: Path | None = None, key: Path | None = None) -> uvicorn.Server:
    """A uvicorn server for the hub's app (TLS with ``cert`` and ``key``)."""
    config = uvicorn.Config(
        arena_app(hub),
        log_level="warning",
        ws="wsproto",
        ws_max_size=MAX_FRAME_BYTES,
        ws_ping_interval=None,
        ssl_certfile=None if cert is None else str(cert),
        ssl_keyfile=None if key is None else str(key),
        lifespan="off",
    )
    return uvicorn.Server(config)


async def serve_on(server: uvicorn.Server, sock: socket.socket) -> asyncio.Task[None]:
    """Start ``server`` on ``sock`` in this event loop; the task that runs it, once up."""
    task = asyncio.create_task(server.serve(sockets=[sock]))
    while not server.started:
        if task.done():
            await task
        await asyncio.sleep(0.01)
    return task
