"""The flip choice: which face-down squares interact, and their ranking by expected gain."""

import random

import pytest
from game_drivers import random_game

from banqi_engine.evaluation import base_values
from banqi_engine.movegen import jump_targets
from banqi_engine.pieces import UNDECIDED
from banqi_engine.position import Position
from banqi_engine.rules import PRESETS
from banqi_engine.search_flips import FlipChoice
from banqi_engine.squares import NEIGHBOUR_MASKS
from banqi_engine.transposition import pool_key


def positions(preset: str, count: int) -> list[Position]:
    """Positions of random games with colours decided and something face down."""
    rng = random.Random(preset)
    found = []
    while len(found) < count:
        pos = random_game(rng, PRESETS[preset], rng.randrange(1, 120)).position
        if pos.side != UNDECIDED and pos.hidden:
            found.append(pos)
    return found


def ranked_by_sort(flips: FlipChoice, pos: Position, squares: list[int]) -> list[int]:
    """``ranked`` as a sort of (-gain, square) pairs, the gains summed square by square."""
    table = flips.gain_table(pos, pool_key(pos.pool))
    face_up = pos.colour_bb[0] | pos.colour_bb[1]
    pairs = []
    for square in squares:
        gain = 0.0
        for other in range(32):
            if (NEIGHBOUR_MASKS[square] & face_up) >> other & 1:
                gain += table[pos.board[other]]
        pairs.append((-gain, square))
    pairs.sort()
    return [square for _, square in pairs[: flips.max_flips]]


@pytest.mark.parametrize("preset", sorted(PRESETS))
def test_split_parts_the_face_down_squares_by_contact(preset: str) -> None:
    rules = PRESETS[preset]
    flips = FlipChoice(rules, base_values(rules), 4)
    jump = rules.cannon_capture == "jump"
    for pos in positions(preset, 30):
        face_up = pos.colour_bb[0] | pos.colour_bb[1]
        hidden = [square for square in range(32) if pos.hidden >> square & 1]
        touching = [
            square
            for square in hidden
            if NEIGHBOUR_MASKS[square] & face_up
            or (jump and jump_targets(square, ~pos.empty) & face_up)
        ]
        interacting, quiet = flips.split(pos)
        assert interacting == touching
        assert quiet == [square for square in hidden if square not in touching]


@pytest.mark.parametrize("preset", sorted(PRESETS))
@pytest.mark.parametrize("max_flips", [1, 4, 32])
def test_ranked_keeps_the_best_gains_in_the_order_of_a_sort(preset: str, max_flips: int) -> None:
    rules = PRESETS[preset]
    flips = FlipChoice(rules, base_values(rules), max_flips)
    for pos in positions(preset, 30):
        interacting, quiet = flips.split(pos)
        for squares in (interacting + quiet[:1], quiet + interacting, interacting[::-1]):
            kept = flips.ranked(pos, pool_key(pos.pool), squares)
            assert kept == ranked_by_sort(flips, pos, squares)
            assert len(kept) == min(len(squares), max_flips)


def test_the_gain_tables_are_cached_by_pool_and_side() -> None:
    rules = PRESETS["olympiad"]
    flips = FlipChoice(rules, base_values(rules), 4)
    pos = positions("olympiad", 1)[0]
    key = pool_key(pos.pool)
    table = flips.gain_table(pos, key)
    assert len(table) == 14 and len(flips.tables) == 1
    assert flips.gain_table(pos, key) == table and len(flips.tables) == 1
    assert FlipChoice(rules, base_values(rules), 4).gain_table(pos, key) == table
