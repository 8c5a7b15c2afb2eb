"""The arena's web app: the WebSocket route clients connect to, and the event's pages
(``banqi_gui.event_routes``: spectators and organiser), served by uvicorn on one port.

Frames over ``wire.MAX_FRAME_BYTES`` are refused by uvicorn itself (``ws_max_size``)
before they are buffered; everything else about a connection is the hub's. An HTTP
connection that sends nothing for ``KEEP_ALIVE_SECONDS`` is closed, and past
``MAX_CONNECTIONS`` at once new requests get 503 (relays already connected stay).
"""

import asyncio
import socket
from collections.abc import Sequence
from pathlib import Path
from typing import Final

import uvicorn
from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.routing import BaseRoute, WebSocketRoute
from starlette.websockets import WebSocket, WebSocketDisconnect

from banqi_gui.web_common import SecurityHeaders, internal_error

from .hub import Hub
from .wire import MAX_FRAME_BYTES

ARENA_PATH: Final = "/arena"
"""The route clients connect to: ``ws://HOST:PORT/arena`` (``wss://`` with TLS)."""
KEEP_ALIVE_SECONDS: Final = 5
MAX_CONNECTIONS: Final = 4000
"""Connections and requests served at once (relays, spectators, the organiser)."""


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


def arena_app(hub: Hub, pages: Sequence[BaseRoute] = ()) -> Starlette:
    """The app: one WebSocket route, each connection served by ``hub``, and ``pages``."""

    async def endpoint(websocket: WebSocket) -> None:
        await websocket.accept()
        peer = websocket.client.host if websocket.client is not None else "unknown"
        await hub.serve(_StarletteSocket(websocket), peer)

    return Starlette(
        routes=[WebSocketRoute(ARENA_PATH, endpoint), *pages],
        middleware=[Middleware(SecurityHeaders)],
        exception_handlers={Exception: internal_error},
    )


def arena_server(
    hub: Hub,
    cert: Path | None = None,
    key: Path | None = None,
    pages: Sequence[BaseRoute] = (),
) -> uvicorn.Server:
    """A uvicorn server for the hub's app and ``pages`` (TLS with ``cert`` and ``key``)."""
    config = uvicorn.Config(
        arena_app(hub, pages),
        log_level="warning",
        ws="wsproto",
        ws_max_size=MAX_FRAME_BYTES,
        ws_ping_interval=None,
        ssl_certfile=None if cert is None else str(cert),
        ssl_keyfile=None if key is None else str(key),
        lifespan="off",
        timeout_keep_alive=KEEP_ALIVE_SECONDS,
        limit_concurrency=MAX_CONNECTIONS,
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
