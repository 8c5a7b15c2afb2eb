"""The games a GUI server holds: a game whose page is gone (no poll for a while, or a page
that said it was leaving) is closed and its engine process stopped; past the limit a new
game takes a finished game's place or is refused, never ending a game being played; the
server stops at once, its long polls answered."""

import json
import threading
import time
import urllib.request
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("starlette", reason="the GUI tests need: pip install -e '.[test]'")

from gui_helpers import HEADERS, gui_config
from processes import wait_for
from referee_fakes import is_running, survivors
from starlette.testclient import TestClient

from banqi_common.sockets import listen
from banqi_gui.app import create_app
from banqi_gui.server import GuiServer
from banqi_gui.sessions import SessionLimits
from protocol.client import EngineClient
from protocol.line_protocol import TrafficLog
from referee.engine_spec import EngineSpec
from referee.engine_start import EngineFactory, start_engine_process


def recording(pids: list[int]) -> EngineFactory:
    """Engines started as processes, their pids noted."""

    async def start(spec: EngineSpec, traffic_log: TrafficLog | None) -> EngineClient:
        engine = await start_engine_process(spec, traffic_log)
        assert engine.pid is not None
        pids.append(engine.pid)
        return engine

    return start


def game(client: TestClient) -> str:
    """A new game against level 0, the person to flip first: its id."""
    answer = client.post("/api/games", json={"engine": "level-0", "first": "you"})
    assert answer.status_code == 201, answer.text
    return str(answer.json()["id"])


def test_a_game_no_page_asks_about_is_closed_and_its_engine_stopped(tmp_path: Path) -> None:
    pids: list[int] = []
    limits = SessionLimits(idle=2.0, grace=0.3, sweep=0.05)
    config = replace(gui_config(tmp_path, recording(pids)), limits=limits)
    with TestClient(create_app(config), headers=HEADERS) as client:
        games: list[str] = []
        for _ in range(3):  # each asked about after each start (a loaded machine is slow)
            games.append(game(client))
            assert all(client.get(f"/api/games/{g}").status_code == 200 for g in games)
        left, kept, reloaded = games
        assert len(pids) == 3 and all(is_running(pid) for pid in pids)
        assert client.post(f"/api/games/{reloaded}/leave").status_code == 200
        assert client.get(f"/api/games/{reloaded}").status_code == 200  # a reload: kept
        started = time.monotonic()
        while time.monotonic() - started < 3.0:  # a page polling ``kept`` keeps it
            assert client.get(f"/api/games/{kept}").status_code == 200
            time.sleep(0.2)
        assert survivors([pids[0], pids[2]], timeout=10) == []  # a loaded machine is slow
        assert client.get(f"/api/games/{left}").status_code == 404
        assert client.get(f"/api/games/{reloaded}").status_code == 404
        assert is_running(pids[1])
        assert client.post(f"/api/games/{kept}/leave").status_code == 200
        wait_for("the engine of the game left to stop", lambda: not is_running(pids[1]), 3)
        assert client.get(f"/api/games/{kept}").status_code == 404
        assert survivors(pids) == []


def test_past_the_limit_a_new_game_is_refused_not_another_closed(tmp_path: Path) -> None:
    config = replace(gui_config(tmp_path), limits=SessionLimits(games=2))
    with TestClient(create_app(config), headers=HEADERS) as client:
        first, second = game(client), game(client)
        refused = client.post("/api/games", json={"engine": "level-0"})
        assert refused.status_code == 429
        words = refused.json()["error"]
        assert "at most 2 games" in words and "end one" in words
        assert client.get(f"/api/games/{first}").status_code == 200
        assert client.get(f"/api/games/{second}").status_code == 200
        assert client.post(f"/api/games/{first}/resign").json()["over"]
        third = game(client)  # takes the finished game's place
        assert client.get(f"/api/games/{first}").status_code == 404
        assert client.get(f"/api/games/{second}").status_code == 200
        assert client.get(f"/api/games/{third}").status_code == 200


def test_the_server_stops_at_once_while_a_page_long_polls(tmp_path: Path) -> None:
    sock = listen("127.0.0.1", 0)
    base = f"http://127.0.0.1:{sock.getsockname()[1]}/api/games"
    server = GuiServer(create_app(gui_config(tmp_path)))
    serving = threading.Thread(target=server.run, kwargs={"sockets": [sock]})
    serving.start()
    wait_for("the server to start", lambda: server.started, 10)

    def call(url: str, body: bytes | None = None) -> dict[str, Any]:
        request = urllib.request.Request(url, body, {**HEADERS, "Content-Type": "application/json"})
        with urllib.request.urlopen(request, timeout=30) as answer:
            found: dict[str, Any] = json.loads(answer.read())
            return found

    state = call(base, json.dumps({"engine": "level-0", "first": "you"}).encode())
    polled: list[dict[str, Any]] = []
    poll = f"{base}/{state['id']}?since={state['version']}"
    polling = threading.Thread(target=lambda: polled.append(call(poll)))
    polling.start()
    time.sleep(0.5)  # the poll waits (up to 20 s) for the person's move
    assert not polled
    stopping = time.monotonic()
    server.should_exit = True
    serving.join(10)
    polling.join(10)
    assert time.monotonic() - stopping < 5 and not serving.is_alive()
    assert polled and polled[0]["id"] == state["id"]
