"""The GUI server's API, driven directly: play, hints, undo, the end and its record, bad
requests (a clear error and an unchanged game), nothing face down ever revealed, and moves
onto face-down pieces (the hong-kong-forum rules) played, echoed, recorded and replayed."""

import json
import random
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("starlette", reason="the GUI tests need: pip install -e '.[test]'")
pytest.importorskip("httpx2", reason="the GUI tests need: pip install -e '.[test]'")

from gui_helpers import HEADERS, TOKEN, builtin_loop, gui_config, hidden_squares
from starlette.testclient import TestClient

import banqi_gui.play_session
from banqi_engine.game import Game
from banqi_engine.notation import parse_ply
from banqi_engine.pieces import PIECE_LETTERS
from banqi_engine.position import Position
from banqi_engine.rules import PRESETS, takes_revealed
from banqi_gui.app import create_app
from banqi_gui.board_view import action_kind, legal_actions, taken_piece
from banqi_gui.play_settings import UNTIMED_ENGINE_MOVE_TIME
from banqi_gui.play_view import NO_UNDO_PAST_A_FLIP, replayed
from protocol.connection import EngineConnection
from protocol.engine_loop import DctpEngine
from protocol.errors import EngineStartError
from protocol.line_protocol import TrafficLog
from protocol.messages import Reply
from referee.deals import layout_from_secret
from referee.engine_spec import EngineSpec
from referee.engine_start import in_process_engines
from referee.record import GameRecord, PlyRecord
from referee.replay import replay_game_record
from referee.text_record import format_text_record, parse_text_record
from referee.withheld import withhold

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


def first_action(state: dict[str, Any]) -> str:
    """The first legal action of the state as the page sends it: a flip by its square, any
    other action as ``from-to`` (``legal`` is keyed by the square an action starts from,
    a face-up piece's moves as well as flips)."""
    frm, actions = next(iter(state["legal"].items()))
    action = actions[0]
    return frm if action["kind"] == "flip" else f"{frm}-{action['to']}"


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
    assert set(options["rules"]) == {
        "olympiad",
        "hong-kong",
        "taiwan-sliding-cannon",
        "casual",
        "hong-kong-forum",
    }
    assert options["rules"]["hong-kong-forum"]["move_onto_face_down"] is True
    assert options["rules"]["olympiad"]["move_onto_face_down"] is False
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
    assert not first["can_undo"]  # the person's flip: taking it back would uncover it
    refused = client.post(f"/api/games/{state['id']}/undo")
    assert refused.status_code == 409 and refused.json()["error"] == NO_UNDO_PAST_A_FLIP
    second = act(client, first, first_action(first))
    revealed = any("(" in ply["move"] for ply in second["plies"][2:])
    assert len(second["plies"]) == 4 and second["can_undo"] is not revealed
    undone = client.post(f"/api/games/{state['id']}/undo")
    if revealed:
        assert undone.status_code == 409
        assert client.get(f"/api/games/{state['id']}").json()["plies"] == second["plies"]
    else:
        after = undone.json()
        assert after["plies"] == first["plies"] and after["board"] == first["board"]
        assert after["captured"] == first["captured"]
        again = act(client, after, first_action(after))  # the engine plays on after it
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
    refused = client.post(f"/api/games/{state['id']}/undo")  # d8 was a flip
    assert refused.status_code == 409 and refused.json()["error"] == NO_UNDO_PAST_A_FLIP
    after = client.get(f"/api/games/{state['id']}").json()
    assert after["plies"] == state["plies"] and after["board"] == state["board"]


def test_an_undo_never_turns_a_face_up_piece_down_again(client: TestClient) -> None:
    """Flip, try to undo, and the piece stays where it was seen: nothing hidden can be
    learned by flipping the same square again, as it never goes back face down."""
    for _ in range(3):
        state = client.post("/api/games", json={"mode": "people", "first": "you"}).json()
        flipped = act(client, state, "b3")
        shown = flipped["board"][SQUARES.index("b3")]
        assert shown != "X" and not flipped["can_undo"]
        assert client.post(f"/api/games/{state['id']}/undo").status_code == 409
        after = client.get(f"/api/games/{state['id']}").json()
        assert after["board"][SQUARES.index("b3")] == shown and after["plies"] == flipped["plies"]


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


# -- moves onto face-down pieces (hong-kong-forum) ----------------------------------------

FORUM = PRESETS["hong-kong-forum"]
SECRET = f"{1:064x}"
"""A deal in which, after b2 and the engine's flip, a piece of the person's may take what it
turns up, and level 0 (seed 7) soon plays a move onto a face-down piece of its own."""
SQUARES = [file + str(rank) for rank in range(1, 9) for file in "abcd"]


class Heard(DctpEngine):
    """A built-in level that notes every line it is told and whether it accepted it."""

    def __init__(self, spec: EngineSpec, heard: list[tuple[str, bool]]) -> None:
        loop = builtin_loop(spec)
        super().__init__(loop.rules, loop.player)
        self.heard = heard

    def handle_line(self, line: str) -> Reply | None:
        reply = super().handle_line(line)
        self.heard.append((line.strip(), reply is None or reply.ok))
        return reply


class NoRuleSet(DctpEngine):
    """A built-in level written for the platform alone: it refuses ``rule_set``."""

    def handle_line(self, line: str) -> Reply | None:
        if " rule_set " in f" {line} ":
            return Reply(int(line.split()[0]), False, "unknown command")
        return super().handle_line(line)


def no_rule_set(spec: EngineSpec) -> DctpEngine:
    loop = builtin_loop(spec)
    return NoRuleSet(loop.rules, loop.player)


def reveals(state: dict[str, Any], player: int) -> list[str]:
    """The moves onto face-down pieces a player made, as recorded (``a2-a3(k)``)."""
    return [
        ply["move"]
        for ply in state["plies"]
        if ply["player"] == player and "-" in ply["move"] and "(" in ply["move"]
    ]


def test_a_person_and_level_0_move_onto_face_down_pieces(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(banqi_gui.play_session, "fresh_secret", lambda: SECRET)
    layout = layout_from_secret(SECRET)
    heard: list[tuple[str, bool]] = []
    factory = in_process_engines(lambda spec: Heard(spec, heard))
    with TestClient(create_app(gui_config(tmp_path, factory)), headers=HEADERS) as client:
        state = act(client, new_game(client, rules="hong-kong-forum", first="you"), "b2")
        assert state["rules"]["move_onto_face_down"] is True
        actions = [(frm, a) for frm, some in state["legal"].items() for a in some]
        onto = [(frm, a["to"]) for frm, a in actions if a["kind"] == "reveal"]
        assert onto and all(state["board"][SQUARES.index(to)] == "X" for _, to in onto)
        mover = PIECE_LETTERS.index(state["board"][SQUARES.index("b2")])
        frm, to = next(
            (f, t) for f, t in onto if takes_revealed(FORUM, mover, layout[SQUARES.index(t)])
        )
        shown = PIECE_LETTERS[layout[SQUARES.index(to)]]
        url = f"/api/games/{state['id']}/action"
        refused = client.post(url, json={"move": f"{frm}-{to}({shown})"})
        assert refused.status_code == 400 and "two squares alone" in refused.json()["error"]
        taken = state["captured"]["red"] + state["captured"]["black"]
        state = act(client, state, f"{frm}-{to}")
        assert reveals(state, 0) == [f"{frm}-{to}({shown})"]  # the piece from the layout
        assert state["board"][SQUARES.index(to)] == PIECE_LETTERS[mover]
        assert state["board"][SQUARES.index(frm)] == "-"
        assert state["captured"]["red"] + state["captured"]["black"] == taken + shown
        check_public(state)

        choose = random.Random(1)  # flips until the engine moves onto a face-down piece
        before = state
        while not reveals(state, 1) and len(state["plies"]) < 20 and state["over"] is None:
            flips = [f for f, some in state["legal"].items() if some[0]["kind"] == "flip"]
            before, state = state, act(client, state, choose.choice(flips))
            check_public(state)
        [engine_move] = reveals(state, 1)
        assert (f"20 reveal_move {frm} {to} {shown} went", True) in heard
        told = [line for line, _ in heard if " reveal_move " in line]
        assert len(told) == 2 and all(ok for _, ok in heard)
        assert engine_move.startswith(told[1].split()[2] + "-" + told[1].split()[3])
        if told[1].endswith("went"):  # what it took is in the strips
            letter = engine_move[-2]
            assert letter in state["captured"]["red" if letter.isupper() else "black"]

        refused = client.post(f"/api/games/{state['id']}/undo")  # it turned a piece up
        assert refused.status_code == 409 and refused.json()["error"] == NO_UNDO_PAST_A_FLIP
        assert before["plies"] != state["plies"]

        over = client.post(f"/api/games/{state['id']}/resign").json()
        text = client.get(f"/api/games/{state['id']}/record.json").text
        record = GameRecord.model_validate_json(text)
        assert [ply.move for ply in record.plies] == [p["move"] for p in over["plies"]]
        assert replay_game_record(record).ok

        replay = client.post("/api/replay", content=text).json()
        assert replay["problem"] is None and len(replay["frames"]) == len(record.plies) + 1
        assert replay["frames"][-1]["board"] == over["board"]
        assert replay["frames"][-1]["captured"] == over["captured"]
        at = next(i for i, f in enumerate(replay["frames"]) if f["move"] == f"{frm}-{to}({shown})")
        assert shown in replay["frames"][at]["captured"]["red" if shown.isupper() else "black"]

        withheld = withhold(record).model_dump_json()
        shape = client.post("/api/replay", content=withheld).json()
        assert shape["problem"] is None and shape["withheld"] and shape["layout"] is None
        assert shape["frames"][at]["move"] == f"{frm}-{to}(?)"
        assert shape["frames"][at]["board"][SQUARES.index(frm)] == "~"  # took it, or stayed
        assert set("".join(f["board"] for f in shape["frames"])) <= {"X", "?", "-", "~"}

        as_text = format_text_record(record, Position.opening())
        params = {"rules": "hong-kong-forum"}
        from_text = client.post("/api/replay", content=as_text, params=params).json()
        assert from_text["problem"] is None
        assert [f["board"] for f in from_text["frames"]] == [f["board"] for f in replay["frames"]]


def test_a_move_onto_a_face_down_piece_is_a_reveal_that_takes_what_the_mover_may() -> None:
    game = Game(FORUM)
    for ply in ("b2(G)", "d3(m)"):
        game.play_ply(parse_ply(ply))
    move = parse_ply("b2-b1").move
    assert action_kind(game.position, move) == "reveal"
    assert {"to": "b1", "kind": "reveal"} in legal_actions(game)["b2"]
    assert taken_piece(game.position, parse_ply("b2-b1(g)"), FORUM) == "g"  # G takes g
    assert taken_piece(game.position, parse_ply("b2-b1(k)"), FORUM) is None  # not the king
    assert taken_piece(game.position, parse_ply("b2-b1(P)"), FORUM) is None  # its own colour
    assert taken_piece(game.position, parse_ply("b2-b1(?)"), FORUM) is None  # withheld


def test_moves_onto_face_down_pieces_only_where_the_rules_allow_them(client: TestClient) -> None:
    state = act(client, new_game(client, first="you"), "b2")  # olympiad
    assert all(a["kind"] != "reveal" for some in state["legal"].values() for a in some)
    to = next(s for s in ("b1", "b3", "a2", "c2") if state["board"][SQUARES.index(s)] == "X")
    answer = client.post(f"/api/games/{state['id']}/action", json={"move": f"b2-{to}"})
    assert answer.status_code == 400
    assert "does not allow moving onto a face-down piece" in answer.json()["error"]


def test_an_engine_that_cannot_be_told_the_rules_is_not_seated(tmp_path: Path) -> None:
    config = gui_config(tmp_path, in_process_engines(no_rule_set))
    with TestClient(create_app(config), headers=HEADERS) as client:
        answer = client.post("/api/games", json={"engine": "level-0", "rules": "hong-kong-forum"})
        assert answer.status_code == 422, answer.text
        words = answer.json()["error"]
        assert "level-0 cannot play these rules" in words and "reveal_move" in words
        # Rules it can follow without being told (echoes it knows) are played as before.
        state = new_game(client, rules="hong-kong", first="opponent")
        assert state["over"] is None and len(state["plies"]) == 1


def test_hints_come_from_the_full_engine_whatever_the_opponent(
    client: TestClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    asked: list[int] = []
    real = banqi_gui.play_session.make_player

    def recorded(level: int, seed: int | None, rules: Any) -> Any:
        asked.append(level)
        return real(level, seed, rules)

    monkeypatch.setattr(banqi_gui.play_session, "make_player", recorded)
    state = new_game(client, first="you", engine="level-0")
    for _ in range(2):
        hint = client.post(f"/api/games/{state['id']}/hint").json()
        assert hint["hint"] in hint["state"]["legal"] or hint["hint"][:2] in hint["state"]["legal"]
    assert asked == [3]  # made once, at the top level, and kept for the game


def test_an_untimed_game_gives_the_engine_a_limit_a_move_and_the_person_none(
    tmp_path: Path,
) -> None:
    heard: list[tuple[str, bool]] = []
    factory = in_process_engines(lambda spec: Heard(spec, heard))
    with TestClient(create_app(gui_config(tmp_path, factory)), headers=HEADERS) as client:
        limit = client.get("/api/options").json()["untimed_engine_move_time"]
        assert limit == UNTIMED_ENGINE_MOVE_TIME
        state = new_game(client, first="opponent")
        assert state["clocks"] is None and len(state["plies"]) == 1
        assert [player["move_time"] for player in state["players"]] == [None, limit]
        assert state["turn_ms"] is not None and not state["thinking"]
        lines = [line.split()[1:] for line, _ in heard]
        genmove = lines.index(["genmove", "unknown"])
        assert lines[genmove - 2 : genmove] == [
            ["time_left", "red", "5000"],
            ["time_left", "black", "5000"],
        ]
        client.post(f"/api/games/{state['id']}/resign")
        record = client.get(f"/api/games/{state['id']}/record.json").json()
        assert record["players"][1]["time_control"]["move_time"] == limit
        assert "time_control" not in record["players"][0]
        heard.clear()
        timed = new_game(client, first="opponent", time=60)
        assert [player["move_time"] for player in timed["players"]] == [None, None]
        lines = [line.split()[1:] for line, _ in heard]
        assert lines[lines.index(["genmove", "unknown"]) - 1][0] != "time_left"


def test_each_ply_says_which_piece_moved_or_turned_up_and_what_it_took() -> None:
    moves = ["a1(K)", "a2(g)", "a1-a2", "b2(r)", "a2-a3(p)", "b2-b3(P)"]
    plies = [PlyRecord(player=n % 2, move=m, ms=0, clocks_ms=(0, 0)) for n, m in enumerate(moves)]
    views, strips = replayed(plies, FORUM)
    assert [(view["piece"], view["took"]) for view in views] == [
        ("K", None),  # a flip: the piece it turned up
        ("g", None),
        ("K", "g"),  # a capture
        ("r", None),
        ("K", None),  # onto a face-down Pawn a King may not take: it stays
        ("r", "P"),  # onto a face-down Pawn a Chariot takes
    ]
    assert strips == {"red": "P", "black": "g"}
