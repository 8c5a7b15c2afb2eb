"""DCTP messages: command and reply lines, their parsing, genmove answers."""

import pickle
from collections.abc import Callable

import pytest
from hypothesis import given
from hypothesis import strategies as st

from banqi_engine.rules import PRESETS, RuleSet
from protocol.command_parser import parse_command_line
from protocol.errors import CommandSyntaxError, ProtocolError, ReplySyntaxError
from protocol.messages import (
    COMMAND_NAMES,
    RULE_SET_MAX_CHARS,
    Command,
    CommandId,
    GenmoveAnswer,
    Reply,
    command_id_for_name,
    format_genmove,
    parse_genmove_payload,
    parse_reply_line,
    rule_set_from_payload,
)

KIT_INIT_BOARD = " ".join(["X"] * 32 + ["1", "1", "2", "2", "2", "2", "2", "2", "2", "2"])
KIT_INIT_BOARD += " 2 2 5 5"

EVERY_COMMAND = [
    (Command.protocol_version(), "0 protocol_version"),
    (Command.name(), "1 name"),
    (Command.version(), "2 version"),
    (Command.known_command("genmove"), "3 known_command genmove"),
    (Command.list_commands(), "4 list_commands"),
    (Command.quit(), "5 quit"),
    (Command.boardsize(), "6 boardsize 4 8"),
    (Command.reset_board(), "7 reset_board"),
    (Command.num_repetition(3), "8 num_repetition 3"),
    (Command.num_moves_to_draw(180), "9 num_moves_to_draw 180"),
    (Command.move(4, 8), "10 move a2 a3"),
    (Command.flip(21, 0), "11 flip b6 K"),
    (Command.flip(31, 13), "11 flip d8 p"),
    (Command.genmove("red"), "12 genmove red"),
    (Command.genmove(1), "12 genmove black"),
    (Command.genmove("unknown"), "12 genmove unknown"),
    (
        Command.game_over("red wins: black has no legal move"),
        "13 game_over red wins: black has no legal move",
    ),
    (Command.ready(), "14 ready"),
    (Command.time_settings(900000), "15 time_settings 900000"),
    (Command.time_left("black", 899000), "16 time_left black 899000"),
    (Command.showboard(), "17 showboard"),
    (
        Command.init_board("XXXX/XXXX/XXXX/XXXX/XXXX/XXXX/XXXX/XXXX - 12222251222225 0 0"),
        "18 init_board XXXX/XXXX/XXXX/XXXX/XXXX/XXXX/XXXX/XXXX - 12222251222225 0 0",
    ),
    (
        Command(CommandId.INIT_BOARD, tuple(KIT_INIT_BOARD.split())),
        "18 init_board " + KIT_INIT_BOARD,
    ),
    (
        Command.rule_set(PRESETS["hong-kong"]),
        '19 rule_set {"name":"hong-kong","capture_order":"KRNCGMP","cannon_capture":"step",'
        '"cannon_move":"step","no_progress_limit":80,"repetition_count":3}',
    ),
    (
        Command.rule_set(PRESETS["hong-kong-forum"]),
        '19 rule_set {"name":"hong-kong-forum","capture_order":"KRNCGMP",'
        '"cannon_capture":"step","cannon_move":"step","move_onto_face_down":true,'
        '"no_progress_limit":100,"repetition_count":3}',
    ),
    (Command.reveal_move(4, 8, 13, True), "20 reveal_move a2 a3 p went"),
    (Command.reveal_move(4, 5, 1, False), "20 reveal_move a2 b2 G stayed"),
]


def test_every_command_id_has_a_round_trip_case() -> None:
    assert {command.id for command, _ in EVERY_COMMAND} == set(CommandId)


@pytest.mark.parametrize(("command", "line"), EVERY_COMMAND)
def test_command_line_round_trip(command: Command, line: str) -> None:
    assert command.line() == line
    assert parse_command_line(line) == command
    assert parse_command_line(line + "\r\n") == command


def test_names_and_ids() -> None:
    assert len(CommandId) == 21
    assert COMMAND_NAMES[CommandId.TIME_SETTINGS] == "time_settings"
    assert command_id_for_name("time_settings") is CommandId.TIME_SETTINGS
    assert command_id_for_name("time_setting") is CommandId.TIME_SETTINGS
    assert command_id_for_name("init_board") is CommandId.INIT_BOARD
    assert command_id_for_name("rule_set") is CommandId.RULE_SET
    assert command_id_for_name("reveal_move") is CommandId.REVEAL_MOVE
    assert command_id_for_name("genmov") is None
    for command, name in COMMAND_NAMES.items():
        assert command_id_for_name(name) is command


def test_parsing_dispatches_on_the_id_and_normalises() -> None:
    assert parse_command_line("15 time_setting 900000") == Command.time_settings(900000)
    assert parse_command_line("12 whatever RED") == Command.genmove("red")
    assert parse_command_line("  10   move  A2 a3  ") == Command.move(4, 8)
    assert parse_command_line("16 time_left red 007") == Command.time_left("red", 7)
    assert parse_command_line("16 time_left red -20") == Command.time_left("red", -20)
    assert parse_command_line("13 game_over") == Command(CommandId.GAME_OVER)


BAD_COMMANDS = [
    ("99 foo", 99, "unknown command id 99"),
    ("21 init_board", 21, "unknown command id"),
    ("20 reveal_move a2 a3 p", 20, "expected 4 arguments"),
    ("20 reveal_move a2 a2 p went", 20, "same square"),
    ("20 reveal_move a2 a3 X went", 20, "not a piece letter"),
    ("20 reveal_move a2 a3 p took", 20, "expected went or stayed last, got 'took'"),
    ("20 reveal_move a2 e3 p went", 20, "'e3' is not a square"),
    ("19 rule_set", 19, "expected 1 argument"),
    ("19 rule_set {} {}", 19, "expected 1 argument"),
    ("19 rule_set {", 19, "rule_set: payload: Invalid JSON"),
    ('19 rule_set {"cannon_move":"jump"}', 19, "cannon_move: Input should be 'step' or 'slide'"),
    ('19 rule_set {"capture_order":"KGM"}', 19, "capture_order: Value error, must list"),
    ('19 rule_set {"castling":true}', 19, "castling: Extra inputs are not permitted"),
    ('19 rule_set {"name":"' + "n" * RULE_SET_MAX_CHARS + '"}', 19, "at most 1024"),
    ("12", 12, "missing command name"),
    ("12 genmove", 12, "expected 1 argument"),
    ("12 genmove red black", 12, "expected 1 argument"),
    ("12 genmove blue", 12, "'blue'"),
    ("16 time_left unknown 5", 16, "expected a colour red or black"),
    ("16 time_left red", 16, "expected 2 arguments"),
    ("16 time_left red 5s", 16, "'5s'"),
    ("15 time_settings ten", 15, "'ten'"),
    ("15 time_settings -5", 15, ">= 0"),
    ("15 time_setting", 15, "expected 1 argument"),
    ("10 move a2", 10, "expected 2 arguments"),
    ("10 move a2 e9", 10, "'e9' is not a square"),
    ("10 move a0 a1", 10, "'a0' is not a square"),
    ("10 move b2 b2", 10, "same square"),
    ("11 flip b6 X", 11, "not a piece letter"),
    ("11 flip b6 KK", 11, "not a piece letter"),
    ("11 flip z6 K", 11, "not a square"),
    ("7 reset_board now", 7, "expected 0 arguments"),
    ("1 name please", 1, "expected 0 arguments"),
    ("3 known_command", 3, "expected 1 argument"),
    ("6 boardsize 4", 6, "expected 2 arguments"),
    ("6 boardsize 4 x", 6, "'x'"),
    ("8 num_repetition three", 8, "'three'"),
    ("9 num_moves_to_draw 1e3", 9, "'1e3'"),
    ("18 init_board", 18, "got 0 words"),
    ("18 init_board " + " ".join(["X"] * 20), 18, "got 20 words"),
    ("18 init_board " + KIT_INIT_BOARD.replace("X", "Q", 1), 18, "token 1 ('Q')"),
    ("18 init_board " + KIT_INIT_BOARD[:-1] + "x", 18, "count of 'p'"),
]


@pytest.mark.parametrize(("line", "number", "fragment"), BAD_COMMANDS)
def test_bad_commands_name_their_id_and_reason(line: str, number: int, fragment: str) -> None:
    with pytest.raises(CommandSyntaxError) as caught:
        parse_command_line(line)
    assert caught.value.id == number
    assert fragment in str(caught.value)
    assert isinstance(caught.value, ProtocolError)


@pytest.mark.parametrize(
    "rules",
    [
        *PRESETS.values(),
        RuleSet(name="house rules: été 🀄", capture_order="KRNCGMP", repetition_count=4),
        RuleSet(name="🀄" * 5000, no_progress_limit=10_000, repetition_count=100),
    ],
    ids=[*PRESETS, "spaces-and-unicode", "longest"],
)
def test_a_rule_set_travels_in_one_bounded_ascii_word(rules: RuleSet) -> None:
    line = Command.rule_set(rules).line()
    payload = line.removeprefix("19 rule_set ")
    assert payload.isascii() and payload.split() == [payload]
    assert len(payload) <= RULE_SET_MAX_CHARS
    parsed = parse_command_line(line)
    told = rule_set_from_payload(parsed.args[0])
    assert told == rules.model_copy(update={"name": rules.name[:64]})


def test_command_syntax_error_pickles_with_its_id() -> None:
    error = pickle.loads(pickle.dumps(CommandSyntaxError("bad square", 10)))
    assert (str(error), error.id) == ("bad square", 10)


@pytest.mark.parametrize(
    "line", ["", "\r\n", "   ", "hello", "genmove red", "-1 name", "1x name", "١ name", "9" * 19]
)
def test_lines_without_a_usable_id(line: str) -> None:
    with pytest.raises(CommandSyntaxError) as caught:
        parse_command_line(line)
    assert caught.value.id is None


@pytest.mark.parametrize(
    ("make", "fragment"),
    [
        (lambda: Command.genmove("blue"), "blue"),
        (lambda: Command.genmove(7), "colour code 7"),
        (lambda: Command.time_left("unknown", 5), "red or black"),
        (lambda: Command.move(3, 3), "flip"),
        (lambda: Command.flip(3, 14), "piece code 14"),
        (lambda: Command.time_settings(-1), ">= 0"),
        (lambda: Command.num_repetition(-2), ">= 0"),
        (lambda: Command.known_command("two words"), "one word"),
    ],
)
def test_constructors_refuse_bad_values(make: Callable[[], Command], fragment: str) -> None:
    """A programming error in the driver: a plain ValueError, not a subclass of it (such as
    UnicodeError) and not a ProtocolError, which would pass for an engine's fault."""
    with pytest.raises(ValueError, match=fragment) as caught:
        make()
    assert type(caught.value) is ValueError


REPLIES = [
    (Reply(12, True, "a2 a3"), "=12 a2 a3"),
    (Reply(7, True), "=7"),
    (Reply(12, False, "the game is over"), "?12 the game is over"),
    (Reply(99, False), "?99"),
    (Reply(0, True, "1.1.0"), "=0 1.1.0"),
]


@pytest.mark.parametrize(("reply", "line"), REPLIES)
def test_reply_line_round_trip(reply: Reply, line: str) -> None:
    assert reply.line() == line
    assert parse_reply_line(line) == reply
    assert parse_reply_line(line + "\r\n") == reply


def test_multi_line_payload_keeps_its_newlines() -> None:
    names = "\n".join(COMMAND_NAMES.values())
    text = Reply(4, True, names).line()
    assert text.splitlines()[0] == "=4 protocol_version"
    assert text.splitlines()[1:] == list(COMMAND_NAMES.values())[1:]
    assert parse_reply_line(text.splitlines()[0]) == Reply(4, True, "protocol_version")
    assert all(parse_reply_line(line) is None for line in text.splitlines()[1:])


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        ("=12", Reply(12, True)),
        ("?3 x", Reply(3, False, "x")),
        ("=12 ", Reply(12, True)),
        ("=12  a2 a3 ", Reply(12, True, "a2 a3")),
        ("=007 ok", Reply(7, True, "ok")),
    ],
)
def test_reply_lines(line: str, expected: Reply) -> None:
    assert parse_reply_line(line) == expected


@pytest.mark.parametrize(
    "line",
    [
        "=12abc",
        "=",
        "?",
        "= 12",
        "=-1",
        "=12\ta2 a3",
        "12 a2 a3",
        "",
        "8 X X X X",
        "  a b c d",
        "XXXX/XXXX/XXXX/XXXX/XXXX/XXXX/XXXX/XXXX - 12222251222225 0 0",
        "debug: =12 a2 a3",
        "=١٢",
        "=" + "1" * 19,
        "\ufffd\ufffd garbage",
    ],
)
def test_noise(line: str) -> None:
    assert parse_reply_line(line) is None


@pytest.mark.parametrize(
    ("payload", "move"),
    [("a2 a3", 4 << 5 | 8), ("b6 b6", 21 * 33), ("a0 a0", None), ("d8 a8", 31 << 5 | 28)],
)
def test_genmove_payload(payload: str, move: int | None) -> None:
    assert parse_genmove_payload(payload) == GenmoveAnswer(move)
    assert format_genmove(move) == payload


def test_genmove_payload_is_lenient_about_case_and_blanks() -> None:
    assert parse_genmove_payload(" A2  a3 ") == GenmoveAnswer(4 << 5 | 8)
    assert parse_genmove_payload("A0 A0") == GenmoveAnswer(None)


@pytest.mark.parametrize(
    ("payload", "fragment"),
    [
        ("", "expected two squares"),
        ("a2", "expected two squares"),
        ("a2 a3 a4", "expected two squares"),
        ("a2-a3", "expected two squares"),
        ("e2 a3", "'e2' is not a square"),
        ("a0 a1", "'a0' is not a square"),
        ("resign", "expected two squares"),
    ],
)
def test_bad_genmove_payloads(payload: str, fragment: str) -> None:
    with pytest.raises(ReplySyntaxError, match=fragment):
        parse_genmove_payload(payload)


@given(st.integers(0, 31), st.integers(0, 31))
def test_genmove_round_trip_for_every_square_pair(frm: int, to: int) -> None:
    move = frm << 5 | to
    assert parse_genmove_payload(format_genmove(move)) == GenmoveAnswer(move)
