"""Perft against the reference counts of the specification, and against the plain generator."""

import pytest
from plain_rules import preset_perft

from banqi_engine.movegen import count_leaves, has_legal_move
from banqi_engine.perft import divide, perft
from banqi_engine.position import parse_position
from banqi_engine.rules import PRESETS

OPENING = "XXXX/XXXX/XXXX/XXXX/XXXX/XXXX/XXXX/XXXX - 12222251222225"
REFERENCE: list[tuple[str, str, tuple[int, int, int]]] = [
    (OPENING, "olympiad", (448, 192448, 78989568)),
    (
        "XpXn/XpG-/Xn-X/XXX-/XX-P/-XK-/NXXX/C--C b 01220021111012",
        "olympiad",
        (142, 19042, 2108833),
    ),
    (
        "nM--/----/kg--/---c/prgp/-X--/-r--/Xm-m b 00001000000001",
        "olympiad",
        (23, 151, 3525),
    ),
    (
        "N-PX/----/XK--/--R-/X--X/n-XX/XkXX/G-XC b 00010110120013",
        "hong-kong",
        (73, 5094, 265157),
    ),
    (
        "-M-P/GX-c/P---/-X--/-X-N/n-X-/-gXM/RX-- b 01000100001111",
        "taiwan-sliding-cannon",
        (46, 1864, 62343),
    ),
]
CASES = [
    pytest.param(text, rules, depth, counts[depth - 1], id=f"{rules}-{index}-d{depth}")
    for index, (text, rules, counts) in enumerate(REFERENCE)
    for depth in (1, 2, 3)
]


@pytest.mark.parametrize(("text", "rules", "depth", "expected"), CASES)
def test_reference_counts(text: str, rules: str, depth: int, expected: int) -> None:
    pos = parse_position(text)
    before = (pos.to_string(), pos.hash)
    assert perft(pos, PRESETS[rules], depth) == expected
    assert (pos.to_string(), pos.hash) == before


@pytest.mark.parametrize(
    ("text", "rules", "depth", "expected"),
    [case for case in CASES if not (case.values[0] == OPENING and case.values[3] == 78989568)],
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
