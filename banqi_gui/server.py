"""Serving the app: a socket on the host and port asked for (a free port by default), the
address printed, the browser opened, uvicorn until Ctrl-C."""

import signal
import socket
import threading
import time
import webbrowser
from collections.abc import Callable
from types import FrameType

import uvicorn
from starlette.applications import Starlette

from .app import GuiConfig, create_app, release_waiting


def address(sock: socket.socket, token: str, page: str) -> str:
    """The address to open: the server's, with its token and the page to show."""
    host, port = sock.getsockname()[:2]
    shown = f"[{host}]" if ":" in host else host
    return f"http://{shown}:{port}/?token={token}{page}"


def serve(
    config: GuiConfig,
    sock: socket.socket,
    url: str,
    *,
    open_browser: bool,
    say: Callable[[str], None],
) -> None:
    """Serve the app on ``sock`` until interrupted; open ``url`` in a browser once it
    answers, if asked."""
    server = GuiServer(create_app(config))
    say(f"banqi gui: {url}")
    say("(Ctrl-C stops it)")
    if open_browser:
        threading.Thread(target=_open_when_up, args=(server, url), daemon=True).start()
    server.run(sockets=[sock])  # a Ctrl-C uvicorn raised again ends it here
    if server.interrupted:  # one whose raise was lost in asyncio's shutdown
        raise KeyboardInterrupt


class GuiServer(uvicorn.Server):
    """uvicorn's server of an app of ``create_app``. As it stops, the requests waiting for a
    game to change return at once: uvicorn waits for every request to end, and a page
    long-polls its game 20 s at a time. It notes a Ctrl-C: uvicorn stops on it and then
    raises it again, but where that raise lands in asyncio's shutdown it can be lost, and
    ``banqi gui`` must end with Ctrl-C's status (130) every time."""

    interrupted = False

    def __init__(self, app: Starlette) -> None:
        super().__init__(uvicorn.Config(app, log_level="warning"))
        self.app = app

    def handle_exit(self, sig: int, frame: FrameType | None) -> None:
        if sig == signal.SIGINT:
            self.interrupted = True
        super().handle_exit(sig, frame)

    async def shutdown(self, sockets: list[socket.socket] | None = None) -> None:
        release_waiting(self.app)
        await super().shutdown(sockets)


def _open_when_up(server: uvicorn.Server, url: str) -> None:
    deadline = time.monotonic() + 10
    while not server.started and time.monotonic() < deadline:
        time.sleep(0.05)
    webbrowser.open(url)
