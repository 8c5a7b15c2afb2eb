"""The fast move generator against the plain one on many random reachable positions.

Positions come from seeded random playouts (random hidden layouts, moves chosen from
the plain generator) and from seeded random placements, so every failure reproduces.
"""

import random
from functools import cache

import pytest
from plain_rules import (
    PIECE_ORDER,
    PLAIN_PRESETS,
    PlainState,
    after_flip,
    after_move,
    after_reveal,
    board_text,
    legal_moves,
    letters_face_down,
    parse_state,
    perft,
    square_text,
    state_text,
)

from banqi_engine.movegen import count_leaves, generate_captures, generate_moves
from banqi_engine.moves import is_flip, move_from, move_to
from banqi_engine.perft import perft as fast_perft
from banqi_engine.pieces import HIDDEN, PIECE_LETTERS
from banqi_engine.position import Position, parse_position
from banqi_engine.rules import PRESETS, RuleSet, takes_revealed

FULL_SET = "KGGMMRRNNCCPPPPPkggmmrrnnccppppp"
PRESET_NAMES = ("olympiad", "hong-kong", "taiwan-sliding-cannon", "casual", "hong-kong-forum")
PLAYOUTS_PER_PRESET = 30
MAX_PLIES = 140
PLACEMENTS_PER_PRESET = 600
VARIANT = "hong-kong-forum"
"""The preset where a piece may move onto a face-down piece."""
MOVES_CHECKED_PER_POSITION = 4


def position_text(state: PlainState, no_progress: int, ply: int) -> str:
    return f"{state_text(state)} {no_progress} {ply}"


def plain_moves(state: PlainState, preset: str) -> list[tuple[int, int]]:
    return legal_moves(state, *PLAIN_PRESETS[preset])


def playout_positions(preset: str, seed: int) -> list[str]:
    """Position strings met along one random game from the opening."""
    return playout(preset, seed)[0]


def playout(preset: str, seed: int) -> tuple[list[str], int]:
    """``playout_positions``, and how many moves onto face-down pieces the game played."""
    rng = random.Random(seed)
    layout = list(FULL_SET)
    rng.shuffle(layout)
    state = PlainState(tuple("X" * 32), "-", (1, 2, 2, 2, 2, 2, 5, 1, 2, 2, 2, 2, 2, 5))
    capture_bias = rng.choice((0.0, 0.5, 0.9))
    no_progress = 0
    found = []
    reveals = 0
    for ply in range(MAX_PLIES):
        found.append(position_text(state, no_progress, ply))
        moves = plain_moves(state, preset)
        if not moves:
            break
        captures = [m for m in moves if m[0] != m[1] and state.board[m[1]] not in "-X"]
        if captures and rng.random() < capture_bias:
            move = rng.choice(captures)
        else:
            move = rng.choice(moves)
        frm, to = move
        if frm == to:
            state = after_flip(state, frm, layout[frm])
            no_progress = 0
        elif state.board[to] == "X":
            state = after_reveal(state, move, layout[to], PLAIN_PRESETS[preset][0])
            no_progress = 0
            reveals += 1
        else:
            no_progress = 0 if state.board[to] != "-" else no_progress + 1
            state = after_move(state, move)
    return found, reveals


def placement_position(rng: random.Random) -> str:
    """A valid position built by putting a random part of a full set on random squares."""
    pieces = list(FULL_SET)
    rng.shuffle(pieces)
    up_count = rng.randint(0, 20)
    down_count = rng.randint(0, min(32 - up_count, len(pieces) - up_count))
    if rng.random() < 0.08:
        up_count = 0
    down_count = max(down_count, 1 - up_count)  # a game always has a piece on the board
    face_up = pieces[:up_count]
    face_down = pieces[up_count : up_count + down_count]
    squares = rng.sample(range(32), up_count + down_count)
    board = ["-"] * 32
    for square, letter in zip(squares, face_up + ["X"] * down_count, strict=True):
        board[square] = letter
    pool = tuple(face_down.count(letter) for letter in PIECE_ORDER)
    side = "-" if not face_up else rng.choice("rb")  # no side to move before a flip
    no_progress = rng.randint(0, 60)
    return f"{board_text(tuple(board))} {side} {''.join(map(str, pool))} {no_progress} 77"


@cache
def corpus(preset: str) -> tuple[str, ...]:
    """Reproducible sample of positions for one rule set."""
    base = PRESET_NAMES.index(preset) * 100_003
    texts: list[str] = []
    for game in range(PLAYOUTS_PER_PRESET):
        texts.extend(playout_positions(preset, base + game))
    rng = random.Random(base + 99)
    texts.extend(placement_position(rng) for _ in range(PLACEMENTS_PER_PRESET))
    return tuple(texts)


def move_name(move: tuple[int, int]) -> str:
    frm, to = move
    return square_text(frm) if frm == to else f"{square_text(frm)}-{square_text(to)}"


def fast_moves(pos: Position, preset: str) -> list[tuple[int, int]]:
    return [(move_from(move), move_to(move)) for move in generate_moves(pos, PRESETS[preset])]


def test_corpus_is_large_and_varied() -> None:
    all_texts = [text for preset in PRESET_NAMES for text in corpus(preset)]
    assert len(all_texts) >= 10_000
    sides = {text.split()[1] for text in all_texts}
    assert sides == {"r", "b", "-"}
    assert any("X" not in text.split()[0] for text in all_texts)
    assert any(text.split()[0].count("-") >= 24 for text in all_texts)


def reveal_moves(state: PlainState, preset: str) -> list[tuple[int, int]]:
    """The plain generator's moves onto face-down pieces."""
    return [(a, b) for a, b in plain_moves(state, preset) if a != b and state.board[b] == "X"]


def test_the_variant_corpus_has_moves_onto_face_down_pieces_for_both_sides() -> None:
    texts = corpus(VARIANT)
    with_reveals = [text for text in texts if reveal_moves(parse_state(text), VARIANT)]
    assert len(with_reveals) >= len(texts) // 10
    assert {text.split()[1] for text in with_reveals} == {"r", "b"}
    assert sum(playout(VARIANT, PRESET_NAMES.index(VARIANT) * 100_003 + g)[1] for g in range(5)) > 5
    for preset in PRESET_NAMES:
        if preset != VARIANT:
            assert not any(reveal_moves(parse_state(t), preset) for t in corpus(preset)[::25])


@pytest.mark.parametrize("preset", PRESET_NAMES)
def test_move_sets_and_leaf_counts_agree(preset: str) -> None:
    rules = PRESETS[preset]
    plain_rules = PLAIN_PRESETS[preset]
    for text in corpus(preset):
        pos = parse_position(text)
        state = parse_state(text)
        fast_list = fast_moves(pos, preset)
        fast = set(fast_list)
        plain = set(legal_moves(state, *plain_rules))
        if fast != plain:
            only_fast = sorted(move_name(m) for m in fast - plain)
            only_plain = sorted(move_name(m) for m in plain - fast)
            pytest.fail(f"{preset}: {text}\n  only fast: {only_fast}\n  only plain: {only_plain}")
        assert len(fast_list) == len(fast), f"{preset}: duplicate moves in {text}"
        # captures, moves, moves onto face-down pieces, flips (the search stops at the
        # first flip when it leaves flips out)
        groups = [
            3 if frm == to else 2 if state.board[to] == "X" else 1 if state.board[to] == "-" else 0
            for frm, to in fast_list
        ]
        assert groups == sorted(groups), f"{preset}: move order in {text}"
        captures = [frm << 5 | to for (frm, to), g in zip(fast_list, groups, strict=True) if not g]
        assert generate_captures(pos, rules) == captures, f"{preset}: captures of {text}"
        expected = perft(state, 1, *plain_rules)
        assert count_leaves(pos, rules) == expected, f"{preset}: count_leaves of {text}"


def fresh_matches(pos: Position) -> str | None:
    """What differs between ``pos`` and a Position built from its own string, if anything."""
    fresh = parse_position(pos.to_string())
    for name in ("board", "pool", "side", "no_progress", "ply", "hash", "bb", "colour_bb"):
        if getattr(fresh, name) != getattr(pos, name):
            return name
    if (fresh.hidden, fresh.empty) != (pos.hidden, pos.empty):
        return "hidden/empty"
    if fresh.key() != pos.key():
        return "key"
    return None


@pytest.mark.parametrize("preset", PRESET_NAMES)
def test_make_unmake_and_incremental_hash(preset: str) -> None:
    rules = PRESETS[preset]
    rng = random.Random(PRESET_NAMES.index(preset))
    texts = corpus(preset)
    outcomes: set[bool] = set()
    """Whether the moves onto face-down pieces made captured (True) or stayed (False)."""
    for text in texts[::4]:
        pos = parse_position(text)
        state = parse_state(text)
        before = pos.to_string()
        before_hash = pos.hash
        no_progress, ply = pos.no_progress, pos.ply
        moves = fast_moves(pos, preset)
        plies: list[tuple[tuple[int, int], str]] = []
        for frm, to in rng.sample(moves, min(len(moves), MOVES_CHECKED_PER_POSITION)):
            if state.board[to] == "X" and frm != to:
                continue  # one such move is checked below with every outcome
            plies.append(((frm, to), rng.choice(letters_face_down(state)) if frm == to else ""))
        onto = [(frm, to) for frm, to in moves if frm != to and state.board[to] == "X"]
        if onto:
            chosen = rng.choice(onto)
            plies.extend((chosen, letter) for letter in letters_face_down(state))
        for (frm, to), letter in plies:
            if frm == to:
                pos.make_flip(frm, PIECE_LETTERS.index(letter))
                expected_state = after_flip(state, frm, letter)
                expected_counter = 0
                what = f"{square_text(frm)}({letter})"
            elif letter:
                piece = PIECE_LETTERS.index(letter)
                takes = takes_revealed(rules, pos.board[frm], piece)
                outcomes.add(takes)
                pos.make_reveal(frm << 5 | to, piece, takes)
                expected_state = after_reveal(state, (frm, to), letter, rules.capture_order)
                expected_counter = 0
                what = f"{move_name((frm, to))}({letter})"
            else:
                captures = state.board[to] != "-"
                pos.make_move(frm << 5 | to)
                expected_state = after_move(state, (frm, to))
                expected_counter = 0 if captures else no_progress + 1
                what = move_name((frm, to))
            expected = f"{state_text(expected_state)} {expected_counter} {ply + 1}"
            assert pos.to_string() == expected, f"{preset}: {text} after {what}"
            differs = fresh_matches(pos)
            assert differs is None, f"{preset}: {text} after {what}: {differs} differs"
            pos.unmake()
            assert pos.to_string() == before, f"{preset}: {text} unmake of {what}"
            assert pos.hash == before_hash, f"{preset}: {text} hash after unmake of {what}"
            assert fresh_matches(pos) is None, f"{preset}: {text} unmake of {what}"
    assert outcomes == ({False, True} if rules.move_onto_face_down else set())


def test_long_make_sequence_then_unmake_all() -> None:
    reveals = 0
    for preset in PRESET_NAMES:
        rng = random.Random(7 + PRESET_NAMES.index(preset))
        layout = list(FULL_SET)
        rng.shuffle(layout)
        pos = Position.opening()
        history = [(pos.to_string(), pos.hash)]
        for _ in range(MAX_PLIES):
            moves = generate_moves(pos, PRESETS[preset])
            if not moves:
                break
            onto = [m for m in moves if not is_flip(m) and pos.board[move_to(m)] == HIDDEN]
            move = rng.choice(onto if onto and rng.random() < 0.5 else moves)
            if is_flip(move):
                square = move_from(move)
                pos.make_flip(square, PIECE_LETTERS.index(layout[square]))
            elif pos.board[move_to(move)] == HIDDEN:
                piece = PIECE_LETTERS.index(layout[move_to(move)])
                mover = pos.board[move_from(move)]
                pos.make_reveal(move, piece, takes_revealed(PRESETS[preset], mover, piece))
                reveals += 1
            else:
                pos.make_move(move)
            assert fresh_matches(pos) is None, f"{preset}: {pos.to_string()}"
            history.append((pos.to_string(), pos.hash))
        while len(history) > 1:
            history.pop()
            pos.unmake()
            assert (pos.to_string(), pos.hash) == history[-1], preset
            assert fresh_matches(pos) is None, f"{preset}: {pos.to_string()}"
    assert reveals >= 3


def random_rule_set(rng: random.Random) -> RuleSet:
    order = list("KGMRNCP")
    rng.shuffle(order)
    return RuleSet(
        name="random",
        capture_order="".join(order),
        cannon_capture=rng.choice(("jump", "step")),
        cannon_move=rng.choice(("step", "slide")),
        move_onto_face_down=rng.random() < 0.5,
    )


def test_random_rule_sets_agree() -> None:
    rng = random.Random(2024)
    texts = [text for preset in PRESET_NAMES for text in corpus(preset)[::25]]
    onto_face_down = set()
    for _ in range(8):
        rules = random_rule_set(rng)
        onto_face_down.add(rules.move_onto_face_down)
        plain_rules = (
            rules.capture_order,
            rules.cannon_capture,
            rules.cannon_move,
            rules.move_onto_face_down,
        )
        for text in texts:
            pos = parse_position(text)
            state = parse_state(text)
            fast = {(move_from(m), move_to(m)) for m in generate_moves(pos, rules)}
            plain = set(legal_moves(state, *plain_rules))
            assert fast == plain, (
                f"{plain_rules}: {text}\n  only fast: "
                f"{sorted(map(move_name, fast - plain))}\n  only plain: "
                f"{sorted(map(move_name, plain - fast))}"
            )
            assert count_leaves(pos, rules) == perft(state, 1, *plain_rules), (plain_rules, text)
    assert onto_face_down == {False, True}


@pytest.mark.parametrize("preset", PRESET_NAMES)
def test_perft_two_plies_on_sampled_positions(preset: str) -> None:
    for text in corpus(preset)[::80]:
        expected = perft(parse_state(text), 2, *PLAIN_PRESETS[preset])
        assert fast_perft(parse_position(text), PRESETS[preset], 2) == expected, text
