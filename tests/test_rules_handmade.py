"""Every rule of the specification on small hand-made positions, with exact move sets."""

import pytest
from plain_rules import PLAIN_PRESETS, legal_moves, parse_state

from banqi_engine.errors import MoveError
from banqi_engine.game import BoardEnd, Game
from banqi_engine.movegen import generate_moves, has_legal_move
from banqi_engine.moves import flip_move, move_from, move_to
from banqi_engine.notation import parse_ply
from banqi_engine.pieces import BLACK, PIECE_LETTERS, RED, UNDECIDED
from banqi_engine.position import Position, parse_position
from banqi_engine.rules import PRESETS, RuleSet
from banqi_engine.squares import NUM_SQUARES, Square, square_name

ALL_PRESETS = ("olympiad", "hong-kong", "taiwan-sliding-cannon", "casual", "hong-kong-forum")
NO_POOL = "00000000000000"


def move_names(pairs: set[tuple[Square, Square]]) -> set[str]:
    return {square_name(a) if a == b else f"{square_name(a)}-{square_name(b)}" for a, b in pairs}


def fast_legal(text: str, rules: RuleSet) -> set[str]:
    moves = generate_moves(parse_position(text), rules)
    return move_names({(move_from(m), move_to(m)) for m in moves})


def legal(text: str, preset: str) -> set[str]:
    """The fast generator's move set, checked to be the plain generator's too."""
    fast = fast_legal(text, PRESETS[preset])
    plain = move_names(set(legal_moves(parse_state(text), *PLAIN_PRESETS[preset])))
    assert fast == plain, f"fast and plain generators differ on {text} ({preset})"
    return fast


# -- captures by a step --------------------------------------------------------------

JUMPING_TAKES = {
    "K": "KGMRNC",
    "G": "GMRNCP",
    "M": "MRNCP",
    "R": "RNCP",
    "N": "NCP",
    "C": "",
    "P": "KP",
}
"""What each kind takes by one step where cannons jump (order K G M R N C P)."""

HONG_KONG_TAKES = {
    "K": "KRNCGM",
    "R": "RNCGMP",
    "N": "NCGMP",
    "C": "CGMP",
    "G": "GMP",
    "M": "MP",
    "P": "PK",
}
"""What each kind takes by one step in Hong Kong rules (order K R N C G M P)."""


def two_piece_position(attacker: str, target: str) -> str:
    """``attacker`` on b2 to move, ``target`` on b3, everything else empty."""
    side = "r" if attacker.isupper() else "b"
    return f"----/----/----/----/----/-{target}--/-{attacker}--/---- {side} {NO_POOL}"


@pytest.mark.parametrize("colour", ["red", "black"])
@pytest.mark.parametrize("target", "KGMRNCP")
@pytest.mark.parametrize("attacker", "KGMRNCP")
@pytest.mark.parametrize("preset", ALL_PRESETS)
def test_step_capture_table(preset: str, attacker: str, target: str, colour: str) -> None:
    takes = HONG_KONG_TAKES if preset in ("hong-kong", "hong-kong-forum") else JUMPING_TAKES
    mover, victim = (attacker, target.lower()) if colour == "red" else (attacker.lower(), target)
    expected = {"b2-b1", "b2-a2", "b2-c2"}
    if attacker == "C" and preset == "taiwan-sliding-cannon":
        expected.add("b2-d2")
    if target in takes[attacker]:
        expected.add("b2-b3")
    assert legal(two_piece_position(mover, victim), preset) == expected


@pytest.mark.parametrize("preset", ALL_PRESETS)
def test_soldier_takes_king_and_king_cannot_take_soldier(preset: str) -> None:
    board = "----/----/----/----/----/-k--/-P--/----"
    assert legal(f"{board} r {NO_POOL}", preset) == {"b2-b3", "b2-b1", "b2-a2", "b2-c2"}
    assert legal(f"{board} b {NO_POOL}", preset) == {"b3-b4", "b3-a3", "b3-c3"}


@pytest.mark.parametrize("preset", ALL_PRESETS)
def test_soldier_cannot_take_cannon(preset: str) -> None:
    text = f"----/----/----/----/----/-c--/-P--/---- r {NO_POOL}"
    assert legal(text, preset) == {"b2-b1", "b2-a2", "b2-c2"}


def test_jumping_cannon_cannot_take_adjacent_but_hong_kong_cannon_does() -> None:
    text = f"----/----/----/----/----/-c--/-P--/---- b {NO_POOL}"
    assert legal(text, "olympiad") == {"b3-b4", "b3-a3", "b3-c3"}
    assert legal(text, "casual") == {"b3-b4", "b3-a3", "b3-c3"}
    assert legal(text, "hong-kong") == {"b3-b4", "b3-a3", "b3-c3", "b3-b2"}


@pytest.mark.parametrize("preset", ["olympiad", "hong-kong"])
def test_equal_ranks_capture(preset: str) -> None:
    for kind in "KGMRNP" + ("C" if preset == "hong-kong" else ""):
        text = two_piece_position(kind, kind.lower())
        assert "b2-b3" in legal(text, preset), kind


def test_lower_cannot_take_higher() -> None:
    assert "b2-b3" not in legal(two_piece_position("N", "r"), "olympiad")
    assert "b2-b3" not in legal(two_piece_position("g", "K"), "olympiad")
    assert "b2-b3" not in legal(two_piece_position("M", "g"), "olympiad")
    assert "b2-b3" not in legal(two_piece_position("G", "n"), "hong-kong")


# -- the jumping cannon --------------------------------------------------------------


def test_cannon_jumps_over_face_down_screen() -> None:
    text = "----/----/----/----/r---/----/X---/C--- r 00000000000001"
    assert legal(text, "olympiad") == {"a1-b1", "a1-a4", "a2"}
    assert legal(text, "casual") == {"a1-b1", "a1-a4", "a2"}
    assert legal(text, "taiwan-sliding-cannon") == {"a1-b1", "a1-c1", "a1-d1", "a1-a4", "a2"}
    assert legal(text, "hong-kong") == {"a1-b1", "a2"}


def test_cannon_jumps_over_face_up_screen_of_either_colour() -> None:
    own = f"----/----/----/----/r---/----/P---/C--- r {NO_POOL}"
    assert legal(own, "olympiad") == {"a1-b1", "a1-a4", "a2-a3", "a2-b2"}
    enemy = f"----/----/----/----/r---/----/p---/C--- r {NO_POOL}"
    assert legal(enemy, "olympiad") == {"a1-b1", "a1-a4"}


def test_cannon_cannot_jump_two_screens() -> None:
    text = "----/----/----/----/r---/X---/X---/C--- r 00000000000002"
    assert legal(text, "olympiad") == {"a1-b1", "a2", "a3"}


def test_cannon_takes_the_first_piece_after_the_screen_only() -> None:
    text = f"----/----/----/----/r---/p---/P---/C--- r {NO_POOL}"
    assert legal(text, "olympiad") == {"a1-b1", "a1-a3", "a2-a3", "a2-b2"}


def test_cannon_jump_with_empty_squares_on_both_sides_of_the_screen() -> None:
    text = "----/g---/----/----/X---/----/----/C--- r 00000000000001"
    assert legal(text, "olympiad") == {"a1-a2", "a1-b1", "a1-a7", "a4"}
    downwards = "C---/----/X---/----/----/----/----/k--- r 00000000000001"
    assert legal(downwards, "olympiad") == {"a8-a7", "a8-b8", "a8-a1", "a6"}


def test_cannon_jump_takes_the_king() -> None:
    text = "----/----/----/----/----/----/----/C-Xk r 00000000000001"
    assert legal(text, "olympiad") == {"a1-a2", "a1-b1", "a1-d1", "c1"}
    assert legal(text.replace("C-Xk", "c-XK").replace(" r ", " b "), "casual") == {
        "a1-a2",
        "a1-b1",
        "a1-d1",
        "c1",
    }


def test_cannon_cannot_jump_onto_own_or_face_down_piece() -> None:
    own = "----/----/----/----/R---/----/X---/C--- r 00000000000001"
    assert legal(own, "olympiad") == {"a1-b1", "a4-a3", "a4-a5", "a4-b4", "a2"}
    face_down = "----/----/----/----/----/X---/p---/C--- r 00000000000001"
    assert legal(face_down, "olympiad") == {"a1-b1", "a3"}


# -- the sliding cannon --------------------------------------------------------------

SLIDE_TEXT = "----/-n--/----/-P--/----/----/-CXr/---- r 00000000000001"
PAWN_MOVES = {"b5-b4", "b5-b6", "b5-a5", "b5-c5"}


def test_sliding_cannon_moves_any_distance_but_not_through_pieces() -> None:
    slides = {"b2-b1", "b2-b3", "b2-b4", "b2-a2"}
    jumps = {"b2-d2", "b2-b7"}
    assert legal(SLIDE_TEXT, "taiwan-sliding-cannon") == slides | jumps | PAWN_MOVES | {"c2"}
    assert legal(SLIDE_TEXT, "olympiad") == (slides - {"b2-b4"}) | jumps | PAWN_MOVES | {"c2"}
    assert legal(SLIDE_TEXT, "hong-kong") == (slides - {"b2-b4"}) | PAWN_MOVES | {"c2"}


def test_sliding_cannon_on_an_open_board_and_no_capture_by_sliding() -> None:
    open_board = f"----/----/----/----/----/----/----/C--- r {NO_POOL}"
    expected = {f"a1-a{r}" for r in range(2, 9)} | {"a1-b1", "a1-c1", "a1-d1"}
    assert legal(open_board, "taiwan-sliding-cannon") == expected
    facing_king = f"----/----/----/----/k---/----/----/C--- r {NO_POOL}"
    assert legal(facing_king, "taiwan-sliding-cannon") == {
        "a1-a2",
        "a1-a3",
        "a1-b1",
        "a1-c1",
        "a1-d1",
    }


def test_custom_rule_set_with_stepping_capture_and_sliding_cannon() -> None:
    rules = RuleSet(cannon_capture="step", cannon_move="slide")
    slides = {"b2-b1", "b2-b3", "b2-b4", "b2-a2"}
    assert fast_legal(SLIDE_TEXT, rules) == slides | PAWN_MOVES | {"c2"}
    beside = f"----/----/----/----/----/-p--/-Cr-/---- r {NO_POOL}"
    assert fast_legal(beside, rules) == {"b2-b1", "b2-a2", "b2-b3"}


# -- Hong Kong order -----------------------------------------------------------------


def test_hong_kong_guard_cannot_take_cannon_but_olympiad_guard_can() -> None:
    text = f"----/----/----/----/----/-c--/-Gm-/---- r {NO_POOL}"
    assert legal(text, "hong-kong") == {"b2-b1", "b2-a2", "b2-c2"}
    assert legal(text, "olympiad") == {"b2-b1", "b2-a2", "b2-c2", "b2-b3"}


def test_hong_kong_rook_takes_guard_and_minister_and_cannon_steps_onto_minister() -> None:
    text = f"----/----/----/----/----/-g--/-Rm-/--C- r {NO_POOL}"
    assert legal(text, "hong-kong") == {
        "b2-b1",
        "b2-a2",
        "b2-b3",
        "b2-c2",
        "c1-b1",
        "c1-d1",
        "c1-c2",
    }
    assert legal(text, "olympiad") == {"b2-b1", "b2-a2", "c1-b1", "c1-d1"}


# -- face-down pieces, empty squares, flips ------------------------------------------


@pytest.mark.parametrize("preset", ALL_PRESETS)
def test_no_capture_of_face_down_and_moves_only_onto_empty_squares(preset: str) -> None:
    text = "----/----/----/----/----/----/XP--/RK-- r 00000001000000"
    expected = {"b1-c1", "b2-b3", "b2-c2", "a2"}
    if PRESETS[preset].move_onto_face_down:
        expected |= {"a1-a2", "b2-a2"}  # moves onto the face-down a2, not captures of it
    assert legal(text, preset) == expected


def test_moves_onto_face_down_pieces_exact_move_sets() -> None:
    # red: a step cannon, a rook and a king around face-down squares; black: a pawn
    text = "----/----/----/-X--/XCX-/-RX-/X-K-/---p r 02000000000003"
    forum = legal(text, "hong-kong-forum")
    assert forum == {
        *("b4-b5", "b4-a4", "b4-c4"),  # cannon onto face-down b5, a4, c4
        *("b3-a3", "b3-c3", "b3-b2"),  # rook: a3 empty, c3 face down, b2 empty
        *("c2-c3", "c2-b2", "c2-d2", "c2-c1"),  # king: c3 face down
        *("b5", "a4", "c4", "c3", "a2"),  # flips
    }
    # the same with cannons that jump: the cannon may not, the rest still may
    jumping = RuleSet(name="jumping-onto", capture_order="KRNCGMP", move_onto_face_down=True)
    assert fast_legal(text, jumping) == forum - {"b4-b5", "b4-a4", "b4-c4"}
    assert legal(text, "hong-kong") == forum - {"b4-b5", "b4-a4", "b4-c4", "b3-c3", "c2-c3"}
    # black's pawn on d1 has nothing face down next to it
    black = text.replace(" r ", " b ")
    assert legal(black, "hong-kong-forum") == {"d1-d2", "d1-c1", "b5", "a4", "c4", "c3", "a2"}


@pytest.mark.parametrize("preset", ALL_PRESETS)
def test_only_flips_while_colours_are_undecided(preset: str) -> None:
    text = "X-X-/----/----/----/----/----/----/---X - 00000001000002"
    assert legal(text, preset) == {"a8", "c8", "d1"}
    opening = parse_position("XXXX/XXXX/XXXX/XXXX/XXXX/XXXX/XXXX/XXXX - 12222251222225")
    expected = [flip_move(square) for square in range(NUM_SQUARES)]
    assert sorted(generate_moves(opening, PRESETS[preset])) == expected


def test_first_flip_decides_the_colours() -> None:
    pos = Position.opening()
    pos.make_flip(0, PIECE_LETTERS.index("K"))
    assert pos.side == BLACK
    assert pos.to_string().split()[1:] == ["b", "02222251222225", "0", "1"]
    pos.make_flip(1, PIECE_LETTERS.index("R"))
    assert pos.side == RED
    pos.unmake()
    pos.unmake()
    pos.make_flip(0, PIECE_LETTERS.index("p"))
    assert pos.side == RED

    game = Game(PRESETS["olympiad"])
    assert colours(game) == (None, UNDECIDED)
    game.play_ply(parse_ply("a1(n)"))
    assert colours(game) == (BLACK, RED)
    game.play_ply(parse_ply("b1(k)"))
    assert colours(game) == (BLACK, BLACK)
    game.play_ply(parse_ply("c1(G)"))
    assert colours(game) == (BLACK, RED)


def colours(game: Game) -> tuple[int | None, int]:
    """The colour of the first flipper and the side to move."""
    return game.first_colour, game.side


# -- the end of a game ---------------------------------------------------------------


def play(game: Game, *moves: str) -> list[object]:
    return [game.play_ply(parse_ply(move)) for move in moves]


def test_no_legal_move_loses_when_the_last_piece_is_taken() -> None:
    game = Game(
        PRESETS["olympiad"], parse_position(f"----/----/----/----/----/----/p---/R--- r {NO_POOL}")
    )
    outcome = game.play_ply(parse_ply("a1-a2"))
    assert outcome is not None
    assert (outcome.winner, outcome.reason) == (RED, BoardEnd.NO_LEGAL_MOVE)
    assert outcome.description == "red wins: black has no pieces left"
    with pytest.raises(MoveError):
        game.play_ply(parse_ply("a2-a3"))


def test_no_legal_move_is_checked_before_no_progress() -> None:
    blocked = f"pG--/G---/----/----/----/----/----/---R r {NO_POOL} 179 300"
    game = Game(PRESETS["olympiad"], parse_position(blocked))
    assert game.outcome is None
    outcome = game.play_ply(parse_ply("d1-d2"))
    assert outcome is not None and game.position.no_progress == 180
    assert (outcome.winner, outcome.reason) == (RED, BoardEnd.NO_LEGAL_MOVE)
    assert not has_legal_move(game.position, PRESETS["olympiad"])

    free = f"pG--/----/G---/----/----/----/----/---R r {NO_POOL} 179 300"
    game = Game(PRESETS["olympiad"], parse_position(free))
    outcome = game.play_ply(parse_ply("d1-d2"))
    assert outcome is not None
    assert (outcome.winner, outcome.reason) == (None, BoardEnd.NO_PROGRESS)
    assert outcome.description == "draw: 180 plies without flip or capture"


def test_blocked_side_with_something_to_flip_can_still_play() -> None:
    text = "pG--/G---/----/----/----/----/----/X--R r 00000000000001"
    game = Game(PRESETS["olympiad"], parse_position(text))
    assert game.play_ply(parse_ply("d1-d2")) is None
    assert game.legal_moves() == [0]


KINGS = f"---k/----/----/----/----/----/----/K--- r {NO_POOL}"
SHUFFLE = ("a1-a2", "d8-d7", "a2-a1", "d7-d8")


def test_threefold_repetition_draws_on_the_third_occurrence() -> None:
    game = Game(PRESETS["olympiad"], parse_position(KINGS))
    results = play(game, *SHUFFLE, *SHUFFLE)
    assert results[:7] == [None] * 7
    outcome = game.outcome
    assert outcome is not None
    assert (outcome.winner, outcome.reason) == (None, BoardEnd.THREEFOLD_REPETITION)
    assert outcome.description == "draw: threefold repetition"


def test_repetition_count_comes_from_the_rule_set() -> None:
    game = Game(RuleSet(repetition_count=2), parse_position(KINGS))
    results = play(game, *SHUFFLE)
    assert results[:3] == [None] * 3
    assert game.outcome is not None
    assert game.outcome.reason == BoardEnd.THREEFOLD_REPETITION
    assert game.outcome.description == "draw: same position 2 times"


def test_repetition_is_checked_before_no_progress() -> None:
    game = Game(PRESETS["olympiad"], parse_position(f"{KINGS} 172 40"))
    play(game, *SHUFFLE, *SHUFFLE)
    assert game.position.no_progress == 180
    assert game.outcome is not None
    assert game.outcome.reason == BoardEnd.THREEFOLD_REPETITION


@pytest.mark.parametrize(("preset", "limit"), [("casual", 20), ("hong-kong", 80)])
def test_no_progress_draw_at_the_limit(preset: str, limit: int) -> None:
    game = Game(PRESETS[preset], parse_position(f"{KINGS} {limit - 2} 10"))
    assert game.play_ply(parse_ply("a1-a2")) is None
    assert game.position.no_progress == limit - 1
    outcome = game.play_ply(parse_ply("d8-d7"))
    assert outcome is not None
    assert (outcome.winner, outcome.reason) == (None, BoardEnd.NO_PROGRESS)
    assert outcome.description == f"draw: {limit} plies without flip or capture"


def test_flip_and_capture_reset_the_no_progress_counter() -> None:
    text = "---k/----/----/----/----/p---/X---/R--- r 00000000000001 19 50"
    game = Game(PRESETS["casual"], parse_position(text))
    assert game.play_ply(parse_ply("a2(p)")) is None
    assert game.position.no_progress == 0
    play(game, "d8-d7")
    assert game.position.no_progress == 1
    game = Game(PRESETS["casual"], parse_position(text))
    outcome = game.play_ply(parse_ply("a1-b1"))
    assert outcome is not None and outcome.reason == BoardEnd.NO_PROGRESS


def test_capture_resets_the_counter_before_the_limit_is_checked() -> None:
    text = f"---k/----/----/----/----/----/p---/R--- r {NO_POOL} 19 50"
    game = Game(PRESETS["casual"], parse_position(text))
    assert game.play_ply(parse_ply("a1-a2")) is None
    assert game.position.no_progress == 0
    assert game.play_ply(parse_ply("d8-c8")) is None
    assert game.position.no_progress == 1


# -- illegal plies -------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "ply"),
    [
        ("----/----/----/----/----/----/XP--/RK-- r 00000001000000", "a2-a3"),
        ("----/----/----/----/----/----/XP--/RK-- r 00000001000000", "a1-a2"),
        ("----/----/----/----/----/----/XP--/RK-- r 00000001000000", "b1-b2"),
        ("----/----/----/----/----/----/XP--/RK-- r 00000001000000", "b1-c2"),
        ("----/----/----/----/----/----/XP--/RK-- r 00000001000000", "b2(P)"),
        ("----/----/----/----/----/----/XP--/RK-- r 00000001000000", "a2(K)"),
        ("----/----/----/----/----/----/XP--/RK-- r 00000001000000", "a2"),
        ("----/----/----/----/----/----/XP--/RK-- b 00000001000000", "b2-b3"),
        ("XXXX/XXXX/XXXX/XXXX/XXXX/XXXX/XXXX/XXXX - 12222251222225", "a1-a2"),
    ],
)
def test_illegal_plies_are_refused(text: str, ply: str) -> None:
    game = Game(PRESETS["olympiad"], parse_position(text))
    with pytest.raises(MoveError):
        game.play_ply(parse_ply(ply))
    assert game.position.to_string() == parse_position(text).to_string()


def test_a_side_with_pieces_but_no_move_has_no_legal_move() -> None:
    """Blocked in, nothing left to flip: the words say so, not that no piece is left."""
    game = Game(
        PRESETS["olympiad"], parse_position(f"----/----/----/----/----/----/Gp--/P--- r {NO_POOL}")
    )
    outcome = game.play_ply(parse_ply("a2-b2"))
    assert outcome is not None and outcome.reason is BoardEnd.NO_LEGAL_MOVE
    assert outcome.description == "red wins: black has no pieces left"
    blocked = Game(
        PRESETS["olympiad"], parse_position(f"----/----/----/----/----/G---/----/pG-- r {NO_POOL}")
    )
    ending = blocked.play_ply(parse_ply("a3-a2"))  # the pawn cannot take either guard
    assert ending is not None and ending.reason is BoardEnd.NO_LEGAL_MOVE
    assert ending.description == "red wins: black has no legal move"
    assert ending.also_said == () and ending.why == "black has no legal move"
    assert outcome.also_said == ("red wins: black has no legal move",)  # as records said
