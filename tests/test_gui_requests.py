"""Hostile and malformed requests to the board's API: nesting, keys, long strings, NaN and
infinities are refused with 400 and a message, every response (a 500 too) carries the
security headers, and the run list names runs, not folders."""

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from gui_helpers import HEADERS, gui_config
from starlette.testclient import TestClient

from banqi_gui.app import create_app
from banqi_gui.web_common import SECURITY_HEADERS


@pytest.fixture
def client(tmp_path: Path) -> Iterator[TestClient]:
    app = create_app(gui_config(tmp_path))
    with TestClient(app, headers=HEADERS, raise_server_exceptions=False) as made:
        yield made


def assert_secured(response: object) -> None:
    headers = response.headers  # type: ignore[attr-defined]
    for name, value in SECURITY_HEADERS.items():
        assert headers.get(name) == value, name


DEEP = "[" * 30000 + "]" * 30000
HOSTILE = [
    ("/api/games", DEEP, "nested deeper than 8 levels"),
    ("/api/games", json.dumps({f"k{n}": 1 for n in range(300)}), "more than 200 values"),
    ("/api/games", '{"time": NaN}', "NaN is not a number JSON allows"),
    ("/api/games", '{"time": Infinity}', "Infinity is not a number JSON allows"),
    ("/api/games", '{"time": 1e400}', "1e400 is too large to be a number"),
    ("/api/games", json.dumps({"rules_file": "[" * 15000}), "nested deeper than 4 levels"),
    ("/api/games", json.dumps({"rules_file": '{"a":' * 3000}), "nested deeper than 4 levels"),
    ("/api/games", "{not json", "the request body is not JSON"),
]


@pytest.mark.parametrize(("path", "body", "words"), HOSTILE, ids=[w for _, _, w in HOSTILE])
def test_hostile_bodies_get_400_with_a_message_and_the_headers(
    client: TestClient, path: str, body: str, words: str
) -> None:
    answer = client.post(path, content=body, headers={"content-type": "application/json"})
    assert answer.status_code == 400, answer.text
    assert words in answer.json()["error"]
    assert_secured(answer)


def test_a_hostile_action_gets_400(client: TestClient) -> None:
    game = client.post("/api/games", json={"engine": "level-0"}).json()
    answer = client.post(f"/api/games/{game['id']}/action", content=DEEP)
    assert answer.status_code == 400 and "nested deeper" in answer.json()["error"]
    assert_secured(answer)


def test_an_internal_failure_is_a_500_with_the_security_headers(
    client: TestClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    from banqi_gui import watch

    def broken(self: object) -> object:
        raise RuntimeError("a bug of the server's own")

    monkeypatch.setattr(watch.RunFolders, "listing", broken)
    answer = client.get("/api/runs")
    assert answer.status_code == 500
    assert "internal error" in answer.json()["error"]
    assert "a bug" not in answer.text
    assert_secured(answer)


def test_the_run_list_names_runs_never_their_folders(client: TestClient, tmp_path: Path) -> None:
    (tmp_path / "runs" / "t1" / "games").mkdir(parents=True)
    answer = client.get("/api/runs")
    assert answer.json()["runs"] == [{"id": "t1", "live": 0, "finished": 0}]
    assert str(tmp_path) not in answer.text
