"""The evaluation: each term on hand-made positions, symmetry on random ones, parameter bounds."""

import random

import pytest
from game_drivers import random_game
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pydantic import ValidationError

from banqi_engine.eval_params import DEFAULT_PARAMS, EvalParams, ParamsError, params_with
from banqi_engine.evaluation import Evaluator, material_key
from banqi_engine.pieces import (
    BLACK,
    CANNON,
    FULL_POOL,
    HIDDEN,
    KING,
    NUM_KINDS,
    RED,
    ROOK,
    UNDECIDED,
)
from banqi_engine.position import Position, parse_position
from banqi_engine.rules import PRESETS, RuleSet

OLYMPIAD = PRESETS["olympiad"]


def evaluate(text: str, rules: RuleSet = OLYMPIAD, **weights: float) -> float:
    params = params_with(f"{name}={value}" for name, value in weights.items())
    return Evaluator(rules, params).evaluate(parse_position(text))


def term(text: str, name: str, rules: RuleSet = OLYMPIAD, weight: float | None = None) -> float:
    """What one weight (at its default, or at ``weight``) adds to the score of ``text``
    (side to move's view)."""
    given = {} if weight is None else {name: weight}
    return evaluate(text, rules, **given) - evaluate(text, rules, **{name: 0.0})


def red_view(text: str, name: str, weight: float | None = None) -> float:
    """What one weight (at its default, or at ``weight``) adds to the score of ``text``,
    from red's view."""
    value = term(text, name, weight=weight)
    return value if parse_position(text).side == RED else -value


def counts_with(**changes: int) -> tuple[int, ...]:
    """Piece counts (face up or down) of a full set changed by letter, e.g. ``p=0``."""
    counts = list(FULL_POOL)
    for letter, count in changes.items():
        counts["KGMRNCPkgmrncp".index(letter)] = count
    return tuple(counts)


# -- material that depends on what is left ---------------------------------------------


def test_a_king_is_worth_less_while_enemy_pawns_live() -> None:
    evaluator = Evaluator(OLYMPIAD)
    kings = [evaluator.kind_values(counts_with(p=n))[RED][KING] for n in range(6)]
    assert kings == sorted(kings, reverse=True) and kings[0] > kings[5]


def test_face_down_enemy_pawns_lower_a_face_up_king() -> None:
    # the same face-up red king; the face-down pieces are black pawns or black ministers
    pawns = "----/----/----/----/----/XX--/-K--/---r r 00000000000002"
    ministers = "----/----/----/----/----/XX--/-K--/---r r 00000000020000"
    evaluator = Evaluator(OLYMPIAD)
    values = []
    for text in (pawns, ministers):
        pos = parse_position(text)
        counts = tuple(pos.bb[p].bit_count() + pos.pool[p] for p in range(2 * NUM_KINDS))
        values.append(evaluator.kind_values(counts)[RED][KING])
    assert values[0] < values[1]


def test_a_piece_gains_as_its_natural_enemies_go() -> None:
    evaluator = Evaluator(OLYMPIAD)
    full = evaluator.kind_values(counts_with())[RED][ROOK]
    fewer = evaluator.kind_values(counts_with(g=0, m=0))[RED][ROOK]
    fewest = evaluator.kind_values(counts_with(k=0, g=0, m=0))[RED][ROOK]
    assert full < fewer < fewest
    # the last one gone (a black cannon, which is also its prey) still raises its worth
    last = counts_with(k=0, g=0, m=0, r=0, c=1)
    assert (
        evaluator.kind_values(last)[RED][ROOK]
        < evaluator.kind_values(counts_with(k=0, g=0, m=0, r=0, c=0))[RED][ROOK]
    )


def test_a_jumping_cannon_loses_value_with_its_screens() -> None:
    evaluator = Evaluator(OLYMPIAD)
    full = evaluator.kind_values(counts_with())[RED][CANNON]
    # only red's own pawns gone: no prey or predator changes, only fewer screens
    assert evaluator.kind_values(counts_with(P=0))[RED][CANNON] < full


def test_a_trade_that_frees_the_king_scores_above_plain_material() -> None:
    # red K+P against black G+P; trading the pawns leaves red's king with no enemy
    # able to take it: plain material says the trade is even, the evaluation says it gains
    evaluator = Evaluator(OLYMPIAD)
    only = dict.fromkeys("KGMRNCPkgmrncp", 0)
    before = tuple({**only, "K": 1, "P": 1, "g": 1, "p": 1}.values())
    after = tuple({**only, "K": 1, "g": 1}.values())
    assert evaluator.material(after) > evaluator.material(before)


# -- threats, trapped pieces, parity, flipping risk -----------------------------------


def test_a_hanging_piece_is_worse_for_its_owner_than_a_protected_one() -> None:
    # red rook b2 attacks the black knight b3, which a black guard on c3 protects or not
    hanging = "----/----/g---/----/----/-n--/-R--/k--K r 00000000000000"
    protected = "----/----/----/----/----/-ng-/-R--/k--K r 00000000000000"
    assert term(hanging, "threat_stm_weight") > 0
    assert term(protected, "threat_stm_weight") == 0
    # (the guard next to the knight is also nearer the rook it hunts: that term left out)
    assert evaluate(hanging, hunt_weight=0.0) > evaluate(protected, hunt_weight=0.0)


def test_the_side_to_moves_threat_counts_more_than_the_opponents() -> None:
    red_to_move = "----/----/----/----/----/-n--/-R--/k--K r 00000000000000"
    black_to_move = red_to_move.replace(" r ", " b ")
    assert term(red_to_move, "threat_stm_weight") > -term(black_to_move, "threat_opp_weight") > 0


def test_a_trapped_piece_costs_its_side() -> None:
    # red knight a1 attacked by the black rook a2; its only empty neighbour b1 is next
    # to a black guard on c1 (trapped) or not (the guard on c3)
    trapped = "----/----/----/----/----/----/r---/N-g- r 00000000000000"
    free = "----/----/----/----/----/--g-/r---/N--- r 00000000000000"
    assert term(trapped, "trapped_weight") < 0
    assert term(free, "trapped_weight") == 0


def test_a_confined_piece_costs_its_side() -> None:
    # red knight a1, not attacked: the black rook b2 watches both its empty neighbours
    # (a2, b1), or only b1 from c1, or neither from a8; a rook never takes the red king
    # (and the black rook on b5, with four ways out, is not confined by it either)
    weight = {"confine_weight": 0.5}
    confined = "----/----/----/----/----/----/-r--/N--- r 00000000000000"
    one_way = "----/----/----/----/----/----/----/N-r- r 00000000000000"
    free = "r---/----/----/----/----/----/----/N--- r 00000000000000"
    untouchable = "----/----/----/-r--/----/----/----/K--- r 00000000000000"
    scores = [
        evaluate(text, **weight) - evaluate(text, confine_weight=0.0)
        for text in (confined, one_way, free, untouchable)
    ]
    assert scores[0] < scores[1] < scores[2] < 0 == scores[3]
    # a share of the knight's value: all of it with no way out, half with one
    assert scores[1] == pytest.approx(scores[0] / 2)
    # from black's view the same position is a gain
    assert evaluate(confined.replace(" r ", " b "), **weight) - evaluate(
        confined.replace(" r ", " b "), confine_weight=0.0
    ) == pytest.approx(-scores[0])


def test_a_chaser_is_credited_a_share_of_its_preys_value_by_distance() -> None:
    # the red rook b2 chases the black knight (which never takes a rook) one, two or
    # four steps away; the black guard b8 is chased by nothing red and hunts the rook
    near = "-g--/----/----/----/----/----/-Rn-/---- r 00000000000000"
    two = "-g--/----/----/----/-n--/----/-R--/---- r 00000000000000"
    far = "-g--/----/----/n---/----/----/-R--/---- r 00000000000000"
    alone = "-g--/----/----/----/----/----/-R--/---- r 00000000000000"
    hunt = [term(text, "hunt_weight") for text in (near, two, far, alone)]
    assert hunt[0] > hunt[1] > hunt[2] > hunt[3]  # on by default
    double = [
        evaluate(text, hunt_weight=2 * DEFAULT_PARAMS.hunt_weight) - evaluate(text, hunt_weight=0.0)
        for text in (near, two, far, alone)
    ]
    assert double == pytest.approx([2 * share for share in hunt])  # linear in its weight
    # the knight's share falls by 0.64 a step: the guard's hunt of the rook is the same in all
    assert hunt[0] - hunt[3] == pytest.approx((hunt[1] - hunt[3]) / 0.64)
    assert hunt[3] < 0


def test_a_lone_chasers_parity_flips_with_the_side_to_move() -> None:
    # red rook b2 chases the black knight b4, two steps away: with red to move the
    # distance parity never lets it catch the knight; with black to move it does
    red_to_move = "----/----/----/----/-n--/----/-R--/---- r 00000000000000"
    black_to_move = red_to_move.replace(" r ", " b ")
    assert red_view(red_to_move, "parity_weight", 1.0) < 0
    assert red_view(black_to_move, "parity_weight", 1.0) == pytest.approx(
        -red_view(red_to_move, "parity_weight", 1.0)
    )
    odd = "----/----/----/-n--/----/----/-R--/---- r 00000000000000"
    assert red_view(odd, "parity_weight", 1.0) > 0
    assert red_view(odd, "parity_weight") == 0  # off by default


def test_flipping_risk_next_to_own_strong_pieces() -> None:
    # a red king next to two face-down squares that may hide black pawns (which take it)
    two_pawns = "----/----/----/----/----/XX--/-K--/---r r 00000000000002"
    one_pawn = "----/----/----/----/----/XX--/-K--/---r r 00000010000001"
    ministers = "----/----/----/----/----/XX--/-K--/---r r 00000000020000"
    assert term(two_pawns, "flip_risk_weight") < term(one_pawn, "flip_risk_weight") < 0
    assert term(ministers, "flip_risk_weight") == 0


# -- the no-progress counter ---------------------------------------------------------


@pytest.mark.parametrize("side", ["r", "b"])
def test_the_score_fades_near_the_no_progress_limit(side: str) -> None:
    text = f"----/----/----/----/----/---p/----/R--K {side} 00000000000000"
    limit = OLYMPIAD.no_progress_limit
    scores = [abs(evaluate(f"{text} {n}")) for n in (0, limit - 20, limit - 1)]
    assert scores[0] > scores[1] > scores[2] > 0
    assert scores[2] < scores[0] / 10
    # the side ahead (red) sees a positive score, the side behind a negative one
    assert (evaluate(f"{text} 0") > 0) == (side == "r")


@pytest.mark.parametrize("side", ["r", "b"])
def test_plies_without_a_capture_press_the_side_ahead(side: str) -> None:
    text = f"----/----/----/----/----/---p/----/R--K {side} 00000000000000"
    pressure = {"progress_pressure": 0.2}
    fresh = evaluate(f"{text} 0", **pressure)
    assert evaluate(f"{text} 0") == pytest.approx(fresh)
    assert evaluate(f"{text} 10", **pressure) == pytest.approx(fresh * 0.9)
    assert evaluate(f"{text} 20", **pressure) == pytest.approx(fresh * 0.8)
    assert evaluate(f"{text} 60", **pressure) == pytest.approx(fresh * 0.8)
    # with a piece face down the counter presses nobody (a flip resets it anyway)
    hidden = f"----/----/----/----/----/---p/---X/R--K {side} 00000000000001"
    assert evaluate(f"{hidden} 20", **pressure) == pytest.approx(evaluate(f"{hidden} 0"))


# -- symmetry --------------------------------------------------------------------------


def colours_swapped(pos: Position) -> Position:
    board = [s if s >= HIDDEN else (s + NUM_KINDS) % (2 * NUM_KINDS) for s in pos.board]
    return Position(board, pos.pool[NUM_KINDS:] + pos.pool[:NUM_KINDS], pos.side ^ 1)


def mirrored(pos: Position, files: bool) -> Position:
    def source(square: int) -> int:
        return square ^ 3 if files else (7 - square // 4) * 4 + square % 4

    return Position([pos.board[source(s)] for s in range(32)], pos.pool, pos.side)


@pytest.mark.parametrize("preset", sorted(PRESETS))
@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32), plies=st.integers(1, 250))
def test_the_evaluation_is_symmetric(preset: str, seed: int, plies: int) -> None:
    rules = PRESETS[preset]
    pos = random_game(random.Random(seed), rules, plies).position
    if pos.side == UNDECIDED:
        return
    # the face-up terms that are off by default, on
    params = params_with(["confine_weight=0.3", "progress_pressure=0.2"])
    for weights in (DEFAULT_PARAMS, params):
        score = Evaluator(rules, weights).evaluate(Position(pos.board, pos.pool, pos.side))
        for other in (colours_swapped(pos), mirrored(pos, True), mirrored(pos, False)):
            assert Evaluator(rules, weights).evaluate(other) == pytest.approx(score, abs=1e-9)


def test_colour_swap_keeps_the_side_to_moves_view() -> None:
    text = "----/----/----/----/----/-n--/-R--/k--K r 00000000000000"
    pos = parse_position(text)
    assert pos.side == RED and colours_swapped(pos).side == BLACK
    assert Evaluator(OLYMPIAD).evaluate(colours_swapped(pos)) == pytest.approx(evaluate(text))


@pytest.mark.parametrize("preset", sorted(PRESETS))
def test_a_cached_score_is_the_score_computed_afresh(preset: str) -> None:
    rules = PRESETS[preset]
    rng = random.Random(preset)
    evaluator = Evaluator(rules)
    for _ in range(40):
        pos = random_game(rng, rules, rng.randrange(1, 200)).position
        if pos.side == UNDECIDED:
            continue
        first = evaluator.evaluate(pos)
        assert evaluator.evaluate(pos) == first == Evaluator(rules).evaluate(pos)


def test_the_score_cache_tells_pools_apart() -> None:
    # the same board and side with two pools (one face-down piece: a black pawn or a red king)
    board = "X---/----/----/----/----/----/-R--/k---"
    pawn, king = (f"{board} r {pool} 0 0" for pool in ("00000000000001", "10000000000000"))
    evaluator = Evaluator(OLYMPIAD)
    assert evaluator.evaluate(parse_position(pawn)) == evaluate(pawn)
    assert evaluator.evaluate(parse_position(king)) == evaluate(king)
    assert evaluate(pawn) != evaluate(king)


def test_material_keys_tell_counts_apart() -> None:
    rng = random.Random(3)
    seen: dict[int, tuple[int, ...]] = {}
    for _ in range(2000):
        counts = tuple(rng.randrange(full + 1) for full in FULL_POOL)
        assert seen.setdefault(material_key(counts), counts) == counts
    assert material_key(FULL_POOL) < 6**14


# -- parameters ----------------------------------------------------------------------


def test_every_parameter_has_bounds_and_a_description() -> None:
    for name, field in EvalParams.model_fields.items():
        bounds = {type(m).__name__ for m in field.metadata}
        assert {"Ge", "Le"} <= bounds, name
        assert field.description, name
        assert isinstance(getattr(DEFAULT_PARAMS, name), float)


@pytest.mark.parametrize(
    "assignment",
    ["enemy_weight=5", "prey_weight=-0.1", "parity_weight=nan", "progress_window=0", "nope=1"],
)
def test_bad_parameter_values_are_refused(assignment: str) -> None:
    with pytest.raises(ParamsError):
        params_with([assignment])


def test_the_model_refuses_out_of_bounds_values() -> None:
    with pytest.raises(ValidationError):
        EvalParams(trapped_weight=2.0)
    assert params_with(["flip_risk_weight=0.5"]).flip_risk_weight == 0.5


@pytest.mark.parametrize("text", ["nan", "inf", "-inf"])
def test_a_value_that_is_not_finite_is_named_as_such(text: str) -> None:
    with pytest.raises(ParamsError, match=f"'{text}' is not a finite number"):
        params_with([f"safe_factor={text}"])
