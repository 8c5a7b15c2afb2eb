"""Static evaluation of a position for the search, from the side to move's view.

Material counts every piece a colour still owns, face up or face down (the pool
says how many of each kind are still hidden), at a value that depends on the rule
set and on what is left: a piece's base value comes from its place in the capture
order (a jumping cannon gets a fixed high value since it reaches any order); a
King loses value while enemy Pawns remain, Pawns gain value while the enemy King
lives, and a piece that nothing left can capture is worth more. Face-up pieces add a small
mobility term, and later in the game each is drawn towards the nearest enemy it can take by a step
and that cannot take it back.
"""

from typing import Final

from .pieces import CANNON, KIND_LETTERS, KING, PAWN
from .position import Position
from .rules import RuleSet, step_capture_masks
from .squares import FILE_A, FILE_D, NUM_SQUARES

ORDER_VALUES: Final = (64.0, 32.0, 16.0, 8.0, 4.0, 3.0, 2.0)
"""Base material value by place in the capture order, highest first: each place is
worth twice the next, as every higher order preys on a piece."""
JUMPING_CANNON_VALUE: Final = 24.0
"""A cannon that captures by jumping reaches any order from afar."""
KING_PAWN_DISCOUNT: Final = 0.08
"""Fraction of the King's value lost per enemy Pawn still alive."""
PAWN_KING_BONUS: Final = 6.0
"""Value shared by a colour's Pawns while the enemy King lives."""
SAFE_FACTOR: Final = 1.2
MOBILITY_WEIGHT: Final = 0.15
CHASE_WEIGHT: Final = 0.3
CHASE_MAX_HIDDEN: Final = 10
"""The chase term counts once at most this many pieces are face down."""
PROGRESS_WINDOW: Final = 30
"""Over the last plies before the no-progress draw, the evaluation fades to 0."""

_NOT_FILE_A: Final = ~FILE_A & 0xFFFFFFFF
_NOT_FILE_D: Final = ~FILE_D & 0xFFFFFFFF
CHASE_RANGE: Final = 6
"""Targets farther than this many steps do not count."""
_RINGS: Final = tuple(
    tuple(
        sum(
            1 << b
            for b in range(NUM_SQUARES)
            if abs((a >> 2) - (b >> 2)) + abs((a & 3) - (b & 3)) == d
        )
        for d in range(1, CHASE_RANGE + 1)
    )
    for a in range(NUM_SQUARES)
)
"""For each square, the squares 1, 2, ... CHASE_RANGE steps away."""


def base_values(rules: RuleSet) -> tuple[float, ...]:
    """Base value of each kind K G M R N C P under a rule set."""
    values = [ORDER_VALUES[rules.capture_order.index(letter)] for letter in KIND_LETTERS]
    if rules.cannon_capture == "jump":
        values[CANNON] = JUMPING_CANNON_VALUE
    return tuple(values)


def prey_masks(rules: RuleSet) -> tuple[int, ...]:
    """For each kind, the 7-bit mask of enemy kinds it can capture in some way."""
    masks = list(step_capture_masks(rules))
    if rules.cannon_capture == "jump":
        masks[CANNON] = 0x7F
    return tuple(masks)


def _step_pairs(pieces: int, targets: int) -> int:
    """Number of (piece, target) pairs one orthogonal step apart."""
    return (
        ((pieces << 4) & targets).bit_count()
        + ((pieces >> 4) & targets).bit_count()
        + (((pieces & _NOT_FILE_D) << 1) & targets).bit_count()
        + (((pieces & _NOT_FILE_A) >> 1) & targets).bit_count()
    )


class Evaluator:
    """Evaluates positions under one rule set."""

    def __init__(self, rules: RuleSet) -> None:
        self.base = base_values(rules)
        self.prey = prey_masks(rules)
        self.predators = tuple(
            sum(1 << j for j in range(7) if self.prey[j] >> k & 1) for k in range(7)
        )
        step_prey = step_capture_masks(rules)
        self.chase_targets = tuple(
            tuple(t for t in range(7) if step_prey[k] >> t & 1 and not step_prey[t] >> k & 1)
            for k in range(7)
        )
        self._material: dict[tuple[int, ...], float] = {}
        self.limit = rules.no_progress_limit
        self.window = max(1, min(PROGRESS_WINDOW, self.limit // 2))

    def kind_values(self, counts: tuple[int, ...]) -> tuple[list[float], list[float]]:
        """Value of each kind for red and for black, given how many of each piece are left."""
        present = [0, 0]
        for code in range(14):
            if counts[code]:
                present[code // 7] |= 1 << (code % 7)
        result: list[list[float]] = []
        for colour in (0, 1):
            own = colour * 7
            enemy = 7 - own
            enemy_present = present[colour ^ 1]
            values = list(self.base)
            values[KING] *= 1.0 - KING_PAWN_DISCOUNT * counts[enemy + PAWN]
            if counts[enemy + KING] and counts[own + PAWN]:
                values[PAWN] += PAWN_KING_BONUS / counts[own + PAWN]
            for kind in range(7):
                if not self.predators[kind] & enemy_present:
                    values[kind] *= SAFE_FACTOR
            result.append(values)
        return result[0], result[1]

    def material(self, counts: tuple[int, ...]) -> float:
        """Red's material minus black's, given how many of each piece are left (cached)."""
        score = self._material.get(counts)
        if score is None:
            red, black = self.kind_values(counts)
            score = sum(counts[k] * red[k] - counts[k + 7] * black[k] for k in range(7))
            self._material[counts] = score
        return score

    def evaluate(self, pos: Position) -> float:
        """Score for the side to move (positive is good for it)."""
        bb = pos.bb
        pool = pos.pool
        score = self.material(tuple([bb[code].bit_count() + pool[code] for code in range(14)]))
        empty = pos.empty
        colour_bb = pos.colour_bb
        score += MOBILITY_WEIGHT * (
            _step_pairs(colour_bb[0], empty) - _step_pairs(colour_bb[1], empty)
        )
        if pos.hidden.bit_count() <= CHASE_MAX_HIDDEN:
            score += self._chase(bb)
        if pos.side == 1:
            score = -score
        remaining = self.limit - pos.no_progress
        if remaining < self.window:
            score *= remaining / self.window
        return score

    def _chase(self, bb: list[int]) -> float:
        """Reward pieces for standing near enemies they take and that cannot take them back."""
        score = 0.0
        chase_targets = self.chase_targets
        for colour in (0, 1):
            own = colour * 7
            enemy = 7 - own
            total = 0
            for kind in range(7):
                pieces = bb[own + kind]
                if not pieces:
                    continue
                targets = 0
                for target in chase_targets[kind]:
                    targets |= bb[enemy + target]
                if not targets:
                    continue
                while pieces:
                    low = pieces & -pieces
                    pieces ^= low
                    for distance, ring in enumerate(_RINGS[low.bit_length() - 1]):
                        if ring & targets:
                            total += CHASE_RANGE - distance
                            break
            score += total if colour == 0 else -total
        return CHASE_WEIGHT * score
