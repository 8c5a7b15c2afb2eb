"""Legal-move generation for every rule set.

Moves are ints: ``from << 5 | to``; a flip has from == to (``square * 33``).
Generation works on the bitboards of a ``Position``: each piece's targets are its
neighbour mask ANDed with the empty squares and the enemy kinds it may take;
cannons that jump or slide walk their precomputed rays.
"""

from functools import cache

from .pieces import CANNON, UNDECIDED
from .position import Position
from .rules import RuleSet, step_capture_masks
from .squares import FILE_A, FILE_D, NEIGHBOUR_MASKS, RAYS

_NOT_FILE_A = ~FILE_A & 0xFFFFFFFF
_NOT_FILE_D = ~FILE_D & 0xFFFFFFFF


@cache
def _tables(rules: RuleSet) -> tuple[tuple[tuple[int, ...], ...], bool, bool]:
    """Per attacker kind the target kinds it takes by a step; jumping; sliding."""
    masks = step_capture_masks(rules)
    targets = tuple(tuple(t for t in range(7) if mask >> t & 1) for mask in masks)
    return targets, rules.cannon_capture == "jump", rules.cannon_move == "slide"


def _capturable(pos: Position, kinds: tuple[int, ...], enemy_base: int) -> int:
    bb = pos.bb
    mask = 0
    for t in kinds:
        mask |= bb[enemy_base + t]
    return mask


def _cannon_rays(
    pos: Position,
    square: int,
    enemy: int,
    jump: bool,
    slide: bool,
    captures: list[int],
    quiet: list[int],
) -> None:
    """Append a jumping or sliding cannon's captures and slides along its rays."""
    board_empty = pos.empty
    enemy_bb = pos.colour_bb[enemy]
    base = square << 5
    for ray in RAYS[square]:
        index = 0
        length = len(ray)
        while index < length and board_empty >> ray[index] & 1:
            if slide:
                quiet.append(base | ray[index])
            index += 1
        if not jump:
            continue
        index += 1
        while index < length and board_empty >> ray[index] & 1:
            index += 1
        if index < length and enemy_bb >> ray[index] & 1:
            captures.append(base | ray[index])


def generate_moves(pos: Position, rules: RuleSet) -> list[int]:
    """Every legal action of the side to move: captures, then moves, then flips."""
    captures: list[int] = []
    quiet: list[int] = []
    side = pos.side
    if side != UNDECIDED:
        targets, jump, slide = _tables(rules)
        enemy = side ^ 1
        enemy_base = enemy * 7
        empty = pos.empty
        bb = pos.bb
        for kind in range(7):
            pieces = bb[side * 7 + kind]
            if not pieces:
                continue
            capturable = _capturable(pos, targets[kind], enemy_base)
            special = kind == CANNON and (jump or slide)
            while pieces:
                low = pieces & -pieces
                square = low.bit_length() - 1
                pieces ^= low
                base = square << 5
                near = NEIGHBOUR_MASKS[square]
                hits = near & capturable
                while hits:
                    low = hits & -hits
                    captures.append(base | (low.bit_length() - 1))
                    hits ^= low
                if special:
                    _cannon_rays(pos, square, enemy, jump, slide, captures, quiet)
                    if slide:
                        continue
                steps = near & empty
                while steps:
                    low = steps & -steps
                    quiet.append(base | (low.bit_length() - 1))
                    steps ^= low
    hidden = pos.hidden
    while hidden:
        low = hidden & -hidden
        hidden ^= low
        quiet.append((low.bit_length() - 1) * 33)
    return captures + quiet


def _shift_count(pieces: int, target: int) -> int:
    """Number of (piece, target) pairs one orthogonal step apart."""
    return (
        ((pieces << 4) & target).bit_count()
        + ((pieces >> 4) & target).bit_count()
        + (((pieces & _NOT_FILE_D) << 1) & target).bit_count()
        + (((pieces & _NOT_FILE_A) >> 1) & target).bit_count()
    )


def count_leaves(pos: Position, rules: RuleSet) -> int:
    """perft(pos, 1) without generating: each flip counts once per piece type face down."""
    types = 0
    for count in pos.pool:
        if count:
            types += 1
    total = pos.hidden.bit_count() * types
    side = pos.side
    if side == UNDECIDED:
        return total
    targets, jump, slide = _tables(rules)
    enemy_base = (side ^ 1) * 7
    bb = pos.bb
    walkers = pos.colour_bb[side]
    for kind in range(7):
        pieces = bb[side * 7 + kind]
        if not pieces:
            continue
        if kind == CANNON and (jump or slide):
            if slide:
                walkers ^= pieces
            found: list[int] = []
            while pieces:
                low = pieces & -pieces
                pieces ^= low
                _cannon_rays(pos, low.bit_length() - 1, side ^ 1, jump, slide, found, found)
            total += len(found)
            if not jump:
                capturable = _capturable(pos, targets[kind], enemy_base)
                total += _shift_count(bb[side * 7 + kind], capturable)
            continue
        capturable = _capturable(pos, targets[kind], enemy_base)
        if capturable:
            total += _shift_count(pieces, capturable)
    return total + _shift_count(walkers, pos.empty)


def has_legal_move(pos: Position, rules: RuleSet) -> bool:
    """Whether the side to move has any legal action."""
    if pos.hidden:
        return True
    return count_leaves(pos, rules) > 0
