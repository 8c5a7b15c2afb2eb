"""Perft against the reference counts of the specification, and against the plain generator."""

import tomllib
from pathlib import Path
from typing import Any

import pytest
from plain_rules import PIECE_ORDER, after_reveal, parse_state, preset_perft
from plain_rules import perft as plain_perft

from banqi_engine.movegen import count_leaves, has_legal_move
from banqi_engine.perft import divide, perft
from banqi_engine.position import parse_position
from banqi_engine.rules import PRESETS, RuleSet
from banqi_engine.squares import parse_square

OPENING = "XXXX/XXXX/XXXX/XXXX/XXXX/XXXX/XXXX/XXXX - 12222251222225"
OLYMPIAD_ONTO = RuleSet(name="olympiad-onto", move_onto_face_down=True)
"""Olympiad rules (cannons capture only by jumping) with moves onto face-down pieces."""
TAIWAN_ONTO = RuleSet(
    name="taiwan-sliding-cannon-onto",
    cannon_move="slide",
    no_progress_limit=80,
    move_onto_face_down=True,
)
"""Taiwan rules (cannons slide and capture by jumping) with moves onto face-down pieces."""
RULES = {**PRESETS, OLYMPIAD_ONTO.name: OLYMPIAD_ONTO, TAIWAN_ONTO.name: TAIWAN_ONTO}
"""The rule sets of the reference counts, by name."""
Reference = tuple[str, str, tuple[int, int, int]]
"""A position string, the name of its rule set, and its perft counts at depths 1, 2 and 3."""
REFERENCE_FILE = Path(__file__).with_name("perft_reference.toml")


def read_reference(table: str) -> list[Reference]:
    """The rows of one table of ``REFERENCE_FILE``."""
    rows = tomllib.loads(REFERENCE_FILE.read_text(encoding="utf-8"))[table]
    return [(row["position"], row["rules"], tuple(row["counts"])) for row in rows]


REFERENCE = read_reference("specification")
"""The reference counts of the specification."""
VARIANT_REFERENCE = read_reference("onto_face_down")
"""Our own reference counts for moves onto face-down pieces: computed by the plain perft
of ``plain_rules`` and checked by the fast one (d1, d2, d3)."""
PLAIN_D3_LIMIT = 10_000_000
"""The plain perft checks d3 only up to this many leaves (the opening and the hong-kong-forum
row would take it seconds: the one's d3 is the specification's, the other's was checked once
when the table was made)."""


def plain_of(rules: RuleSet) -> tuple[str, str, str, bool]:
    return rules.capture_order, rules.cannon_capture, rules.cannon_move, rules.move_onto_face_down


def depth_cases(reference: list[Reference], limit: int | None = None) -> list[Any]:
    """A case (text, rules, depth, expected) per row and depth 1 to 3, but none of more than
    ``limit`` leaves."""
    return [
        pytest.param(text, rules, depth, counts[depth - 1], id=f"{rules}-{index}-d{depth}")
        for index, (text, rules, counts) in enumerate(reference)
        for depth in (1, 2, 3)
        if limit is None or counts[depth - 1] <= limit
    ]


@pytest.mark.parametrize(
    ("text", "rules", "depth", "expected"), depth_cases(REFERENCE + VARIANT_REFERENCE)
)
def test_reference_counts(text: str, rules: str, depth: int, expected: int) -> None:
    pos = parse_position(text)
    before = (pos.to_string(), pos.hash)
    assert perft(pos, RULES[rules], depth) == expected
    assert (pos.to_string(), pos.hash) == before


@pytest.mark.parametrize(
    ("text", "rules", "depth", "expected"), depth_cases(REFERENCE, PLAIN_D3_LIMIT)
)
def test_plain_perft_matches_reference(text: str, rules: str, depth: int, expected: int) -> None:
    assert preset_perft(text, depth, rules) == expected


@pytest.mark.parametrize(
    ("text", "counts"), [(text, counts) for text, rules, counts in REFERENCE if rules != "olympiad"]
)
def test_the_rule_set_changes_the_count(text: str, counts: tuple[int, int, int]) -> None:
    assert perft(parse_position(text), PRESETS["olympiad"], 2) != counts[1]


def test_fast_and_plain_agree_one_ply_deeper() -> None:
    text = "nM--/----/kg--/---c/prgp/-X--/-r--/Xm-m b 00001000000001"
    for rules in PRESETS:
        assert perft(parse_position(text), PRESETS[rules], 4) == preset_perft(text, 4, rules)


@pytest.mark.parametrize(("text", "rules"), [(text, rules) for text, rules, _ in REFERENCE])
def test_divide_rows_sum_to_perft(text: str, rules: str) -> None:
    pos = parse_position(text)
    rows = divide(pos, PRESETS[rules], 2)
    assert sum(count for _, count in rows) == perft(pos, PRESETS[rules], 2)
    assert len(rows) == perft(pos, PRESETS[rules], 1)
    assert len({move for move, _ in rows}) == len(rows)


def test_divide_of_the_opening_names_every_flip() -> None:
    rows = divide(parse_position(OPENING), PRESETS["olympiad"], 1)
    assert len(rows) == 448
    assert all(count == 1 for _, count in rows)
    names = {move for move, _ in rows}
    assert {"a1(K)", "a1(p)", "d8(k)", "b6(C)"} <= names
    with pytest.raises(ValueError, match="depth of at least 1"):
        divide(parse_position(OPENING), PRESETS["olympiad"], 0)


def test_depth_zero_and_a_node_without_legal_action() -> None:
    stuck = "----/----/----/----/----/----/----/R--- b 00000000000000"
    pos = parse_position(stuck)
    assert not has_legal_move(pos, PRESETS["olympiad"])
    assert perft(pos, PRESETS["olympiad"], 0) == 1
    assert perft(pos, PRESETS["olympiad"], 1) == 0
    assert perft(pos, PRESETS["olympiad"], 3) == 0
    assert count_leaves(pos, PRESETS["olympiad"]) == 0
    assert preset_perft(stuck, 2) == 0
    assert perft(parse_position(OPENING), PRESETS["olympiad"], 0) == 1


def test_a_flip_counts_once_per_distinct_piece_type() -> None:
    one_type = "----/----/----/----/----/----/----/XXX- - 00000000000003"
    assert perft(parse_position(one_type), PRESETS["olympiad"], 1) == 3
    two_types = "----/----/----/----/----/----/----/XXX- - 10000000000002"
    assert perft(parse_position(two_types), PRESETS["olympiad"], 1) == 6
    assert preset_perft(two_types, 1) == 6


# -- moves onto face-down pieces -------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "rules", "depth", "expected"), depth_cases(VARIANT_REFERENCE, PLAIN_D3_LIMIT)
)
def test_plain_perft_matches_the_variant_reference(
    text: str, rules: str, depth: int, expected: int
) -> None:
    assert plain_perft(parse_state(text), depth, *plain_of(RULES[rules])) == expected


@pytest.mark.parametrize(("text", "rules", "counts"), VARIANT_REFERENCE)
def test_the_variant_changes_the_reference_counts(
    text: str, rules: str, counts: tuple[int, int, int]
) -> None:
    off = RULES[rules].model_copy(update={"move_onto_face_down": False})
    assert perft(parse_position(text), off, 1) < counts[0]
    assert perft(parse_position(text), off, 2) < counts[1]


def test_the_preset_hong_kong_forum_is_hong_kong_with_moves_onto_face_down() -> None:
    forum = PRESETS["hong-kong-forum"]
    assert forum.move_onto_face_down and not PRESETS["hong-kong"].move_onto_face_down
    assert (forum.capture_order, forum.cannon_capture, forum.cannon_move) == (
        "KRNCGMP",
        "step",
        "step",
    )
    assert forum.no_progress_limit == 100
    assert not any(PRESETS[name].move_onto_face_down for name in PRESETS if name != forum.name)


@pytest.mark.parametrize(("text", "rules"), [(text, rules) for text, rules, _ in VARIANT_REFERENCE])
def test_divide_names_moves_onto_face_down_pieces(text: str, rules: str) -> None:
    rule_set = RULES[rules]
    pos = parse_position(text)
    state = parse_state(text)
    letters = [PIECE_ORDER[i] for i in range(14) if state.pool[i]]
    rows = divide(pos, rule_set, 2)
    counts = dict(rows)
    assert len(counts) == len(rows) == perft(pos, rule_set, 1)
    assert sum(counts.values()) == perft(pos, rule_set, 2)
    onto = [name for name, _ in rows if "-" in name and name.endswith(")")]
    assert onto, text
    for name in onto:
        # a2-a3(k): every piece type face down, once each, each with the plain count below
        squares = name[: name.index("(")]
        frm, to = (parse_square(part) for part in squares.split("-"))
        assert state.board[to] == "X"
        assert {row for row in counts if row.startswith(squares + "(")} == {
            f"{squares}({letter})" for letter in letters
        }
        letter = name[-2]
        child = after_reveal(state, (frm, to), letter, rule_set.capture_order)
        assert counts[name] == plain_perft(child, 1, *plain_of(rule_set)), name
    # the cannons that capture by jumping have none
    for name in onto:
        mover = state.board[parse_square(name[:2])]
        assert not (mover in "Cc" and rule_set.cannon_capture == "jump"), name
    assert parse_position(text).to_string() == pos.to_string()
