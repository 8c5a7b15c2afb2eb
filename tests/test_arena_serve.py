"""``banqi serve`` and ``banqi connect`` as an organiser and participants run them, over
loopback: a tournament of two remote entrants and a local one played to its end through
a server killed with SIGKILL mid-run and started again, its clients coming back by
themselves; a wrong token refused with an error and status 1; the settings refused."""

import json
import os
import signal
import socket
import subprocess
import urllib.error
import urllib.request
from collections.abc import Callable
from pathlib import Path

import pytest
from processes import script, wait_for

pytest.importorskip("websockets")
pytest.importorskip("uvicorn")

from banqi_gui.event_routes import ORGANISER_HEADER

FIELD = """\
rounds = 1
concurrency = 2
stall_timeout = 30  # engines start and handshake on a busy test machine
time = {{ time = {time} }}

[[engines]]
name = "alice"
remote = true

[[engines]]
name = "bob"
remote = true

[[engines]]
name = "local"
command = "{engine} --level 0 --seed 1"
"""


SIDE_SECONDS = 120
"""Each side's clock in the killed-server test: slack for a relay to come back on a busy
machine."""
GAME_WAIT = 2 * SIDE_SECONDS + 60
"""Seconds a game of that test may take: both clocks, and the engines' start."""


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def banqi(folder: Path, *args: str, timeout: float = 60) -> "subprocess.CompletedProcess[str]":
    return subprocess.run(
        [script("banqi"), *args],
        cwd=folder,
        env={**os.environ, "HOME": str(folder)},
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )


def start(folder: Path, *args: str, log: Path | None = None) -> "subprocess.Popen[str]":
    """``banqi ARGS`` in the background, its output piped, or written to ``log`` (for a
    process nobody reads until it is killed: a full pipe would stop it)."""
    return subprocess.Popen(
        [script("banqi"), *args],
        cwd=folder,
        env={**os.environ, "HOME": str(folder)},
        stdout=subprocess.PIPE if log is None else log.open("w"),
        stderr=subprocess.STDOUT,
        text=True,
    )


def while_serving(
    server: "subprocess.Popen[str]", log: Path, condition: Callable[[], bool]
) -> Callable[[], bool]:
    """``condition``, failing the test at once (with the server's output) if it has exited."""

    def check() -> bool:
        if server.poll() is not None:
            pytest.fail(f"banqi serve exited with {server.returncode}: {log.read_text()}")
        return condition()

    return check


def arena_folder(tmp_path: Path, time: float = 20) -> dict[str, str]:
    """The field and each remote entrant's token, made with --add-entrant."""
    (tmp_path / "field.toml").write_text(FIELD.format(time=time, engine=script("banqi-engine")))
    tokens = {}
    for name in ("alice", "bob"):
        made = banqi(tmp_path, "serve", "field.toml", "--out", "run", "--add-entrant", name)
        assert made.returncode == 0, made.stderr
        tokens[name] = made.stdout.splitlines()[1]
        assert len(tokens[name]) == 43
    stored = json.loads((tmp_path / "run" / "arena-entrants.json").read_text())
    assert set(stored["entrants"]) == {"alice", "bob"}
    assert not any(token in json.dumps(stored) for token in tokens.values())
    return tokens


def connect(tmp_path: Path, url: str, token: str, level: str) -> "subprocess.Popen[str]":
    engine = [script("banqi-engine"), "--level", level, "--seed", "1"]
    return start(tmp_path, "connect", url, "--token", token, "--sandbox", "off", "--", *engine)


def records(run: Path) -> list[dict[str, object]]:
    return [json.loads(path.read_text()) for path in sorted((run / "games").glob("*.json"))]


def test_remote_entrants_and_a_local_one_play_through_a_server_killed_and_resumed(
    tmp_path: Path,
) -> None:
    """Two remote entrants and a local one; a client killed with SIGKILL after the first
    record and started again, the server killed after the second and started again; the
    clients come back by themselves and the tournament ends, each game recorded once with
    no disconnect, the remote players' engines as remote."""
    tokens = arena_folder(tmp_path, time=SIDE_SECONDS)
    port = str(free_port())
    args = ("serve", "field.toml", "--out", "run", "--port", port)
    url = f"ws://127.0.0.1:{port}/arena"
    log = tmp_path / "serve.log"
    server = start(tmp_path, *args, log=log)
    clients = [
        connect(tmp_path, url, tokens["alice"], "2"),
        connect(tmp_path, url, tokens["bob"], "2"),
    ]
    try:
        first = while_serving(server, log, lambda: bool(records(tmp_path / "run")))
        wait_for("a first record", first, timeout=GAME_WAIT)
        the_event_pages_answer(port, log.read_text())
        clients[0].send_signal(signal.SIGKILL)  # alice's relay, mid-game or between games
        clients[0].wait()
        clients[0] = connect(tmp_path, url, tokens["alice"], "2")
        second = while_serving(server, log, lambda: len(records(tmp_path / "run")) >= 2)
        wait_for("a second record", second, timeout=GAME_WAIT)
        server.send_signal(signal.SIGKILL)
        server.wait()
        again = start(tmp_path, *args)
        out, _ = again.communicate(timeout=2 * GAME_WAIT)
        assert again.returncode == 0, out
        assert f"banqi serve: {url}" in out
        heard: list[str] = []
        for client in clients:
            said, _ = client.communicate(timeout=30)
            assert client.returncode == 0, said
            assert "the tournament is over" in said, said
            heard.append(said)
        # bob's relay was connected all along, so it saw the server go; alice's new one may
        # still have been waiting to come back (its old connection not yet seen as gone)
        assert "connection lost" in heard[1], heard[1]
    finally:
        for process in (server, *clients):
            process.kill()
            process.wait()
    games = records(tmp_path / "run")
    assert sorted(str(g["game_id"]) for g in games) == sorted({str(g["game_id"]) for g in games})
    assert len(games) == 6
    outputs = [f"--- first server ---\n{log.read_text()}", f"--- second server ---\n{out}"]
    outputs += [f"--- relay {n} ---\n{said}" for n, said in zip(tokens, heard, strict=True)]
    said = "\n".join(outputs)
    for game in games:
        assert game["reason"] != "disconnect", f"{game['detail']}\n{said}"
        for player in game["players"]:  # type: ignore[attr-defined]
            assert (player["isolation"] == "remote") == (player["name"] in tokens), player
    spectators_see_the_games_and_no_secret(tmp_path, tmp_path / "run")


def the_event_pages_answer(port: str, said: str) -> None:
    """The server's own pages while it plays: spectators without a token, the organiser
    with the token it printed and not without."""
    base = f"http://127.0.0.1:{port}"
    with urllib.request.urlopen(f"{base}/api/event", timeout=30) as answer:
        event = json.loads(answer.read())
    assert event["finished"] and {e["name"] for e in event["entrants"]} == {
        "alice",
        "bob",
        "local",
    }
    assert event["games"]["total"] == 6
    with pytest.raises(urllib.error.HTTPError) as refused:
        urllib.request.urlopen(f"{base}/api/organiser", timeout=30)
    assert refused.value.code == 401
    address = next(w for w in said.split() if w.startswith(f"{base}/organiser?token="))
    token = address.partition("token=")[2]
    asked = urllib.request.Request(f"{base}/api/organiser", headers={ORGANISER_HEADER: token})
    with urllib.request.urlopen(asked, timeout=30) as answer:
        organiser = json.loads(answer.read())
    assert {line["name"]: line["remote"] for line in organiser["entrants"]} == {
        "alice": True,
        "bob": True,
        "local": False,
    }


def spectators_see_the_games_and_no_secret(home: Path, run: Path) -> None:
    """The board's watch pages of the arena's run folder: every game, no token hash."""
    from gui_helpers import TOKEN, gui_config
    from starlette.testclient import TestClient

    from banqi_gui.app import HEADER, create_app

    client = TestClient(create_app(gui_config(home, watched=[run])))
    seen = client.get("/api/runs/run/watch", headers={HEADER: TOKEN})
    assert seen.status_code == 200
    assert len(seen.json()["finished"]) == 6
    hashes = json.loads((run / "arena-entrants.json").read_text())["entrants"].values()
    for game in seen.json()["finished"]:
        replay = client.get(f"/api/runs/run/games/{game['game_id']}", headers={HEADER: TOKEN})
        assert replay.status_code == 200
        assert not any(digest in seen.text + replay.text for digest in hashes)


def test_a_wrong_token_is_refused_with_status_1(tmp_path: Path) -> None:
    arena_folder(tmp_path)
    port = str(free_port())
    server = start(tmp_path, "serve", "field.toml", "--out", "run", "--port", port)
    try:
        wait_for("the server", lambda: _listening(int(port)), timeout=30)
        refused = banqi(
            tmp_path,
            "connect",
            f"ws://127.0.0.1:{port}/arena",
            "--token",
            "x" * 43,
            "--sandbox",
            "off",
            "--",
            script("banqi-engine"),
        )
        assert refused.returncode == 1
        assert "refused the token: unknown token" in refused.stderr
    finally:
        server.kill()
        server.wait()


def _listening(port: int) -> bool:
    with socket.socket() as sock:
        return sock.connect_ex(("127.0.0.1", port)) == 0


def test_serve_refuses_what_it_cannot_use(tmp_path: Path) -> None:
    (tmp_path / "field.toml").write_text(FIELD.format(time=20, engine=script("banqi-engine")))
    untokened = banqi(tmp_path, "serve", "field.toml", "--out", "run")
    assert untokened.returncode == 1
    assert "remote entrants without a token: alice, bob" in untokened.stderr
    assert "--add-entrant alice" in untokened.stderr
    local = banqi(tmp_path, "serve", "field.toml", "--out", "run", "--add-entrant", "local")
    assert local.returncode == 2
    assert "--add-entrant local: not a remote entrant (remote: alice, bob)" in local.stderr
    half = banqi(tmp_path, "serve", "field.toml", "--tls-cert", "field.toml")
    assert half.returncode == 2 and "--tls-cert and --tls-key go together" in half.stderr
    both = ("--tls-cert", "field.toml", "--tls-key", "field.toml")
    unloadable = banqi(tmp_path, "serve", "field.toml", *both)
    assert unloadable.returncode == 2 and "do not load" in unloadable.stderr
    plain = banqi(tmp_path, "tournament", "field.toml", "--out", "t")
    assert plain.returncode == 1
    assert "remote entrants play only under banqi serve" in plain.stderr
    assert not (tmp_path / "t").exists()
