"""Threats on face-up pieces for the evaluation: hanging, under-protected and trapped pieces.

A piece is threatened when an enemy that can take it stands next to it (or, with
jumping cannons, an enemy cannon hits it over one screen) and taking it would win
material: it is not protected (no own piece could take the attacker back on its
square), or the cheapest attacker is worth less than it. The side to move can cash
its best threat; the opponent's best threat only costs the side to move a tempo,
unless the threatened piece is trapped: no empty neighbour out of the enemy's reach.
"""

from .movegen_tables import RuleTables, adjacent, cannon_lines, prey_masks, threat_masks
from .pieces import CANNON
from .position import Position
from .squares import ALL_SQUARES, FILE_A, FILE_D, NEIGHBOUR_MASKS, Bitboard

_NOT_FILE_A = ALL_SQUARES & ~FILE_A
_NOT_FILE_D = ALL_SQUARES & ~FILE_D
_NO_ATTACKER = float("inf")

# Runs at every leaf of the search: squares and pieces use raw arithmetic (``* 7``).


def cannon_hits(bb: list[Bitboard], colour: int, occupied: Bitboard) -> Bitboard:
    """Squares the jumping cannons of ``colour`` land on over exactly one screen."""
    hits = 0
    cannons = bb[colour * 7 + CANNON]
    while cannons:
        low = cannons & -cannons
        cannons ^= low
        hits |= cannon_lines(low.bit_length() - 1, occupied)[0]
    return hits


def threat_terms(
    pos: Position,
    tables: RuleTables,
    step_prey: tuple[int, ...],
    values: tuple[list[float], list[float]],
) -> tuple[float, float, float]:
    """For the side to move: the best gain it threatens, the best gain the opponent
    threatens, and the gains of its own threatened pieces that have no safe square.

    ``step_prey``: per kind, the mask (bit per kind) of the kinds it takes by a step.
    """
    bb = pos.bb
    colour_bb = pos.colour_bb
    red, black = colour_bb
    red_hits = black_hits = 0
    if tables.jump and (bb[CANNON] or bb[7 + CANNON]):
        occupied = ~pos.empty
        red_hits = cannon_hits(bb, 0, occupied)
        black_hits = cannon_hits(bb, 1, occupied)
    near_red = (red << 4 | red >> 4 | (red & _NOT_FILE_D) << 1 | (red & _NOT_FILE_A) >> 1) & black
    near_black = (
        black << 4 | black >> 4 | (black & _NOT_FILE_D) << 1 | (black & _NOT_FILE_A) >> 1
    ) & red
    if not (near_red or red_hits & black or near_black or black_hits & red):
        return 0.0, 0.0, 0.0
    hits = (red_hits, black_hits)
    contacts = (near_black | black_hits & red, near_red | red_hits & black)
    board = pos.board
    side = pos.side
    result = [0.0, 0.0]
    trapped = 0.0
    for defender in (side ^ 1, side):
        contact = contacts[defender]
        if not contact:
            continue
        attacker = defender ^ 1
        att_bb = colour_bb[attacker]
        def_bb = colour_bb[defender]
        att_hits = hits[attacker]
        att_values = values[attacker]
        def_values = values[defender]
        att_base = attacker * 7
        def_base = defender * 7
        best = 0.0
        while contact:
            low = contact & -contact
            contact ^= low
            square = low.bit_length() - 1
            near = NEIGHBOUR_MASKS[square]
            kind = board[square] - def_base
            value = def_values[kind]
            cheapest = _NO_ATTACKER
            cheapest_kind = -1
            if low & att_hits:
                cheapest = att_values[CANNON]
                cheapest_kind = CANNON
            enemies = near & att_bb
            while enemies:
                one = enemies & -enemies
                enemies ^= one
                other = board[one.bit_length() - 1] - att_base
                if step_prey[other] >> kind & 1 and att_values[other] < cheapest:
                    cheapest = att_values[other]
                    cheapest_kind = other
            if cheapest_kind < 0:
                continue
            gain = value
            if low & hits[defender]:
                gain -= cheapest
            else:
                friends = near & def_bb
                while friends:
                    one = friends & -friends
                    friends ^= one
                    if step_prey[board[one.bit_length() - 1] - def_base] >> cheapest_kind & 1:
                        gain -= cheapest
                        break
            if gain <= 0:
                continue
            if gain > best:
                best = gain
            if defender == side and _trapped(pos, tables, square, kind, att_hits):
                trapped += gain
        result[defender] = best
    return result[side ^ 1], result[side], trapped


def _trapped(pos: Position, tables: RuleTables, square: int, kind: int, hits: Bitboard) -> bool:
    """Whether the piece on ``square`` has no empty neighbour out of the enemy's reach
    (``hits``: the enemy cannons' jump squares) and no enemy neighbour to take."""
    bb = pos.bb
    near = NEIGHBOUR_MASKS[square]
    enemy = (pos.side ^ 1) * 7
    if near & prey_masks(bb, enemy, tables)[kind]:
        return False
    steppers = threat_masks(bb, enemy, tables)[kind]
    return not near & pos.empty & ~(adjacent(steppers) | hits)
