"""Threats on face-up pieces for the evaluation: hanging, under-protected, trapped and
confined pieces.

A piece is threatened when an enemy that can take it stands next to it (or, with
jumping cannons, an enemy cannon hits it over one screen) and taking it would win
material: it is not protected (no own piece could take the attacker back on its
square), or the cheapest attacker is worth less than it. The side to move can cash
its best threat; the opponent's best threat only costs the side to move a tempo,
unless the threatened piece is trapped: no empty neighbour out of the enemy's reach.
A piece that a face-up enemy can take by a step is confined when few of its empty
neighbours are out of reach of such enemies (and of enemy cannons' jumps): in the
open endgame such a piece is the one a chase catches, while a piece that nothing on
the board can take, or one with room to run, is not.

In the compiled build these are C functions (``evaluation_tactics.pxd``) that the
evaluation cimports; the pure build calls them as Python functions.
"""

from cython import compiled

from .pieces import CANNON
from .squares import ALL_SQUARES, FILE_A, FILE_D, NEIGHBOUR_MASKS, Bitboard

if not compiled:  # the compiled build cimports these in the .pxd (C calls)
    from .bits import low_square, popcount
    from .movegen_tables import RuleTables, adjacent, cannon_jumps, prey_into, threat_into
    from .position import Position

# Module-level numbers the hot code reads (C variables in the compiled build):
_NOT_FILE_A = ALL_SQUARES & ~FILE_A
_NOT_FILE_D = ALL_SQUARES & ~FILE_D
_CANNON = CANNON
_ALL_SQUARES = ALL_SQUARES
_NEIGHBOURS = list(NEIGHBOUR_MASKS)
"""NEIGHBOUR_MASKS (a C array in the compiled build)."""
_NO_ATTACKER = float("inf")
_CONFINED = [1.0, 0.5, 0.1875, 0.0625, 0.0]
"""Share of a hunted piece's value its confinement costs, by its safe empty neighbours
(0, 1, 2, 3, 4; a C array in the compiled build)."""

# Runs at every leaf of the search: squares and pieces use raw arithmetic (``* 7``).


def cannon_hits(bb: list[Bitboard], colour: int, occupied: Bitboard) -> Bitboard:
    """Squares the jumping cannons of ``colour`` land on over exactly one screen."""
    hits = 0
    cannons = bb[colour * 7 + _CANNON]
    while cannons:
        hits |= cannon_jumps(low_square(cannons), occupied)
        cannons &= cannons - 1
    return hits


def threat_terms(
    pos: Position,
    tables: RuleTables,
    step_prey: list[int],
    values: list[float],
) -> tuple[float, float, float]:
    """For the side to move: the best gain it threatens, the best gain the opponent
    threatens, and the gains of its own threatened pieces that have no safe square.

    ``step_prey``: per kind, the mask (bit per kind) of the kinds it takes by a step;
    ``values``: the value of each piece code (red's kinds, then black's).
    """
    bb = pos.bb
    colour_bb = pos.colour_bb
    red = colour_bb[0]
    black = colour_bb[1]
    red_hits = black_hits = 0
    if tables.jump and (bb[_CANNON] or bb[7 + _CANNON]):
        occupied = _ALL_SQUARES & ~pos.empty
        red_hits = cannon_hits(bb, 0, occupied)
        black_hits = cannon_hits(bb, 1, occupied)
    near_red = (red << 4 | red >> 4 | (red & _NOT_FILE_D) << 1 | (red & _NOT_FILE_A) >> 1) & black
    near_black = (
        black << 4 | black >> 4 | (black & _NOT_FILE_D) << 1 | (black & _NOT_FILE_A) >> 1
    ) & red
    if not (near_red or red_hits & black or near_black or black_hits & red):
        return 0.0, 0.0, 0.0
    board = pos.board
    side = pos.side
    ours = theirs = 0.0
    trapped = 0.0
    for turn in range(2):
        defender = side ^ 1 ^ turn  # the side to move's threats first
        if defender:
            contact = near_red | red_hits & black
            att_hits = red_hits
            def_hits = black_hits
        else:
            contact = near_black | black_hits & red
            att_hits = black_hits
            def_hits = red_hits
        if not contact:
            continue
        attacker = defender ^ 1
        att_bb = colour_bb[attacker]
        def_bb = colour_bb[defender]
        att_base = attacker * 7
        def_base = defender * 7
        best = 0.0
        while contact:
            square = low_square(contact)
            low = contact & -contact
            contact ^= low
            near = _NEIGHBOURS[square]
            kind = board[square] - def_base
            value = values[def_base + kind]
            cheapest = _NO_ATTACKER
            cheapest_kind = -1
            if low & att_hits:
                cheapest = values[att_base + _CANNON]
                cheapest_kind = _CANNON
            enemies = near & att_bb
            while enemies:
                other = board[low_square(enemies)] - att_base
                enemies &= enemies - 1
                if step_prey[other] >> kind & 1 and values[att_base + other] < cheapest:
                    cheapest = values[att_base + other]
                    cheapest_kind = other
            if cheapest_kind < 0:
                continue
            gain = value
            if low & def_hits:
                gain -= cheapest
            else:
                friends = near & def_bb
                while friends:
                    friend = board[low_square(friends)] - def_base
                    friends &= friends - 1
                    if step_prey[friend] >> cheapest_kind & 1:
                        gain -= cheapest
                        break
            if gain <= 0:
                continue
            if gain > best:
                best = gain
            if defender == side and _trapped(pos, tables, square, kind, att_hits):
                trapped += gain
        if defender == side:
            theirs = best
        else:
            ours = best
    return ours, theirs, trapped


def _trapped(pos: Position, tables: RuleTables, square: int, kind: int, hits: Bitboard) -> bool:
    """Whether the piece on ``square`` has no empty neighbour out of the enemy's reach
    (``hits``: the enemy cannons' jump squares) and no enemy neighbour to take."""
    near = _NEIGHBOURS[square]
    enemy = (pos.side ^ 1) * 7
    masks = [0] * 7  # a C array in the compiled build
    prey_into(pos.bb, enemy, tables, masks)
    if near & masks[kind]:
        return False
    threat_into(pos.bb, enemy, tables, masks)
    return not near & pos.empty & ~(adjacent(masks[kind]) | hits)


def confinement(pos: Position, tables: RuleTables, values: list[float]) -> float:
    """Black's confinement less red's, a score for red. A side's confinement sums, over its
    face-up pieces that an enemy face-up piece can take by a step, the piece's value times
    the share ``_CONFINED`` gives its count of safe empty neighbours (``values``: the value
    of each piece code, red's kinds, then black's)."""
    bb = pos.bb
    empty = pos.empty
    occupied = _ALL_SQUARES & ~empty
    masks = [0] * 7  # a C array in the compiled build
    total = 0.0
    for colour in range(2):
        enemy = colour ^ 1
        threat_into(bb, enemy * 7, tables, masks)
        hits = 0
        if tables.jump and bb[enemy * 7 + _CANNON]:
            hits = cannon_hits(bb, enemy, occupied)
        own = colour * 7
        penalty = 0.0
        for kind in range(7):
            pieces = bb[own + kind]
            if not pieces or not masks[kind]:
                continue
            safe = empty & ~(adjacent(masks[kind]) | hits)
            value = values[own + kind]
            while pieces:
                square = low_square(pieces)
                pieces &= pieces - 1
                escapes = popcount(_NEIGHBOURS[square] & safe)
                if escapes < 4:
                    penalty += value * _CONFINED[escapes]
        total += penalty if colour else -penalty
    return total
