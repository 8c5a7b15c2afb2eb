"""Moving onto a face-down piece (``move_onto_face_down``, the ``hong-kong-forum`` preset):
one hand-made position per rule, through the move generator, ``Game``, ``Position``,
the notation and the built-in players.

A face-up piece steps onto an orthogonally adjacent face-down piece, which is turned
up: an enemy the mover takes by a step is captured and the mover takes its square;
otherwise the mover stays and the piece stays face up. A cannon that captures only by
jumping may not do it. Such a move resets the no-progress count, like a flip.
"""

import random
from collections.abc import Mapping

import pytest
from plain_rules import after_reveal, can_take_by_step, legal_moves, parse_state, state_text

from banqi_engine.errors import MoveError
from banqi_engine.game import BoardEnd, Game
from banqi_engine.layout import random_layout
from banqi_engine.movegen import children, count_leaves, generate_moves, make_ply
from banqi_engine.moves import Move, flip_move, is_flip, step_move
from banqi_engine.notation import (
    Ply,
    format_hidden_reveal,
    format_move,
    format_reveal,
    parse_ply,
)
from banqi_engine.pieces import BLACK, PIECE_LETTERS, RED, SQUARE_LETTERS, UNDECIDED, Piece
from banqi_engine.players import make_player
from banqi_engine.position import Position, parse_position
from banqi_engine.rules import PRESETS, RuleSet, takes_revealed
from banqi_engine.squares import parse_square
from tournaments.selfplay import play_game

FORUM = PRESETS["hong-kong-forum"]
OLYMPIAD_ONTO = RuleSet(name="olympiad-onto", move_onto_face_down=True)
"""Cannons capture only by jumping (and step), moves onto face-down pieces allowed."""
SLIDING_ONTO = RuleSet(name="sliding-onto", cannon_move="slide", move_onto_face_down=True)
"""Cannons slide and capture only by jumping, moves onto face-down pieces allowed."""
STEP_SLIDING_ONTO = RuleSet(
    name="step-sliding-onto",
    capture_order="KRNCGMP",
    cannon_capture="step",
    cannon_move="slide",
    move_onto_face_down=True,
)
"""Cannons slide and capture by a step, moves onto face-down pieces allowed."""


def text_of(
    squares: Mapping[str, str], side: str, pool: str, no_progress: int = 0, ply: int = 0
) -> str:
    """A position string from ``{square name: letter}`` (the rest empty) and the letters of
    the face-down pieces (``pool``, one letter per face-down piece)."""
    board = ["-"] * 32
    for name, letter in squares.items():
        board[parse_square(name)] = letter
    ranks = ("".join(board[rank * 4 : rank * 4 + 4]) for rank in range(7, -1, -1))
    counts = "".join(str(pool.count(letter)) for letter in PIECE_LETTERS)
    return f"{'/'.join(ranks)} {side} {counts} {no_progress} {ply}"


def mv(text: str) -> Move:
    frm, to = text.split("-")
    return step_move(parse_square(frm), parse_square(to))


def piece(letter: str) -> Piece:
    return PIECE_LETTERS.index(letter)


def game_at(squares: Mapping[str, str], side: str, pool: str, rules: RuleSet = FORUM) -> Game:
    return Game(rules, parse_position(text_of(squares, side, pool, no_progress=7, ply=30)))


def at(game: Game, name: str) -> str:
    """The letter on a square of the game's position."""
    return SQUARE_LETTERS[game.position.board[parse_square(name)]]


# -- what happens ------------------------------------------------------------------------


def test_capture_of_a_weaker_enemy() -> None:
    # red rook b2 steps onto b3, which shows a black guard: rooks take guards here
    game = game_at({"b2": "R", "b3": "X", "d8": "X", "d1": "k"}, "r", "gp")
    assert mv("b2-b3") in game.legal_moves()
    outcome = game.play(mv("b2-b3"), piece("g"))
    assert outcome is None
    pos = game.position
    assert (at(game, "b3"), at(game, "b2")) == ("R", "-")
    assert pos.to_string() == text_of({"b3": "R", "d8": "X", "d1": "k"}, "b", "p", 0, 31)
    assert pos.pool[piece("g")] == 0
    assert pos.no_progress == 0 and pos.side == BLACK
    assert game.plies[-1] == Ply(mv("b2-b3"), piece("g"))
    assert str(game.plies[-1]) == "b2-b3(g)"


def test_an_own_piece_is_turned_up_and_the_mover_stays() -> None:
    game = game_at({"b2": "R", "b3": "X", "d8": "X", "d1": "k"}, "r", "Np")
    game.play(mv("b2-b3"), piece("N"))
    assert game.position.to_string() == text_of(
        {"b2": "R", "b3": "N", "d8": "X", "d1": "k"}, "b", "p", 0, 31
    )
    assert game.position.pool[piece("N")] == 0


@pytest.mark.parametrize(
    ("mover", "other", "pool", "found"),
    [
        # a guard does not take a rook under the order K R N C G M P
        pytest.param("G", "k", "rp", "r", id="guard-finds-rook"),
        # a king never takes a pawn
        pytest.param("K", "g", "pp", "p", id="king-finds-pawn"),
    ],
)
def test_an_enemy_the_mover_cannot_take_stays_face_up_and_may_take_back(
    mover: str, other: str, pool: str, found: str
) -> None:
    game = game_at({"b2": mover, "b3": "X", "d8": "X", "d1": other}, "r", pool)
    game.play(mv("b2-b3"), piece(found))
    assert game.position.to_string() == text_of(
        {"b2": mover, "b3": found, "d8": "X", "d1": other}, "b", "p", 0, 31
    )
    assert mv("b3-b2") in game.legal_moves()  # the enemy turned up now takes the mover


def test_a_pawn_that_turns_up_the_enemy_king_captures_it() -> None:
    game = game_at({"b2": "P", "b3": "X", "d8": "X", "d1": "g"}, "r", "kp")
    game.play(mv("b2-b3"), piece("k"))
    assert game.position.to_string() == text_of({"b3": "P", "d8": "X", "d1": "g"}, "b", "p", 0, 31)


def test_a_black_mover_and_equal_ranks() -> None:
    # black's knight takes a red knight (equal order) and stays behind a red rook
    game = game_at({"c7": "n", "c6": "X", "c8": "X", "a1": "K"}, "b", "NR")
    game.play(mv("c7-c6"), piece("N"))
    assert (at(game, "c6"), at(game, "c7"), game.side) == ("n", "-", RED)
    game.play(mv("a1-a2"))
    game.play(mv("c6-c7"))
    game.play(mv("a2-a1"))
    game.play(mv("c7-c8"), piece("R"))
    assert (at(game, "c7"), at(game, "c8"), game.side) == ("n", "R", RED)


@pytest.mark.parametrize("rules", [FORUM, OLYMPIAD_ONTO, SLIDING_ONTO, STEP_SLIDING_ONTO])
def test_take_or_stay_for_every_pair_of_pieces(rules: RuleSet) -> None:
    # against the plain rules: every mover on b2, every piece b3 may show
    plain = (rules.capture_order, rules.cannon_capture, rules.cannon_move, True)
    b2, b3 = parse_square("b2"), parse_square("b3")
    for mover in PIECE_LETTERS:
        for shown in PIECE_LETTERS:
            if mover == shown and mover in "Kk":
                continue  # one king a side
            side = "r" if mover.isupper() else "b"
            enemy = "k" if side == "r" else "K"
            text = text_of(
                {"b2": mover, "b3": "X", "d8": "g" if shown == enemy else enemy}, side, shown
            )
            state = parse_state(text)
            jumping_cannon = mover in "Cc" and rules.cannon_capture == "jump"
            fast = mv("b2-b3") in generate_moves(parse_position(text), rules)
            assert fast == ((b2, b3) in legal_moves(state, *plain)) == (not jumping_cannon), text
            takes = (
                not jumping_cannon
                and mover.isupper() != shown.isupper()
                and can_take_by_step(mover.upper(), shown.upper(), rules.capture_order)
            )
            assert takes_revealed(rules, piece(mover), piece(shown)) == takes, (mover, shown)
            if jumping_cannon:
                continue
            game = Game(rules, parse_position(text))
            game.play(mv("b2-b3"), piece(shown))
            expected = after_reveal(state, (b2, b3), shown, rules.capture_order)
            assert game.position.to_string().split()[:3] == state_text(expected).split(), (
                rules.name,
                mover,
                shown,
            )
            assert game.position.board[b3] == piece(mover if takes else shown)


# -- who may, and what is refused ----------------------------------------------------------


def test_a_jumping_cannon_may_not_move_onto_a_face_down_piece() -> None:
    squares = {"b2": "C", "b3": "X", "d8": "X", "d1": "k"}
    for rules in (OLYMPIAD_ONTO, SLIDING_ONTO):
        game = game_at(squares, "r", "gp", rules)
        assert mv("b2-b3") not in game.legal_moves()
        assert flip_move(parse_square("b3")) in game.legal_moves()
        with pytest.raises(MoveError, match="captures only by jumping, so it may not move onto"):
            game.play(mv("b2-b3"), piece("g"))
        assert game.position.to_string() == text_of(squares, "r", "gp", 7, 30)
    # the other pieces may, under the same rules
    game = game_at({"b2": "R", "b3": "X", "d8": "X", "d1": "k"}, "r", "gp", OLYMPIAD_ONTO)
    assert mv("b2-b3") in game.legal_moves()


@pytest.mark.parametrize("rules", [FORUM, STEP_SLIDING_ONTO])
def test_a_cannon_that_captures_by_a_step_may(rules: RuleSet) -> None:
    game = game_at({"b2": "C", "b3": "X", "d8": "X", "d1": "k"}, "r", "gp", rules)
    assert mv("b2-b3") in game.legal_moves()
    game.play(mv("b2-b3"), piece("g"))  # a cannon takes a guard under K R N C G M P
    assert (at(game, "b3"), at(game, "b2")) == ("C", "-")


def test_only_an_adjacent_square_not_a_diagonal_nor_two_away() -> None:
    game = game_at({"b2": "R", "c3": "X", "b4": "X", "d1": "k"}, "r", "gp")
    moves = set(game.legal_moves())
    assert mv("b2-c3") not in moves and mv("b2-b4") not in moves
    for target in ("c3", "b4"):
        with pytest.raises(MoveError, match=f"{target} is face down and not next to b2"):
            game.play(mv(f"b2-{target}"), piece("g"))
    # a sliding cannon slides over empty squares, never onto a face-down one further off
    game = game_at({"b1": "C", "b4": "X", "d1": "k"}, "r", "g", STEP_SLIDING_ONTO)
    assert {mv("b1-b2"), mv("b1-b3")} <= set(game.legal_moves())
    assert mv("b1-b4") not in game.legal_moves()


def test_a_flip_of_a_square_not_face_down_is_refused_for_that() -> None:
    """As the referee asks, with no piece (its layout has none under a face-up or empty
    square): the reason is the square, not the missing piece."""
    game = game_at({"b2": "R", "d8": "X", "d1": "k"}, "r", "g")
    for name in ("b2", "c3"):
        with pytest.raises(MoveError, match=f"cannot flip {name}: it is not face down"):
            game.check(flip_move(parse_square(name)), None)
    with pytest.raises(MoveError, match="flip of d8 needs the piece it revealed"):
        game.check(flip_move(parse_square("d8")), None)


def test_the_enemy_s_and_face_down_pieces_do_not_move() -> None:
    game = game_at({"b2": "R", "b3": "X", "c2": "X", "d2": "X", "c3": "k"}, "r", "gpp")
    moves = set(game.legal_moves())
    assert mv("c3-b3") not in moves  # black's king, red to move
    assert not {mv("c2-b2"), mv("c2-c3"), mv("c2-d2")} & moves  # a face-down piece
    with pytest.raises(MoveError, match="not red's"):
        game.play(mv("c3-b3"), piece("g"))
    with pytest.raises(MoveError, match="c2 is face down"):
        game.play(mv("c2-d2"), piece("g"))
    with pytest.raises(MoveError, match="c2 is face down"):
        game.play(mv("c2-b2"))
    assert game.plies == []


@pytest.mark.parametrize("preset", ["olympiad", "hong-kong", "taiwan-sliding-cannon", "casual"])
def test_refused_where_the_rule_set_does_not_allow_it(preset: str) -> None:
    game = game_at({"b2": "R", "b3": "X", "d8": "X", "d1": "k"}, "r", "gp", PRESETS[preset])
    assert mv("b2-b3") not in game.legal_moves()
    with pytest.raises(MoveError, match=f"rule set '{preset}' does not allow moving onto"):
        game.play(mv("b2-b3"), piece("g"))
    with pytest.raises(MoveError, match="rule set"):
        game.play(mv("b2-b3"))


def test_refused_without_the_piece_it_turned_up() -> None:
    game = game_at({"b2": "R", "b3": "X", "d8": "X", "d1": "k"}, "r", "gp")
    with pytest.raises(MoveError, match="b2-b3 onto a face-down piece needs the piece"):
        game.play(mv("b2-b3"))
    with pytest.raises(MoveError, match="needs the piece"):
        game.play_ply(parse_ply("b2-b3(?)"))
    assert game.plies == [] and game.position.ply == 30


def test_refused_with_a_piece_not_left_face_down() -> None:
    game = game_at({"b2": "R", "b3": "X", "d8": "X", "d1": "k"}, "r", "gp")
    with pytest.raises(MoveError, match="no 'n' is left face down"):
        game.play(mv("b2-b3"), piece("n"))
    with pytest.raises(MoveError, match="no 'k' is left face down"):
        game.play_ply(parse_ply("b2-b3(k)"))  # the only black king is face up on d1
    assert game.plies == []


@pytest.mark.parametrize(("target", "letter"), [("b3", "-"), ("b3", "g"), ("b3", "N")])
def test_a_record_moving_onto_a_square_that_is_not_face_down_is_refused(
    target: str, letter: str
) -> None:
    squares = {"b2": "R", "d8": "X", "d1": "k", target: letter}
    game = game_at({k: v for k, v in squares.items() if v != "-"}, "r", "p")
    with pytest.raises(MoveError, match="b2-b3\\(g\\) moves onto a face-down piece, but b3 is"):
        game.play_ply(parse_ply("b2-b3(g)"))
    assert game.plies == []


def test_a_flip_still_needs_its_square_face_down_and_a_move_no_piece() -> None:
    game = game_at({"b2": "R", "b3": "X", "d8": "X", "d1": "k"}, "r", "gp")
    with pytest.raises(MoveError, match="cannot flip b2"):
        game.play(flip_move(parse_square("b2")), piece("g"))
    game.play(mv("b2-a2"))
    assert at(game, "a2") == "R" and game.position.no_progress == 8


def test_colours_are_decided_by_the_first_flip() -> None:
    game = Game(FORUM)
    assert game.side == UNDECIDED
    assert all(is_flip(move) for move in game.legal_moves())
    with pytest.raises(MoveError, match="colours are not decided yet"):
        game.play(mv("a1-a2"), piece("K"))
    game.play(flip_move(parse_square("a1")), piece("K"))
    assert (game.first_colour, game.side) == (RED, BLACK)
    assert all(is_flip(move) for move in game.legal_moves())  # black has nothing face up
    game.play(flip_move(parse_square("d8")), piece("p"))
    reveals = [m for m in game.legal_moves() if not is_flip(m)]
    assert {mv("a1-a2"), mv("a1-b1")} == set(reveals)
    game.play(mv("a1-b1"), piece("k"))  # king takes king
    assert (at(game, "b1"), at(game, "a1"), game.side) == ("K", "-", BLACK)


# -- notation ----------------------------------------------------------------------------


def test_notation_round_trip() -> None:
    ply = parse_ply("a2-a3(k)")
    assert ply == Ply(mv("a2-a3"), piece("k"), onto_face_down=True)
    assert not ply.is_flip and str(ply) == "a2-a3(k)"
    assert format_reveal(mv("a2-a3"), piece("k")) == "a2-a3(k)"
    assert parse_ply(format_reveal(mv("d8-d7"), piece("P"))) == Ply(
        mv("d8-d7"), piece("P"), onto_face_down=True
    )
    held = parse_ply("a2-a3(?)")
    assert held == Ply(mv("a2-a3"), None, onto_face_down=True)
    assert format_hidden_reveal(held.move) == "a2-a3(?)"
    assert str(held) == format_move(held.move) == "a2-a3"
    plain = parse_ply("a2-a3")
    assert plain == Ply(mv("a2-a3")) and not plain.onto_face_down
    assert parse_ply("b6(K)") == Ply(flip_move(parse_square("b6")), piece("K"))
    for letter in PIECE_LETTERS:
        text = f"c4-c5({letter})"
        assert str(parse_ply(text)) == text


@pytest.mark.parametrize("text", ["a2-a3(x)", "a2-a3(kk)", "a2-a2(k)", "a2-e3(k)", "a2-a3()"])
def test_bad_move_strings_onto_face_down_pieces(text: str) -> None:
    with pytest.raises(MoveError, match="bad move"):
        parse_ply(text)


# -- make and unmake -----------------------------------------------------------------------


def snapshot(pos: Position) -> tuple[object, ...]:
    return (
        pos.to_string(),
        pos.hash,
        list(pos.bb),
        list(pos.colour_bb),
        pos.hidden,
        pos.empty,
        list(pos.pool),
        list(pos.board),
        pos.key(),
    )


def fresh(pos: Position) -> tuple[object, ...]:
    return snapshot(parse_position(pos.to_string()))


@pytest.mark.parametrize(
    ("mover", "shown", "takes"),
    [("R", "g", True), ("R", "N", False), ("G", "r", False), ("P", "k", True), ("K", "p", False)],
)
def test_unmake_restores_everything(mover: str, shown: str, takes: bool) -> None:
    pos = parse_position(text_of({"b2": mover, "b3": "X", "d8": "X", "a1": "c"}, "r", shown + "p"))
    before = snapshot(pos)
    assert takes_revealed(FORUM, piece(mover), piece(shown)) == takes
    pos.make_reveal(mv("b2-b3"), piece(shown), takes)
    assert snapshot(pos) == fresh(pos)  # bitboards and hash as if built from the string
    assert pos.board[parse_square("b3")] == piece(mover if takes else shown)
    pos.unmake()
    assert snapshot(pos) == before
    # and through make_ply, after a move made before it
    pos.make_move(mv("a1-a2"))
    pos.side = RED
    pos.hash = parse_position(pos.to_string()).hash
    middle = snapshot(pos)
    make_ply(pos, FORUM, mv("b2-b3"), piece(shown))
    assert snapshot(pos) == fresh(pos)
    pos.unmake()
    assert snapshot(pos) == middle


def test_children_turn_up_every_piece_type_and_unmake() -> None:
    text = text_of({"b2": "R", "b3": "X", "d8": "X", "d1": "k"}, "r", "gp")
    pos = parse_position(text)
    before = snapshot(pos)
    seen: list[tuple[int, Piece | None]] = []
    for move, shown in children(pos, FORUM):
        seen.append((move, shown))
        assert snapshot(pos) == fresh(pos)
    assert snapshot(pos) == before
    onto = sorted(shown for move, shown in seen if move == mv("b2-b3") and shown is not None)
    assert onto == [piece("g"), piece("p")]
    assert len(seen) == count_leaves(pos, FORUM)


def test_a_long_game_of_such_moves_unmakes_to_the_start() -> None:
    rng = random.Random(3)
    layout = random_layout(rng)
    pos = Position.opening()
    history = [snapshot(pos)]
    made = 0
    for _ in range(200):
        moves = generate_moves(pos, FORUM)
        if not moves:
            break
        onto = [m for m in moves if not is_flip(m) and pos.reveal_square(m) is not None]
        move = rng.choice(onto if onto and rng.random() < 0.6 else moves)
        square = pos.reveal_square(move)
        made += square is not None and not is_flip(move)
        make_ply(pos, FORUM, move, None if square is None else layout[square])
        assert snapshot(pos) == fresh(pos)
        history.append(snapshot(pos))
    assert made >= 5
    while len(history) > 1:
        history.pop()
        pos.unmake()
        assert snapshot(pos) == history[-1]


# -- the game: counters, repetition, the end ---------------------------------------------


def test_it_resets_the_no_progress_count_like_a_flip() -> None:
    squares = {"b2": "R", "b3": "X", "d8": "X", "d1": "k"}
    # one ply before the limit of 100: a quiet move draws, a move onto b3 does not
    quiet = Game(FORUM, parse_position(text_of(squares, "r", "Np", 99)))
    outcome = quiet.play(mv("b2-a2"))
    assert outcome is not None and outcome.reason == BoardEnd.NO_PROGRESS
    game = Game(FORUM, parse_position(text_of(squares, "r", "Np", 99)))
    assert game.play(mv("b2-b3"), piece("N")) is None  # even though the rook stayed
    assert game.position.no_progress == 0


def test_it_clears_the_repetition_history() -> None:
    squares = {"b2": "R", "b3": "X", "d8": "X", "d1": "k"}
    game = Game(FORUM, parse_position(text_of(squares, "r", "Np")))
    for text in ("b2-a2", "d1-c1", "a2-b2", "c1-d1", "b2-a2", "d1-c1", "a2-b2", "c1-d1"):
        assert game.play(mv(text)) is None or text == "c1-d1"
    assert game.outcome is not None and game.outcome.reason == BoardEnd.THREEFOLD_REPETITION
    game = Game(FORUM, parse_position(text_of(squares, "r", "Np")))
    for text in ("b2-a2", "d1-c1", "a2-b2", "c1-d1"):
        game.play(mv(text))
    assert max(game._seen.values()) == 2
    game.play(mv("b2-b3"), piece("N"))
    assert game._seen == {game.position.key(): 1}
    for text in ("d1-c1", "b2-a2", "c1-d1", "a2-b2"):
        assert game.play(mv(text)) is None  # the count starts again from the reveal


def test_capturing_the_last_enemy_piece_wins() -> None:
    game = game_at({"b2": "R", "b3": "X"}, "r", "g")
    outcome = game.play(mv("b2-b3"), piece("g"))
    assert outcome is not None
    assert (outcome.winner, outcome.reason) == (RED, BoardEnd.NO_LEGAL_MOVE)
    assert outcome.description == "red wins: black has no pieces left"
    with pytest.raises(MoveError, match="the game is over"):
        game.play(mv("b3-b2"))


def test_turning_up_an_own_piece_can_leave_the_enemy_without_a_move() -> None:
    game = game_at({"b2": "R", "b3": "X"}, "r", "N")
    outcome = game.play(mv("b2-b3"), piece("N"))
    assert outcome is not None and (outcome.winner, outcome.reason) == (
        RED,
        BoardEnd.NO_LEGAL_MOVE,
    )
    # but an enemy left face up keeps the game going
    game = game_at({"b2": "G", "b3": "X"}, "r", "r")
    assert game.play(mv("b2-b3"), piece("r")) is None
    assert mv("b3-b2") in game.legal_moves()


def test_piece_shown_reads_the_layout_under_the_target() -> None:
    game = game_at({"b2": "R", "b3": "X", "d8": "X", "d1": "k"}, "r", "gp")
    layout = [piece("P")] * 32
    layout[parse_square("b3")] = piece("g")
    assert game.piece_shown(mv("b2-b3"), layout) == piece("g")
    assert game.piece_shown(mv("b2-a2"), layout) is None
    assert game.piece_shown(flip_move(parse_square("b3")), layout) == piece("g")


# -- the built-in players ------------------------------------------------------------------


class Checked:
    """A player whose every choice is checked to be legal and to leave the game as it was,
    counting the moves onto face-down pieces it chose."""

    def __init__(self, level: int, seed: int) -> None:
        self.inner = make_player(level, seed, FORUM)
        self.onto = 0

    def choose(self, game: Game, budget_seconds: float | None) -> Move:
        before = game.position.to_string()
        move = self.inner.choose(game, budget_seconds)
        assert move in game.legal_moves()
        assert game.position.to_string() == before
        if not is_flip(move) and game.position.reveal_square(move) is not None:
            self.onto += 1
        return move


@pytest.mark.parametrize(("first", "second"), [(0, 0), (1, 0), (1, 1)])
def test_levels_zero_and_one_play_legal_games_with_such_moves(first: int, second: int) -> None:
    onto = 0
    for seed in range(3):
        a, b = Checked(first, seed), Checked(second, seed + 100)
        layout = random_layout(random.Random(seed))
        game = play_game(a, b, FORUM, layout, None)
        assert game.outcome is not None
        onto += a.onto + b.onto
        recorded = [p for p in game.plies if not p.is_flip and p.piece is not None]
        assert len(recorded) == a.onto + b.onto
        # the game replays from its record strings
        replay = Game(FORUM)
        for ply in game.plies:
            replay.play_ply(parse_ply(str(ply)))
        assert replay.position == game.position
    assert onto >= 3


GREEDY_TARGET = text_of({"b2": "R", "b3": "X", "d8": "X", "a8": "X", "d1": "k"}, "r", "ppp")
"""Red's rook next to a face-down square, only black Pawns face down: moving onto b3
always takes one."""


@pytest.mark.parametrize("level", [1, 2])
def test_levels_one_and_two_take_a_sure_piece_by_moving_onto_it(level: int) -> None:
    for seed in range(3):
        game = Game(FORUM, parse_position(GREEDY_TARGET))
        assert make_player(level, seed, FORUM).choose(game, None) == mv("b2-b3")


def test_level_two_plays_a_legal_game_with_such_moves() -> None:
    # level 2 searches on the clock (0.1 s a move): its choices may vary, not their legality
    searching, random_player = Checked(2, 0), Checked(0, 100)
    game = play_game(searching, random_player, FORUM, random_layout(random.Random(0)), None)
    assert game.outcome is not None
    assert searching.onto >= 1


def test_a_withheld_move_onto_a_square_that_is_not_face_down_is_refused() -> None:
    game = game_at({"b2": "R", "d8": "X", "d1": "k"}, "r", "p")
    with pytest.raises(MoveError, match=r"b2-b3\(\?\) moves onto a face-down piece, but b3 is"):
        game.play_ply(parse_ply("b2-b3(?)"))
    assert game.plies == []
