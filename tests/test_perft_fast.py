"""The bulk counters and the deep perft against the plain perft on many seeded positions.

``count_two_ply_leaves`` (perft 2 without making moves) and ``perft`` at depths 3
and 4 (with its transposition table) must equal the plain perft of
``plain_rules`` on positions from random playouts and placements, for the presets
and for rule sets mixing the cannon options, with and without moves onto face-down
pieces.
"""

import random

import pytest
from plain_rules import (
    PIECE_ORDER,
    PlainState,
    board_text,
    legal_moves,
    parse_state,
    perft,
)
from test_movegen_differential import (
    FULL_SET,
    PRESET_NAMES,
    VARIANT,
    corpus,
    placement_position,
    random_rule_set,
)

import banqi_engine.perft as perft_module
from banqi_engine.movegen_tables import prey_masks, rule_tables, threat_masks
from banqi_engine.perft import perft as fast_perft
from banqi_engine.pieces import (
    COLOURS,
    EMPTY,
    HIDDEN,
    NUM_KINDS,
    PIECE_LETTERS,
    UNDECIDED,
    make_piece,
)
from banqi_engine.position import Position, parse_position
from banqi_engine.rules import PRESETS, RuleSet, step_capture_masks
from banqi_engine.squares import NUM_SQUARES
from banqi_engine.two_ply_count import count_two_ply_leaves

CANNON_OPTIONS = [(capture, move) for capture in ("jump", "step") for move in ("step", "slide")]


def plain_of(rules: RuleSet) -> tuple[str, str, str, bool]:
    return rules.capture_order, rules.cannon_capture, rules.cannon_move, rules.move_onto_face_down


def check_fast_perft(text: str, rules: RuleSet, depth: int) -> None:
    """The fast perft of ``text`` to ``depth`` is the plain one's, and leaves the position
    as it was."""
    pos = parse_position(text)
    before = (pos.to_string(), pos.hash)
    expected = perft(parse_state(text), depth, *plain_of(rules))
    assert fast_perft(pos, rules, depth) == expected, (plain_of(rules), text)
    assert (pos.to_string(), pos.hash) == before, text


def check_two_plies(text: str, rules: RuleSet) -> None:
    pos = parse_position(text)
    before = (pos.to_string(), pos.hash)
    expected = perft(parse_state(text), 2, *plain_of(rules))
    assert count_two_ply_leaves(pos, rules) == expected, f"{plain_of(rules)}: {text}"
    assert (pos.to_string(), pos.hash) == before, text


@pytest.mark.parametrize("preset", PRESET_NAMES)
def test_two_plies_on_the_corpus(preset: str) -> None:
    for text in corpus(preset)[::5]:
        check_two_plies(text, PRESETS[preset])


@pytest.mark.parametrize(("capture", "move"), CANNON_OPTIONS)
def test_two_plies_under_mixed_cannon_rules(capture: str, move: str) -> None:
    rng = random.Random(f"{capture}-{move}")
    for index in range(3):
        order = list("KGMRNCP")
        rng.shuffle(order)
        rules = RuleSet(
            name="mixed", capture_order="".join(order), cannon_capture=capture, cannon_move=move
        )
        for preset in PRESET_NAMES:
            for text in corpus(preset)[index::37]:
                check_two_plies(text, rules)


def sparse_position(rng: random.Random) -> str:
    """A placement with few pieces, so that the plain perft stays cheap at depth 4."""
    while True:
        text = placement_position(rng)
        board = text.split()[0]
        if sum(c != "-" for c in board) <= 9 and text.split()[1] != "-":
            return text


@pytest.mark.parametrize("preset", PRESET_NAMES)
def test_deeper_perft_against_plain(preset: str) -> None:
    rules = PRESETS[preset]
    plain = plain_of(rules)
    texts = corpus(preset)
    rng = random.Random(PRESET_NAMES.index(preset) + 31)
    for text in [t for t in texts if t.split()[0].count("X") <= 6][7::151]:
        assert fast_perft(parse_position(text), rules, 3) == perft(parse_state(text), 3, *plain)
    for _ in range(6):
        check_fast_perft(sparse_position(rng), rules, 4)


def test_random_rule_sets_three_plies() -> None:
    rng = random.Random(77)
    texts = [sparse_position(rng) for _ in range(12)]
    for _ in range(6):
        rules = random_rule_set(rng)
        for text in texts:
            expected = perft(parse_state(text), 3, *plain_of(rules))
            assert fast_perft(parse_position(text), rules, 3) == expected, (plain_of(rules), text)


def bare_position(rng: random.Random, hidden: int) -> str:
    """A placement with three to eight face-up pieces and ``hidden`` face-down squares."""
    pieces = list(FULL_SET)
    rng.shuffle(pieces)
    up = pieces[: rng.randint(3, 8)]
    down = pieces[len(up) : len(up) + hidden]
    board = ["-"] * 32
    for square, letter in zip(
        rng.sample(range(32), len(up) + hidden), up + ["X"] * hidden, strict=True
    ):
        board[square] = letter
    pool = "".join(str(down.count(letter)) for letter in PIECE_ORDER)
    return f"{board_text(tuple(board))} {rng.choice('rb')} {pool}"


@pytest.mark.parametrize("preset", PRESET_NAMES)
def test_three_plies_on_sparse_boards(preset: str) -> None:
    rng = random.Random(f"sparse-{preset}")
    order = PRESETS[preset].capture_order
    onto = PRESETS[preset].move_onto_face_down
    rule_sets = [PRESETS[preset]] + [
        RuleSet(
            name="mixed",
            capture_order=order,
            cannon_capture=capture,
            cannon_move=move,
            move_onto_face_down=onto,
        )
        for capture, move in CANNON_OPTIONS
    ]
    for index in range(60):
        text = bare_position(rng, index % 3)
        for rules in rule_sets:
            check_fast_perft(text, rules, 3)


def test_deeper_perft_on_sparse_boards() -> None:
    rng = random.Random(404)
    rule_sets = [PRESETS[preset] for preset in PRESET_NAMES] + [
        random_rule_set(rng) for _ in range(2)
    ]
    for index, rules in enumerate(rule_sets):
        for hidden in (0, 2, 3):
            text = bare_position(rng, hidden)
            pos = parse_position(text)
            depth = 5 if hidden == 0 and index % 2 else 4
            expected = perft(parse_state(text), depth, *plain_of(rules))
            assert fast_perft(pos, rules, depth) == expected, (plain_of(rules), text, depth)


def test_a_small_table_that_fills_up_gives_the_same_counts(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    text = "nM--/----/kg--/---c/prgp/-X--/-r--/Xm-m b 00001000000001"
    rules = PRESETS["olympiad"]
    full = fast_perft(parse_position(text), rules, 5)
    monkeypatch.setattr(perft_module, "TABLE_LIMIT", 7)
    assert fast_perft(parse_position(text), rules, 5) == full == 443406


def undecided_with_pieces(rng: random.Random) -> tuple[Position, PlainState]:
    """Colours undecided but pieces face up: refused by the parser, still countable."""
    state = parse_state(placement_position(rng))
    board = list(state.board)
    return (
        Position(
            [
                PIECE_LETTERS.index(c) if c in PIECE_LETTERS else HIDDEN if c == "X" else EMPTY
                for c in board
            ],
            list(state.pool),
            UNDECIDED,
        ),
        PlainState(state.board, "-", state.pool),
    )


def test_two_plies_with_undecided_colours() -> None:
    rng = random.Random(5)
    for preset in PRESET_NAMES:
        rules = PRESETS[preset]
        for _ in range(40):
            pos, state = undecided_with_pieces(rng)
            expected = perft(state, 2, *plain_of(rules))
            assert count_two_ply_leaves(pos, rules) == expected, (preset, board_text(state.board))
            if sum(c != "-" for c in state.board) <= 9:
                assert fast_perft(pos, rules, 3) == perft(state, 3, *plain_of(rules))
    opening = parse_position("XXXX/XXXX/XXXX/XXXX/XXXX/XXXX/XXXX/XXXX - 12222251222225")
    assert count_two_ply_leaves(opening, PRESETS["olympiad"]) == 192448


def test_two_plies_with_one_piece_type_left() -> None:
    rules = PRESETS["olympiad"]
    for text in (
        "----/----/----/----/----/----/-c--/XXX- r 00000000000003",
        "----/----/----/----/----/----/-C--/XXX- r 00000000000003",
        "----/--X-/----/----/--c-/----/----/-C-X b 00000100000001",
        "----/----/----/----/----/----/----/R--- b 00000000000000",
    ):
        check_two_plies(text, rules)
        for preset in PRESET_NAMES:
            check_two_plies(text, PRESETS[preset])


def test_capture_masks_follow_the_rules() -> None:
    rng = random.Random(11)
    rule_sets = [PRESETS[p] for p in PRESET_NAMES] + [random_rule_set(rng) for _ in range(30)]
    for rules in rule_sets:
        tables = rule_tables(rules)
        masks = step_capture_masks(rules)
        for _ in range(20):
            bb = [0] * (EMPTY + 1)
            for square in range(NUM_SQUARES):
                bb[rng.randrange(EMPTY + 1)] |= 1 << square
            for colour in COLOURS:
                base = make_piece(colour, 0)
                prey = prey_masks(bb, base, tables)
                threats = threat_masks(bb, base, tables)
                for kind in range(NUM_KINDS):
                    union = 0
                    for target in range(NUM_KINDS):
                        if masks[kind] >> target & 1:
                            union |= bb[make_piece(colour, target)]
                    assert prey[kind] == union, (rules, kind)
                    union = 0
                    for attacker in range(NUM_KINDS):
                        if masks[attacker] >> kind & 1:
                            union |= bb[make_piece(colour, attacker)]
                    assert threats[kind] == union, (rules, kind)


# -- moves onto face-down pieces ---------------------------------------------------------


def swapped(state: PlainState) -> PlainState:
    """The same board with the other side to move."""
    return PlainState(state.board, "b" if state.side == "r" else "r", state.pool)


def reveal_pairs(state: PlainState, rules: RuleSet) -> list[tuple[int, int]]:
    """The plain generator's moves onto face-down pieces for the side to move."""
    return [
        (frm, to)
        for frm, to in legal_moves(state, *plain_of(rules))
        if frm != to and state.board[to] == "X"
    ]


def both_sides_reveal(rng: random.Random, rules: RuleSet, hidden: int) -> str:
    """A bare position where both sides have moves onto face-down pieces under ``rules``."""
    while True:
        text = bare_position(rng, hidden)
        state = parse_state(text)
        if reveal_pairs(state, rules) and reveal_pairs(swapped(state), rules):
            return text


VARIANT_RULE_SETS = [
    PRESETS[VARIANT],
    *(
        RuleSet(
            name="onto-mixed",
            capture_order=order,
            cannon_capture=capture,
            cannon_move=move,
            move_onto_face_down=True,
        )
        for (capture, move), order in zip(
            CANNON_OPTIONS, ("KGMRNCP", "KRNCGMP", "PNMKGCR", "CKPGRNM"), strict=True
        )
    ),
]
"""The variant preset and one rule set per cannon option with moves onto face-down pieces."""


@pytest.mark.parametrize(
    "rules", VARIANT_RULE_SETS, ids=["forum", *(f"{c}-{m}" for c, m in CANNON_OPTIONS)]
)
def test_two_and_three_plies_with_moves_onto_face_down_on_both_sides(rules: RuleSet) -> None:
    rng = random.Random(f"onto-{rules.capture_order}-{rules.cannon_capture}-{rules.cannon_move}")
    for index in range(16):
        text = both_sides_reveal(rng, rules, 2 + index % 4)
        pos = parse_position(text)
        before = (pos.to_string(), pos.hash)
        state = parse_state(text)
        assert count_two_ply_leaves(pos, rules) == perft(state, 2, *plain_of(rules)), text
        assert fast_perft(pos, rules, 3) == perft(state, 3, *plain_of(rules)), text
        assert (pos.to_string(), pos.hash) == before, text
        # the same board with the other side to move
        other = state_of(swapped(state))
        assert count_two_ply_leaves(parse_position(other), rules) == perft(
            swapped(state), 2, *plain_of(rules)
        ), other


def state_of(state: PlainState) -> str:
    return f"{board_text(state.board)} {state.side} {''.join(map(str, state.pool))}"


def test_four_plies_with_moves_onto_face_down_on_both_sides() -> None:
    rng = random.Random("onto-four")
    for rules in VARIANT_RULE_SETS:
        for hidden in (2, 3):
            text = both_sides_reveal(rng, rules, hidden)
            check_fast_perft(text, rules, 4)


def test_the_variant_changes_the_counts() -> None:
    # the same boards count differently with the rule off: the moves are really counted
    rng = random.Random("onto-differs")
    rules = PRESETS[VARIANT]
    off = PRESETS["hong-kong"]
    for hidden in (1, 3):
        text = both_sides_reveal(rng, rules, hidden)
        state = parse_state(text)
        onto = len(reveal_pairs(state, rules))
        types = sum(1 for n in state.pool if n)
        pos = parse_position(text)
        assert fast_perft(pos, rules, 1) == fast_perft(pos, off, 1) + onto * types
        assert count_two_ply_leaves(pos, rules) != count_two_ply_leaves(pos, off)


UNDECIDED_WITH_A_KING = "----/----/----/----/----/----/----/XKX- - 00000000000002"
"""Colours undecided with a red King face up between two face-down black Pawns: not
reachable (the parser refuses it), but countable. Either flip shows a black Pawn, so red
moves next: a flip, b1-b2, and a move onto the other face-down Pawn (the King stays):
3 leaves per flip, 6 in all."""


def undecided_with_a_king() -> Position:
    """The position of ``UNDECIDED_WITH_A_KING``, built square by square."""
    board = [EMPTY] * NUM_SQUARES
    board[0] = board[2] = HIDDEN
    board[1] = make_piece(COLOURS[0], 0)
    pool = [0] * 14
    pool[13] = 2
    return Position(board, pool, UNDECIDED)


def test_undecided_colours_with_pieces_up_and_moves_onto_face_down() -> None:
    pos = undecided_with_a_king()
    state = parse_state(UNDECIDED_WITH_A_KING)
    rules = PRESETS[VARIANT]
    assert perft(state, 2, *plain_of(rules)) == 6
    assert fast_perft(pos, rules, 3) == perft(state, 3, *plain_of(rules))


def test_two_ply_count_of_undecided_colours_with_pieces_up_and_moves_onto_face_down() -> None:
    assert count_two_ply_leaves(undecided_with_a_king(), PRESETS[VARIANT]) == 6
