"""The GUI server's API, driven directly: play, hints, undo, the end and its record, bad
requests (a clear error and an unchanged game), and nothing face down ever revealed."""

import json
import random
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("starlette", reason="the GUI tests need: pip install -e '.[test]'")
pytest.importorskip("httpx2", reason="the GUI tests need: pip install -e '.[test]'")

from gui_helpers import HEADERS, TOKEN, gui_config, hidden_squares
from starlette.testclient import TestClient

from gui.app import create_app
from protocol.connection import EngineConnection
from protocol.errors import EngineStartError
from protocol.line_protocol import TrafficLog
from referee.engine_spec import EngineSpec
from referee.record import GameRecord
from referee.replay import replay_game_record
from referee.text_record import parse_text_record

Client = TestClient


@pytest.fixture
def client(tmp_path: Path) -> Iterator[TestClient]:
    with TestClient(create_app(gui_config(tmp_path)), headers=HEADERS) as made:
        yield made


def settle(client: TestClient, state: dict[str, Any]) -> dict[str, Any]:
    """The state once the engine has moved (if it was thinking)."""
    deadline = time.monotonic() + 20
    while state["thinking"] and state["over"] is None:
        assert time.monotonic() < deadline, "the engine did not move"
        answer = client.get(f"/api/games/{state['id']}", params={"since": state["version"]})
        state = answer.json()
    return state


def new_game(client: TestClient, **settings: Any) -> dict[str, Any]:
    answer = client.post("/api/games", json={"engine": "level-0", **settings})
    assert answer.status_code == 201, answer.text
    return settle(client, answer.json())


def act(client: TestClient, state: dict[str, Any], move: str) -> dict[str, Any]:
    answer = client.post(f"/api/games/{state['id']}/action", json={"move": move})
    assert answer.status_code == 200, answer.text
    return settle(client, answer.json())


def check_public(state: dict[str, Any]) -> None:
    """While the game is on, the state shows no layout, and every piece it shows face up
    (on the board or taken) was revealed by a flip."""
    if state["over"] is not None:
        return
    assert state["layout"] is None
    flips = sum(1 for ply in state["plies"] if "(" in ply["move"])
    face_up = sum(1 for letter in state["board"] if letter not in "X-")
    taken = len(state["captured"]["red"]) + len(state["captured"]["black"])
    assert face_up + taken == flips
    assert len(hidden_squares(state)) == 32 - flips


def test_the_api_needs_the_token(tmp_path: Path) -> None:
    with TestClient(create_app(gui_config(tmp_path))) as client:
        assert client.get("/api/options").status_code == 401
        assert "banqi gui" in client.get("/api/options").json()["error"]
        bad = client.get("/api/options", headers={"X-Banqi-Token": "wrong"})
        assert bad.status_code == 401
        assert client.get("/?token=wrong").status_code == 403
        opened = client.get(f"/?token={TOKEN}", follow_redirects=False)
        assert opened.status_code == 303
        assert "httponly" in opened.headers["set-cookie"].lower()
        assert client.get("/api/options").status_code == 200  # the cookie now
        page = client.get("/")
        assert page.status_code == 200 and 'type="module"' in page.text
        assert "default-src 'self'" in page.headers["content-security-policy"]


def test_options_offer_every_preset_and_the_levels(client: TestClient) -> None:
    options = client.get("/api/options").json()
    assert set(options["rules"]) == {"olympiad", "hong-kong", "taiwan-sliding-cannon", "casual"}
    assert [e["id"] for e in options["engines"]] == ["level-0", "level-1", "level-2", "level-3"]


def test_a_whole_game_against_level_0_saves_a_record_that_replays(
    client: TestClient, tmp_path: Path
) -> None:
    choose = random.Random(3)
    state = new_game(client, rules="casual", first="you")
    assert state["players"][0]["person"] and not state["players"][1]["person"]
    while state["over"] is None:
        check_public(state)
        actions = [(frm, a) for frm, options in state["legal"].items() for a in options]
        captures = [x for x in actions if x[1]["kind"] in ("capture", "jump")]
        flips = [x for x in actions if x[1]["kind"] == "flip"]
        frm, action = choose.choice(captures or flips or actions)
        move = frm if action["kind"] == "flip" else f"{frm}-{action['to']}"
        state = act(client, state, move)
    assert state["over"]["reason"] in ("no-legal-move", "threefold-repetition", "no-progress")
    assert state["layout"] is not None and len(state["layout"]) == 32
    record = GameRecord.model_validate_json(
        client.get(f"/api/games/{state['id']}/record.json").text
    )
    assert replay_game_record(record).ok
    assert record.result == state["over"]["result"]
    text = client.get(f"/api/games/{state['id']}/record.txt").text
    assert parse_text_record(text).moves == [ply.move for ply in record.plies]
    deadline = time.monotonic() + 5
    saved = tmp_path / "out" / "games" / f"{record.game_id}.json"
    while not saved.exists() and time.monotonic() < deadline:
        time.sleep(0.05)
    assert GameRecord.model_validate_json(saved.read_text()) == record
    assert (tmp_path / "out" / "games" / f"{record.game_id}.txt").exists()


def test_bad_requests_get_a_clear_error_and_change_nothing(client: TestClient) -> None:
    state = act(client, new_game(client, first="you"), "a1")
    face_up = next(i for i, letter in enumerate(state["board"]) if letter not in "X-")
    square = "abcd"[face_up % 4] + str(face_up // 4 + 1)
    url = f"/api/games/{state['id']}/action"
    bad = [
        (client.post(url, json={"move": square}), 400, "not face down"),
        (client.post(url, json={"move": "a1-a2"}), 400, "illegal move"),
        (client.post(url, content=b"{garbage"), 400, "not JSON"),
        (client.post(url, json={"move": "b6(K)"}), 400, "square alone"),
        (client.post(url, json={"move": "z9"}), 400, "not a square"),
        (client.post(url, json={"step": "a1"}), 400, "bad request"),
        (client.post(url, json=["a1"]), 400, "bad request"),
        (client.post(url, content=b"x" * 70_000), 413, "larger"),
        (client.post("/api/games/nope/action", json={"move": "a1"}), 404, "no such game"),
        (client.post("/api/games", json={"engine": "rm -rf /"}), 400, "no engine"),
        (client.post("/api/games", json={"rules": "chess"}), 400, "unknown rule set"),
        (client.post("/api/games", json={"rules_file": "capture_order = 'KK'"}), 400, "capture"),
        (client.get(f"/api/games/{state['id']}/record.json"), 409, "not over"),
        (client.get(f"/api/games/{state['id']}", params={"since": "x"}), 400, "since"),
    ]
    for answer, status, words in bad:
        assert answer.status_code == status, answer.text
        assert words in answer.json()["error"]
    after = client.get(f"/api/games/{state['id']}").json()
    assert (after["version"], after["board"], after["plies"]) == (
        state["version"],
        state["board"],
        state["plies"],
    )


def test_hint_undo_and_resign(client: TestClient) -> None:
    state = new_game(client, first="you")
    assert not state["can_undo"]
    assert client.post(f"/api/games/{state['id']}/undo").status_code == 409
    hint = client.post(f"/api/games/{state['id']}/hint").json()
    assert len(hint["hint"]) == 2 and hint["state"]["hint"] == hint["hint"]  # a flip, no piece
    check_public(hint["state"])
    first = act(client, hint["state"], hint["hint"])
    second = act(client, first, next(iter(first["legal"])))
    assert len(second["plies"]) == 4 and second["can_undo"]
    undone = client.post(f"/api/games/{state['id']}/undo").json()
    assert undone["plies"] == first["plies"] and undone["board"] == first["board"]
    assert undone["captured"] == first["captured"]
    again = act(client, undone, next(iter(undone["legal"])))  # the engine plays on after it
    assert len(again["plies"]) == 4
    over = client.post(f"/api/games/{state['id']}/resign").json()
    assert over["over"]["reason"] == "resign" and over["over"]["winner"] == 1
    assert "resigned" in over["over"]["result"]
    assert client.post(f"/api/games/{state['id']}/resign").status_code == 409
    assert client.post(f"/api/games/{state['id']}/action", json={"move": "a1"}).status_code == 409


def test_the_engine_may_flip_first(client: TestClient) -> None:
    state = new_game(client, first="opponent")
    assert state["first"] == 1 and len(state["plies"]) == 1 and state["to_move"] == 0
    check_public(state)


def test_two_people_take_turns_and_undo_one_ply(client: TestClient) -> None:
    answer = client.post("/api/games", json={"mode": "people", "first": "you"})
    state = answer.json()
    assert [p["person"] for p in state["players"]] == [True, True]
    state = act(client, state, "a1")
    state = act(client, state, "d8")
    assert [p["player"] for p in state["plies"]] == [0, 1] and state["to_move"] == 0
    hint = client.post(f"/api/games/{state['id']}/hint")  # from the built-in adviser
    assert hint.status_code == 200, hint.text
    undone = client.post(f"/api/games/{state['id']}/undo").json()
    assert len(undone["plies"]) == 1 and undone["to_move"] == 1


def test_a_rule_set_file(client: TestClient) -> None:
    text = 'preset = "hong-kong"\nname = "hk-30"\nno_progress_limit = 30\n'
    state = new_game(client, rules_file=text)
    assert state["rules"]["name"] == "hk-30" and state["rules"]["cannon_capture"] == "step"
    as_json = json.dumps({"preset": "casual", "no_progress_limit": 9})
    assert new_game(client, rules_file=as_json)["rules"]["no_progress_limit"] == 9


def test_the_person_loses_on_time(client: TestClient) -> None:
    state = new_game(client, first="you", time=0.2)
    assert state["clocks"]["running"] == 0
    time.sleep(0.5)
    over = client.get(f"/api/games/{state['id']}").json()["over"]
    assert over["reason"] == "time-forfeit" and over["winner"] == 1


def test_an_engine_that_cannot_start_loses_by_crash(tmp_path: Path) -> None:
    async def cannot_start(spec: EngineSpec, log: TrafficLog | None) -> EngineConnection:
        raise EngineStartError(spec.name, "cannot start: no such file")

    config = gui_config(tmp_path, cannot_start)
    with TestClient(create_app(config), headers=HEADERS) as client:
        state = new_game(client, first="opponent")
        assert state["over"]["reason"] == "crash" and state["over"]["winner"] == 0
        assert "no such file" in state["over"]["detail"]
