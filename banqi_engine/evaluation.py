"""Piece values (one table for every player) and the search's static evaluation.

The evaluation is from the side to move's view. Material counts every piece a
colour still owns, face up or face down (the pool says how many of each kind are
still hidden), at a value that depends on the rule set and on what is left: a
piece's base value (``base_values``) comes from its place in the capture order (a
jumping cannon gets a fixed high value since it reaches any order); a King loses
value while enemy Pawns remain, Pawns gain value while the enemy King lives, and a
piece that nothing left can capture is worth more. Face-up pieces add a small
mobility term, and later in the game each is drawn towards the nearest enemy it can
take by a step and that cannot take it back.
"""

from typing import Final

from .eval_params import DEFAULT_PARAMS, EvalParams
from .pieces import (
    BLACK,
    CANNON,
    COLOURS,
    KIND_LETTERS,
    KING,
    NUM_KINDS,
    NUM_PIECES,
    PAWN,
    RED,
    Piece,
    colour_of,
    kind_of,
    make_piece,
    opponent,
)
from .position import Position
from .rules import RuleSet, step_capture_masks
from .squares import ALL_SQUARES, FILE_A, FILE_D, NUM_SQUARES, Bitboard, square_distance

ORDER_VALUES: Final = (64.0, 32.0, 16.0, 8.0, 4.0, 3.0, 2.0)
"""Base material value by place in the capture order, highest first: each place is
worth twice the next, as every higher order preys on a piece."""
CHASE_MAX_HIDDEN: Final = 10
"""The chase term counts once at most this many pieces are face down."""
PROGRESS_WINDOW: Final = 30
"""Over the last plies before the no-progress draw, the evaluation fades to 0."""

_NOT_FILE_A: Final = ALL_SQUARES & ~FILE_A
_NOT_FILE_D: Final = ALL_SQUARES & ~FILE_D
CHASE_RANGE: Final = 6
"""Targets farther than this many steps do not count."""
_RINGS: Final = tuple(
    tuple(
        sum(1 << b for b in range(NUM_SQUARES) if square_distance(a, b) == d)
        for d in range(1, CHASE_RANGE + 1)
    )
    for a in range(NUM_SQUARES)
)
"""For each square, the squares 1, 2, ... CHASE_RANGE steps away."""


def base_values(rules: RuleSet, params: EvalParams = DEFAULT_PARAMS) -> tuple[float, ...]:
    """Base value of each kind K G M R N C P under a rule set."""
    values = [ORDER_VALUES[rules.capture_order.index(letter)] for letter in KIND_LETTERS]
    if rules.cannon_capture == "jump":
        values[CANNON] = params.jumping_cannon_value
    return tuple(values)


def prey_masks(rules: RuleSet) -> tuple[int, ...]:
    """For each kind, the mask (bit per kind) of enemy kinds it can capture in some way."""
    masks = list(step_capture_masks(rules))
    if rules.cannon_capture == "jump":
        masks[CANNON] = (1 << NUM_KINDS) - 1
    return tuple(masks)


def _step_pairs(pieces: Bitboard, targets: Bitboard) -> int:
    """Number of (piece, target) pairs one orthogonal step apart."""
    # A rank step is a shift by 4 (NUM_FILES) written as a literal: this runs twice per
    # evaluation, where two global lookups measurably cost (about 4%).
    return (
        ((pieces << 4) & targets).bit_count()
        + ((pieces >> 4) & targets).bit_count()
        + (((pieces & _NOT_FILE_D) << 1) & targets).bit_count()
        + (((pieces & _NOT_FILE_A) >> 1) & targets).bit_count()
    )


class Evaluator:
    """Evaluates positions under one rule set."""

    def __init__(self, rules: RuleSet, params: EvalParams = DEFAULT_PARAMS) -> None:
        self.params = params
        self.base = base_values(rules, params)
        prey = prey_masks(rules)
        self.predators = tuple(
            sum(1 << j for j in range(NUM_KINDS) if prey[j] >> k & 1) for k in range(NUM_KINDS)
        )
        step_prey = step_capture_masks(rules)
        chase_kinds = [
            [t for t in range(NUM_KINDS) if step_prey[k] >> t & 1 and not step_prey[t] >> k & 1]
            for k in range(NUM_KINDS)
        ]
        self.chasers: tuple[tuple[tuple[Piece, tuple[Piece, ...]], ...], ...] = tuple(
            tuple(
                (make_piece(colour, kind), tuple(make_piece(opponent(colour), t) for t in targets))
                for kind, targets in enumerate(chase_kinds)
                if targets
            )
            for colour in COLOURS
        )
        """Per colour, each piece that chases something with the enemy pieces it chases:
        those it takes by a step and that cannot take it back."""
        self._material: dict[tuple[int, ...], float] = {}
        self.mobility_weight = params.mobility_weight
        self.chase_weight = params.chase_weight
        self.limit = rules.no_progress_limit
        self.window = max(1, min(PROGRESS_WINDOW, self.limit // 2))

    def kind_values(self, counts: tuple[int, ...]) -> tuple[list[float], list[float]]:
        """Value of each kind for red and for black, given how many of each piece are left."""
        present = [0, 0]
        for piece in range(NUM_PIECES):
            if counts[piece]:
                present[colour_of(piece)] |= 1 << kind_of(piece)
        result: list[list[float]] = []
        for colour in COLOURS:
            enemy = opponent(colour)
            own_pawns = counts[make_piece(colour, PAWN)]
            values = list(self.base)
            params = self.params
            values[KING] *= 1.0 - params.king_pawn_discount * counts[make_piece(enemy, PAWN)]
            if counts[make_piece(enemy, KING)] and own_pawns:
                values[PAWN] += params.pawn_king_bonus / own_pawns
            for kind in range(NUM_KINDS):
                if not self.predators[kind] & present[enemy]:
                    values[kind] *= params.safe_factor
            result.append(values)
        return result[RED], result[BLACK]

    def material(self, counts: tuple[int, ...]) -> float:
        """Red's material minus black's, given how many of each piece are left (cached)."""
        score = self._material.get(counts)
        if score is None:
            red, black = self.kind_values(counts)
            score = sum(
                counts[make_piece(RED, k)] * red[k] - counts[make_piece(BLACK, k)] * black[k]
                for k in range(NUM_KINDS)
            )
            self._material[counts] = score
        return score

    def evaluate(self, pos: Position) -> float:
        """Score for the side to move (positive is good for it)."""
        bb = pos.bb
        pool = pos.pool
        score = self.material(
            tuple([bb[piece].bit_count() + pool[piece] for piece in range(NUM_PIECES)])
        )
        empty = pos.empty
        colour_bb = pos.colour_bb
        score += self.mobility_weight * (
            _step_pairs(colour_bb[RED], empty) - _step_pairs(colour_bb[BLACK], empty)
        )
        if pos.hidden.bit_count() <= CHASE_MAX_HIDDEN:
            score += self._chase(bb)
        if pos.side == BLACK:
            score = -score
        remaining = self.limit - pos.no_progress
        if remaining < self.window:
            score *= remaining / self.window
        return score

    def _chase(self, bb: list[Bitboard]) -> float:
        """Reward pieces for standing near enemies they take and that cannot take them back."""
        score = 0.0
        for colour, chasers in zip(COLOURS, self.chasers, strict=True):
            total = 0
            for piece, target_pieces in chasers:
                pieces = bb[piece]
                if not pieces:
                    continue
                targets = 0
                for target in target_pieces:
                    targets |= bb[target]
                if not targets:
                    continue
                while pieces:
                    low = pieces & -pieces
                    pieces ^= low
                    for distance, ring in enumerate(_RINGS[low.bit_length() - 1]):
                        if ring & targets:
                            total += CHASE_RANGE - distance
                            break
            score += total if colour == RED else -total
        return self.chase_weight * score
