"""Moves onto face-down pieces across DCTP, the referee, records and replay: the engine
follows ``reveal_move`` echoes and plays the variant, the referee echoes and records
such moves, and an engine that does not take such a rule set does not play it."""

import asyncio
import io
import json
from pathlib import Path

import pytest
from click.testing import CliRunner
from in_process_engines import engine_spec, in_process
from referee_fakes import Fake, play, rule_set_fake, survivors, write_fake

from banqi_cli.main import cli
from banqi_common.errors import InputError
from banqi_engine.errors import MoveError
from banqi_engine.notation import parse_ply
from banqi_engine.perft import divide
from banqi_engine.players import make_player
from banqi_engine.position import parse_position
from banqi_engine.rules import PRESETS, RuleSet
from protocol.engine_loop import DctpEngine
from protocol.messages import Reply, rule_set_from_payload, rule_set_payload
from referee.engine_check import EngineCheckError, check_engines
from referee.engine_start import start_engine_process
from referee.reasons import Reason
from referee.record import GameRecord
from referee.replay import replay_game_record, replay_text_record
from referee.shape_board import FACE_UP, UNSURE, ShapeBoard
from referee.storage import traffic_path
from referee.text_record import parse_text_record
from referee.withheld import complete, withhold

FORUM = PRESETS["hong-kong-forum"]
OLYMPIAD = PRESETS["olympiad"]
ROOK_BY_HIDDEN_GUARDS = "----/----/----/----/----/----/X---/RX-- r 00000000110000"
"""A red rook beside two face-down black pieces, a guard and a minister: a rook takes
either by a step under the Hong Kong order, so moving onto one wins a piece for sure."""


def new_engine(level: int, rules: RuleSet = FORUM) -> DctpEngine:
    return DctpEngine(rules, make_player(level, 0, rules), board_stream=io.StringIO())


def ask(engine: DctpEngine, line: str) -> Reply:
    reply = engine.handle_line(line)
    assert reply is not None, line
    return reply


def test_the_engine_follows_reveal_move_echoes() -> None:
    engine = new_engine(1, OLYMPIAD)
    assert ask(engine, "19 rule_set " + rule_set_payload(FORUM)).ok
    assert ask(engine, "11 flip b2 K").ok
    assert ask(engine, "11 flip a1 p").ok
    assert ask(engine, "20 reveal_move b2 b3 g went").ok
    pos = engine.game.position
    assert pos.to_string().startswith("XXXX/XXXX/XXXX/XXXX/XXXX/XKXX/X-XX/pXXX b ")
    assert pos.pool[8] == 1 and pos.no_progress == 0
    assert ask(engine, "20 reveal_move a1 a2 N stayed").ok  # a pawn does not take a knight
    assert engine.game.position.board_field().endswith("/XKXX/N-XX/pXXX")


def test_the_engine_refuses_wrong_reveal_move_echoes_and_changes_nothing() -> None:
    engine = new_engine(1)
    for line in ("11 flip b2 K", "11 flip a1 p"):
        assert ask(engine, line).ok
    before = engine.game.position.to_string()
    refusals = {
        "20 reveal_move b2 b3 g stayed": "the K on b2 takes a revealed g, so it went",
        "20 reveal_move b2 b3 p went": "does not take a revealed p, so it stayed",
        "20 reveal_move b2 b4 g went": "not next to b2",
        "20 reveal_move a1 b1 k went": "the piece on a1 is not red's",
        "10 move b2 b3": "onto a face-down piece needs the piece it revealed",
        "20 reveal_move b2 b3 K went": "no 'K' is left face down",
    }
    for line, reason in refusals.items():
        reply = ask(engine, line)
        assert (reply.ok, reply.id) == (False, int(line.split()[0])), line
        assert reason in reply.payload, (line, reply.payload)
        assert engine.game.position.to_string() == before


def test_under_rules_without_the_move_the_echo_is_refused() -> None:
    engine = new_engine(1, OLYMPIAD)
    for line in ("11 flip b2 K", "11 flip a1 p"):
        assert ask(engine, line).ok
    reply = ask(engine, "20 reveal_move b2 b3 g went")
    assert not reply.ok
    assert "does not allow moving onto a face-down piece" in reply.payload


@pytest.mark.parametrize("level", [1, 2, 3])
def test_the_engine_plays_the_variant(level: int) -> None:
    engine = new_engine(level)
    listed = ask(engine, "4 list_commands").payload.split()
    assert {"rule_set", "reveal_move"} <= set(listed)
    assert ask(engine, "3 known_command reveal_move").line() == "=3 true"
    assert ask(engine, "18 init_board " + ROOK_BY_HIDDEN_GUARDS).ok
    assert ask(engine, "16 time_left red 5000").ok
    assert ask(engine, "12 genmove red").payload in ("a1 a2", "a1 b1")
    olympiad = new_engine(level, OLYMPIAD)
    assert ask(olympiad, "18 init_board " + ROOK_BY_HIDDEN_GUARDS).ok
    move = ask(olympiad, "12 genmove red").payload.split()
    assert move[0] == move[1]  # only flips: the rook may not move onto them


def test_the_rule_set_payload_names_the_field_only_when_it_is_on() -> None:
    assert "move_onto_face_down" not in rule_set_payload(PRESETS["hong-kong"])
    assert '"move_onto_face_down":true' in rule_set_payload(FORUM)
    for rules in PRESETS.values():
        assert rule_set_from_payload(rule_set_payload(rules)) == rules


def test_the_referee_echoes_records_and_replays_moves_onto_face_down_pieces(
    tmp_path: Path,
) -> None:
    engines = (engine_spec("a", "--level", "1", "--seed", "1"), engine_spec("b", "--level", "1"))
    records = play(
        tmp_path, engines, rules="hong-kong-forum", log_traffic=True, start_engine=in_process()
    )
    [record] = records
    assert record.reason.is_board_end, record.detail
    assert [p.rules_told for p in record.players] == [True, True]
    reveals = [p.move for p in record.plies if parse_ply(p.move).onto_face_down]
    assert reveals, "level 1 plays moves onto face-down pieces"
    assert all(parse_ply(move).piece is not None for move in reveals)
    echoes = [
        line
        for line in traffic_path(tmp_path, record.game_id).read_text().splitlines()
        if "> 20 reveal_move" in line
    ]
    assert len(echoes) == 2 * len(reveals)  # to both engines
    assert all(line.split()[-1] in ("went", "stayed") for line in echoes)
    assert replay_game_record(record).ok

    text = (tmp_path / "games" / f"{record.game_id}.txt").read_text()
    assert reveals[0] in text
    assert replay_text_record(parse_text_record(text), FORUM).ok
    wrong_rules = replay_text_record(parse_text_record(text), OLYMPIAD)
    assert not wrong_rules.ok
    assert "does not allow moving onto a face-down piece" in wrong_rules.problems[0]


def test_a_withheld_record_hides_what_a_move_onto_a_face_down_piece_found(
    tmp_path: Path,
) -> None:
    engines = (engine_spec("a", "--level", "1", "--seed", "3"), engine_spec("b", "--level", "1"))
    [record] = play(tmp_path, engines, rules="hong-kong-forum", start_engine=in_process())
    hidden = withhold(record)
    moves = [ply.move for ply in hidden.plies]
    reveals = [move for move in moves if parse_ply(move).onto_face_down]
    assert reveals and all(move.endswith("(?)") for move in reveals)
    assert replay_game_record(hidden).ok  # checked in shape
    assert record.layout is not None
    assert complete(hidden, record.deal_secret or "").plies == record.plies

    data = json.loads(hidden.model_dump_json())
    index = moves.index(reveals[0])
    data["plies"][index]["move"] = record.plies[index].move
    with pytest.raises(ValueError, match="without the piece, like"):
        GameRecord.model_validate(data)


def test_the_shape_board_keeps_the_square_a_move_onto_a_face_down_piece_left_unsure() -> None:
    board = ShapeBoard(FORUM)
    for text in ("b2", "b2-b3(?)"):
        board.play(parse_ply(text))
    assert (board.squares[5], board.squares[9]) == (UNSURE, FACE_UP)
    board.play(parse_ply("b3-a3(?)"))
    board.play(parse_ply("b2-c2(?)"))  # b2 held the piece after all: it stayed
    with pytest.raises(MoveError, match="not face down"):
        board.play(parse_ply("a3"))
    with pytest.raises(MoveError, match="not next to"):
        board.play(parse_ply("a3-a5(?)"))
    olympiad = ShapeBoard(OLYMPIAD)
    olympiad.play(parse_ply("b2"))
    with pytest.raises(MoveError, match="cannot be taken"):
        olympiad.play(parse_ply("b2-b3(?)"))


def test_an_engine_that_does_not_take_the_rules_loses_by_rules_refused(
    tmp_path: Path, fakes: list[Fake]
) -> None:
    plain = write_fake(tmp_path / "e", "plain", legal=True, rules="hong-kong-forum")
    fakes.append(plain)
    ours = engine_spec("ours", "--level", "1")
    assert (
        asyncio.run(check_engines([plain.spec()], start_engine_process, 1000, 5.0, OLYMPIAD))
        is None
    )
    [record] = play(tmp_path / "run", (ours, plain.spec()), rules="hong-kong-forum")
    assert record.reason is Reason.RULES_REFUSED
    assert record.result == "ours wins: plain did not take the rules"
    assert "did not take the rule set 'hong-kong-forum'" in record.detail
    assert survivors(plain.pids()) == []


def test_the_engine_check_refuses_an_engine_that_cannot_be_told(
    tmp_path: Path, fakes: list[Fake]
) -> None:
    plain = write_fake(tmp_path / "e", "plain")
    refuses = write_fake(tmp_path / "e", "refuses", rule_set_fake(accepts=False))
    fakes += [plain, refuses]
    for fake, words in ((plain, "does not list rule_set"), (refuses, "refused them: cannot")):
        with pytest.raises(EngineCheckError, match=words) as caught:
            asyncio.run(check_engines([fake.spec()], start_engine_process, 1000, 5.0, FORUM))
        assert isinstance(caught.value, InputError)
        assert "cannot play the rule set 'hong-kong-forum'" in str(caught.value)


def test_a_match_under_the_variant_refuses_such_an_engine_before_any_game(
    tmp_path: Path, fakes: list[Fake]
) -> None:
    plain = write_fake(tmp_path / "e", "plain", legal=True, rules="hong-kong-forum")
    fakes.append(plain)
    out = tmp_path / "run"
    args = ["match", " ".join(plain.command), "banqi-engine --level 1", "--games", "2"]
    result = CliRunner().invoke(
        cli, [*args, "--rules", "hong-kong-forum", "--out", str(out), "--sandbox", "off"]
    )
    assert result.exit_code == 1, result.output
    assert "cannot play the rule set 'hong-kong-forum'" in result.output
    assert "does not list rule_set" in result.output
    assert not (out / "games").exists()


def test_perft_of_a_position_with_moves_onto_face_down_pieces_counts_their_outcomes() -> None:
    rows = dict(divide(parse_position(ROOK_BY_HIDDEN_GUARDS), FORUM, 1))
    assert set(rows) == {"a1-a2(g)", "a1-a2(m)", "a1-b1(g)", "a1-b1(m)", *_flips()}


def _flips() -> set[str]:
    return {f"{square}({piece})" for square in ("a2", "b1") for piece in "gm"}
