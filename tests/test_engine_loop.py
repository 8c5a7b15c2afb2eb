"""The engine side of DCTP, driven in-process."""

import io

import pytest

from banqi_engine.game import Game
from banqi_engine.moves import is_flip
from banqi_engine.pieces import BLACK, RED, UNDECIDED, Colour
from banqi_engine.players import make_player
from banqi_engine.position import OPENING, parse_position
from banqi_engine.rules import PRESETS
from protocol.engine_loop import (
    ENGINE_VERSION,
    MAX_REASON_CHARS,
    DctpEngine,
    genmove_budget,
    run_engine,
)
from protocol.messages import (
    COMMAND_NAMES,
    Reply,
    parse_genmove_payload,
    parse_reply_line,
    rule_set_payload,
)

OLYMPIAD = PRESETS["olympiad"]
MIDGAME = "XpXn/XpG-/Xn-X/XXX-/XX-P/-XK-/NXXX/C--C b 01220021111012 3 40"
RED_ONLY = "K---/----/----/----/----/----/----/---- b 00000000000000"
KIT_OPENING = " ".join(["X"] * 32) + " 1 1 2 2 2 2 2 2 2 2 2 2 5 5"
KIT_ENDGAME = " ".join("K---" + "-" * 12 + "-X--" + "-" * 11 + "k") + " 0 0 0 0 0 0 0 0 0 0 0 0 1 0"


class RecordingPlayer:
    """Plays the first legal move and remembers the budgets it was given."""

    def __init__(self) -> None:
        self.budgets: list[float | None] = []

    def choose(self, game: Game, budget_seconds: float | None) -> int:
        self.budgets.append(budget_seconds)
        return game.legal_moves()[0]


class BrokenPlayer:
    """Fails the way a buggy search would."""

    def choose(self, game: Game, budget_seconds: float | None) -> int:
        raise RuntimeError("search exploded")


def new_engine(level: int = 1, seed: int = 0) -> DctpEngine:
    return DctpEngine(OLYMPIAD, make_player(level, seed, OLYMPIAD), board_stream=io.StringIO())


def ask(engine: DctpEngine, line: str) -> Reply:
    reply = engine.handle_line(line)
    assert reply is not None, line
    return reply


def ok(engine: DctpEngine, line: str) -> str:
    reply = ask(engine, line)
    assert reply.ok, (line, reply)
    return reply.payload


def plays_for(engine: DctpEngine, colour: str, side: Colour) -> None:
    """``12 genmove <colour>`` answers a legal move of ``side``, which is then to move."""
    move = parse_genmove_payload(ok(engine, f"12 genmove {colour}")).move
    assert engine.game.side == side
    assert move in engine.game.legal_moves()


def refused(engine: DctpEngine, line: str) -> str:
    before = engine.game.position.to_string(), list(engine.game.plies), engine.rules
    reply = ask(engine, line)
    assert not reply.ok, (line, reply)
    assert reply.id == int(line.split()[0])
    assert reply.payload and "\n" not in reply.payload
    assert (engine.game.position.to_string(), engine.game.plies, engine.rules) == before
    return reply.payload


SIMPLE_ANSWERS = [
    ("0 protocol_version", "=0 1.1.0"),
    ("1 name", "=1 banqi-engine"),
    ("2 version", f"=2 {ENGINE_VERSION}"),
    ("3 known_command genmove", "=3 true"),
    ("3 known_command time_setting", "=3 true"),
    ("3 known_command time_settings", "=3 true"),
    ("3 known_command undo", "=3 false"),
    ("3 known_command rule_set", "=3 true"),
    ("4 list_commands", "=4 " + "\n".join(COMMAND_NAMES.values())),
    ("5 quit", "=5"),
    ("6 boardsize 4 8", "=6"),
    ("6 boardsize 8 4", "=6"),
    ("7 reset_board", "=7"),
    ("8 num_repetition 3", "=8"),
    ("9 num_moves_to_draw 180", "=9"),
    ("11 flip b6 K", "=11"),
    ("13 game_over red wins", "=13"),
    ("14 ready", "=14"),
    ("15 time_settings 900000", "=15"),
    ("15 time_setting 900000", "=15"),
    ("16 time_left red 1000", "=16"),
    ("17 showboard", "=17"),
    ("18 init_board " + OPENING, "=18"),
    ("18 init_board " + KIT_OPENING, "=18"),
    ("19 rule_set " + rule_set_payload(PRESETS["hong-kong"]), "=19"),
]


@pytest.mark.parametrize(("line", "answer"), SIMPLE_ANSWERS)
def test_answers(line: str, answer: str) -> None:
    assert ask(new_engine(), line).line() == answer


def test_move_and_genmove_answers() -> None:
    engine = new_engine()
    ok(engine, "11 flip b6 K")
    ok(engine, "11 flip b5 g")
    assert ask(engine, "10 move b6 b5").line() == "=10"
    payload = ok(engine, "12 genmove black")
    move = parse_genmove_payload(payload).move
    assert move is not None and move in engine.game.legal_moves()


def test_every_command_id_is_answered() -> None:
    engine = new_engine()
    answered = {int(line.split()[0]) for line, _ in SIMPLE_ANSWERS} | {10, 12}
    assert answered == set(range(20))
    assert engine.quitting is False
    ok(engine, "5 quit")
    assert engine.quitting is True


@pytest.mark.parametrize("colour", ["red", "black", "unknown"])
def test_genmove_at_the_opening_is_a_flip(colour: str) -> None:
    engine = new_engine()
    move = parse_genmove_payload(ok(engine, f"12 genmove {colour}")).move
    assert move is not None and is_flip(move)
    assert engine.game.position.to_string() == OPENING


def test_genmove_never_applies_its_own_answer() -> None:
    engine = new_engine()
    ok(engine, "18 init_board " + MIDGAME)
    before = engine.game.position.to_string()
    for _ in range(3):
        move = parse_genmove_payload(ok(engine, "12 genmove black")).move
        assert move in engine.game.legal_moves()
    assert engine.game.position.to_string() == before


def test_genmove_for_the_other_colour_plays_for_it() -> None:
    engine = new_engine()
    ok(engine, "18 init_board " + MIDGAME)
    plays_for(engine, "red", RED)
    assert engine.game.position.board_field() == MIDGAME.split()[0]


def test_genmove_unknown_answers_for_the_tracked_side() -> None:
    engine = new_engine()
    ok(engine, "18 init_board " + MIDGAME)
    plays_for(engine, "unknown", BLACK)


def test_echoes_track_the_game_and_decide_colours() -> None:
    engine = new_engine()
    ok(engine, "7 reset_board")
    assert engine.game.side == UNDECIDED
    ok(engine, "11 flip a1 p")
    assert engine.game.side == RED
    ok(engine, "11 flip b1 K")
    ok(engine, "10 move a1 b1")
    ok(engine, "11 flip a2 C")
    ok(engine, "10 move b1 a1")
    assert engine.game.position.to_string() == (
        "XXXX/XXXX/XXXX/XXXX/XXXX/XXXX/CXXX/p-XX r 02222151222224 1 5"
    )
    ok(engine, "7 reset_board")
    assert engine.game.position.to_string() == OPENING


def test_illegal_echoes_leave_the_game_unchanged() -> None:
    engine = new_engine()
    assert "colours are not decided" in refused(engine, "10 move a1 a2")
    ok(engine, "11 flip b6 K")
    ok(engine, "11 flip b5 g")
    assert "not face down" in refused(engine, "11 flip b6 K")
    assert "face down" in refused(engine, "10 move a1 a2")
    assert "not red's" in refused(engine, "10 move b5 a5")
    assert "no 'K' is left face down" in refused(engine, "11 flip a2 K")
    assert "d6 is face down and cannot be taken" in refused(engine, "10 move b6 d6")
    assert "not a piece letter" in refused(engine, "11 flip a2 X")
    assert "same square" in refused(engine, "10 move b6 b6")
    assert "not a square" in refused(engine, "10 move b6 b9")
    assert "expected 2 arguments" in refused(engine, "11 flip a3")
    ok(engine, "10 move b6 b5")
    assert engine.game.position.board[17] == 0


def test_bad_inputs_are_refused_and_the_engine_goes_on() -> None:
    engine = new_engine()
    ok(engine, "18 init_board " + MIDGAME)
    cases = [
        ("99 foo", "unknown command id 99"),
        ("12 genmove", "expected 1 argument"),
        ("12 genmove green", "'green'"),
        ("7 reset_board please", "expected 0 arguments"),
        ("15 time_settings soon", "'soon'"),
        ("16 time_left blue 5", "'blue'"),
        ("16 time_left red lots", "'lots'"),
        ("6 boardsize 9 10", "unsupported board size 9x10"),
        ("8 num_repetition 1", "greater than or equal to 2"),
        ("9 num_moves_to_draw 0", "greater than or equal to 1"),
        ("9 num_moves_to_draw x", "'x'"),
        ("18 init_board XXXX/XXXX - 12222251222225", "expected 8 ranks"),
        ("18 init_board " + MIDGAME.replace(" b ", " - "), "colours undecided"),
        ("18 init_board " + KIT_OPENING.replace("5 5", "5 4"), "face-down squares"),
    ]
    for line, fragment in cases:
        assert fragment in refused(engine, line), line
    assert engine.game.position.to_string() == MIDGAME
    assert parse_genmove_payload(ok(engine, "12 genmove black")).move is not None


def test_genmove_for_a_side_with_no_legal_move_is_refused() -> None:
    engine = new_engine()
    ok(engine, "18 init_board " + RED_ONLY)
    assert "black has no legal move" in refused(engine, "12 genmove black")
    assert "not black's" in refused(engine, "10 move a8 b8")
    plays_for(engine, "red", RED)


def test_draw_counts_change_the_rules_of_this_game_and_the_next() -> None:
    engine = new_engine()
    ok(engine, "8 num_repetition 4")
    ok(engine, "9 num_moves_to_draw 6")
    assert engine.rules.repetition_count == 4
    assert engine.game.rules.no_progress_limit == 6
    ok(engine, "18 init_board K---/----/----/----/----/----/----/---k r 00000000000000")
    for line in ["10 move a8 a7", "10 move d1 d2", "10 move a7 a8", "10 move d2 d1"]:
        ok(engine, line)
    ok(engine, "9 num_moves_to_draw 3")
    assert engine.game.outcome is not None
    assert engine.game.outcome.description == "draw: 3 plies without flip or capture"
    ok(engine, "9 num_moves_to_draw 4")
    assert engine.game.outcome is not None
    assert engine.game.outcome.description == "draw: 4 plies without flip or capture"
    ok(engine, "9 num_moves_to_draw 100")
    assert engine.game.outcome is None
    ok(engine, "7 reset_board")
    assert engine.game.rules.no_progress_limit == 100
    assert engine.game.rules.repetition_count == 4


def test_init_board_forms() -> None:
    engine = new_engine()
    ok(engine, "18 init_board " + MIDGAME)
    assert engine.game.position == parse_position(MIDGAME)
    ok(engine, "18 init_board " + KIT_OPENING)
    assert engine.game.position.to_string() == OPENING
    ok(engine, "18 init_board " + KIT_ENDGAME)
    assert engine.game.position.to_string() == "K---/----/----/----/-X--/----/----/---k r " + (
        "00000010000000 0 0"
    )
    ok(engine, "11 flip b4 P")
    ok(engine, "10 move d1 d2")
    assert engine.game.side == RED


def test_kit_init_board_side_comes_from_the_first_move_echo() -> None:
    engine = new_engine()
    ok(engine, "18 init_board " + KIT_ENDGAME)
    ok(engine, "10 move d1 d2")
    assert engine.game.side == RED
    ok(engine, "10 move a8 a7")
    assert engine.game.side == BLACK


def test_clock_budget_reaches_the_player() -> None:
    player = RecordingPlayer()
    engine = DctpEngine(OLYMPIAD, player)
    ok(engine, "12 genmove unknown")
    ok(engine, "15 time_setting 900000")
    ok(engine, "12 genmove unknown")
    ok(engine, "11 flip a1 K")
    ok(engine, "16 time_left red 30000")
    ok(engine, "16 time_left black -5")
    ok(engine, "12 genmove black")
    ok(engine, "12 genmove red")
    assert player.budgets == [None, 10.0, 0.0, 1.0]
    assert genmove_budget(None) is None
    assert genmove_budget(3000) == pytest.approx(0.1)


def test_a_failing_player_gets_a_refusal_not_a_crash() -> None:
    engine = DctpEngine(OLYMPIAD, BrokenPlayer())
    payload = refused(engine, "12 genmove unknown")
    assert payload.startswith("internal error") and "search exploded" in payload
    assert ok(engine, "1 name") == "banqi-engine"


def test_showboard_goes_to_the_board_stream() -> None:
    board = io.StringIO()
    engine = DctpEngine(OLYMPIAD, make_player(0, 1, OLYMPIAD), board_stream=board)
    ok(engine, "11 flip c3 r")
    assert ask(engine, "17 showboard").line() == "=17"
    assert "3 X X r X" in board.getvalue()
    assert "XXXX/XXXX/XXXX/XXXX/XXXX/XXrX/XXXX/XXXX r" in board.getvalue()


@pytest.mark.parametrize("line", ["", "\n", "\r\n", "   \n", "hello\n", "genmove red\n", "-3 x\n"])
def test_lines_without_an_id_get_no_reply(line: str) -> None:
    assert new_engine().handle_line(line) is None


def run(text: str, engine: DctpEngine | None = None) -> tuple[int, list[str]]:
    stdout = io.StringIO()
    status = run_engine(engine or new_engine(), io.StringIO(text), stdout)
    return status, stdout.getvalue().splitlines()


def test_loop_answers_only_commands_and_stops_at_quit() -> None:
    status, lines = run(
        "\n\r\n1 name\r\njunk\n12 genmove unknown\r\n17 showboard\n99\n5 quit\n1 name\n"
    )
    assert status == 0
    assert [line[:3] for line in lines] == ["=1 ", "=12", "=17", "?99", "=5"]
    assert all(parse_reply_line(line) is not None for line in lines)
    assert lines[0] == "=1 banqi-engine"


def test_loop_exits_cleanly_at_end_of_input() -> None:
    assert run("") == (0, [])
    assert run("0 protocol_version") == (0, ["=0 1.1.0"])


def test_loop_survives_a_closed_reply_stream() -> None:
    stdout = io.StringIO()
    stdout.close()
    assert run_engine(new_engine(), io.StringIO("1 name\n"), stdout) == 0


@pytest.mark.parametrize(
    ("line", "quoted"),
    [
        ("11 flip " + "Z" * 1_000_000 + " K", "'zzz"),
        ("12 genmove " + "b" * 100_000, "'bbb"),
        ("9 num_moves_to_draw " + "9" * 200_000, "99999"),
    ],
    ids=["flip", "genmove", "draw-count"],
)
def test_a_refusal_quotes_only_a_short_prefix_of_a_huge_argument(line: str, quoted: str) -> None:
    engine = DctpEngine(PRESETS["olympiad"], make_player(0, 1, PRESETS["olympiad"]))
    reply = engine.handle_line(line)
    assert reply is not None and not reply.ok
    assert reply.id == int(line.split()[0])
    assert len(reply.payload) <= MAX_REASON_CHARS
    assert reply.payload.endswith("...")
    assert quoted in reply.payload
    assert "\n" not in reply.line()
