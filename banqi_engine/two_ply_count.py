"""Perft 2 without making any move (``count_two_ply_leaves``), for every rule set
without moves onto face-down pieces (with them, by making the children).

Counting builds no children: the count is the opponent's move count on the current
board, plus for each move the change that move makes to it (a flip changes one
square's relations; a step or capture changes two squares and the cannon lines
through them), and flips are summed over all face-down squares at once.
"""

from collections.abc import Sequence
from typing import Final

from cython import compiled

from .movegen import Children
from .pieces import Colour, Piece
from .rules import RuleSet
from .squares import NEIGHBOUR_MASKS, NEIGHBOURS, NUM_SQUARES, Bitboard, Square

if not compiled:  # the compiled build cimports these in the .pxd (C calls)
    from .bits import low_square, popcount
    from .movegen import (
        count_leaves_with,
        face_down_types,
        make_child,
        moves_of,
    )
    from .movegen_tables import (
        RuleTables,
        adjacent,
        adjacent_pairs,
        cannon_jumps,
        cannon_reach,
        cannon_slide_count,
        cannon_slides,
        prey_into,
        rule_tables,
        threat_into,
    )
    from .position import BITS, Position

# Everything here runs for every node of perft, so squares and pieces are computed
# with raw arithmetic (``* 7``, ``14``; kind 5 the Cannon; side 2 undecided) rather
# than the helpers of ``squares`` and ``pieces``: function calls and global lookups
# cost measurably in CPython's inner loops.

_NEAR = NEIGHBOUR_MASKS
"""NEIGHBOUR_MASKS (a C array in the compiled build)."""
_CANNONS_MAX: Final = 32
"""Room for the opponent's cannons in ``_step_children`` (two in a game)."""


def _two_steps(square: Square) -> dict[Bitboard, tuple[Bitboard, Bitboard]]:
    """For each set of neighbours of ``square``: the squares next to one of them and
    the squares next to two of them, ``square`` itself left out."""
    table: dict[Bitboard, tuple[Bitboard, Bitboard]] = {}
    near = NEIGHBOURS[square]
    for subset in range(1 << len(near)):
        chosen = [n for i, n in enumerate(near) if subset >> i & 1]
        once = twice = 0
        for neighbour in chosen:
            beyond = NEIGHBOUR_MASKS[neighbour] & ~(1 << square)
            twice |= once & beyond
            once |= beyond
        table[sum(1 << n for n in chosen)] = (once, twice)
    return table


def _neighbour_index(square: Square, squares: Bitboard) -> int:
    """Which of the (up to four) neighbours of ``square`` a subset ``squares`` of them
    holds, as four bits: the one below, left, right, above."""
    window = (squares << 4) >> square & 0x1FF
    return window & 1 | window >> 2 & 2 | window >> 3 & 4 | window >> 5 & 8


def _two_step_tables() -> tuple[list[Bitboard], list[Bitboard]]:
    """``_two_steps`` of every square as two flat tables, by ``square * 16`` plus the
    ``_neighbour_index`` of the set of neighbours."""
    once = [0] * (NUM_SQUARES * 16)
    twice = [0] * (NUM_SQUARES * 16)
    for square in range(NUM_SQUARES):
        for subset, (one, two) in _two_steps(square).items():
            index = square * 16 + _neighbour_index(square, subset)
            once[index] = one
            twice[index] = two
    return once, twice


_TWO_STEPS = _two_step_tables()
_ONCE = _TWO_STEPS[0]
"""Per square and set of its neighbours (``_two_step_tables``), the squares next to one
of them: summing a count over the neighbours in a set is two popcounts."""
_TWICE = _TWO_STEPS[1]
"""As ``_ONCE``, the squares next to two of them."""
del _TWO_STEPS


def count_two_ply_leaves(pos: Position, rules: RuleSet) -> int:
    """perft(pos, 2), without making any move where moves onto face-down pieces are not
    allowed (with them, the children are made and their moves counted)."""
    return two_ply_leaves(pos, rule_tables(rules))


def two_ply_leaves(pos: Position, tables: RuleTables) -> int:
    """``count_two_ply_leaves`` with the rule set's tables already looked up."""
    if tables.onto_hidden and pos.hidden and (pos.side != 2 or pos.colour_bb[0] | pos.colour_bb[1]):
        # (Before the first flip, with nothing face up, the flip's piece is the only one
        # up, the mover's: the other side has nothing to move onto a face-down piece.)
        return _children_leaves(pos, tables)
    return _two_plies(pos, tables)


def _children_leaves(pos: Position, tables: RuleTables) -> int:
    """The sum of ``count_leaves`` over the children of ``pos`` (each made and unmade in
    turn, as ``movegen.children`` does)."""
    kids = Children(pos, tables)
    total = 0
    for i in range(kids.n):
        make_child(pos, tables, kids.moves[i], kids.pieces[i])
        total += count_leaves_with(pos, tables)
        pos.unmake()
    return total


def _two_plies(pos: Position, tables: RuleTables) -> int:
    """``two_ply_leaves`` by counting, without making any move."""
    side = pos.side
    bb = pos.bb
    if not compiled:
        foe_prey = [0] * 7
        threats = [0] * 7
    if side == 2:
        total = 0
        for mover in range(2):
            foe = mover ^ 1
            prey_into(bb, mover * 7, tables, foe_prey)
            foe_moves = moves_of(pos, foe, foe_prey, tables)
            threat_into(bb, foe * 7, tables, threats)
            total += _flip_children(
                pos, tables, mover, foe_moves, foe_prey, threats, mover * 7, mover * 7 + 7
            )
        return total
    foe = side ^ 1
    prey_into(bb, side * 7, tables, foe_prey)
    threat_into(bb, foe * 7, tables, threats)
    foe_moves = moves_of(pos, foe, foe_prey, tables)
    total = _step_children(pos, tables, foe_moves, foe_prey, threats)
    if pos.hidden:
        total += _flip_children(pos, tables, side, foe_moves, foe_prey, threats, 0, 14)
    return total


def _jump_pairs(sources: Bitboard, targets: Bitboard, occupied: Bitboard) -> int:
    """Number of (source, target) pairs a jump apart, sources and targets occupied.

    The relation is symmetric: the loop runs over the smaller of the two sets.
    """
    if popcount(sources) > popcount(targets):
        sources, targets = targets, sources
    total = 0
    while sources:
        square = low_square(sources)
        sources &= sources - 1
        total += popcount(cannon_jumps(square, occupied) & targets)
    return total


def _flip_children(
    pos: Position,
    tables: RuleTables,
    mover: Colour,
    foe_moves: int,
    foe_prey: Sequence[Bitboard],
    threats: Sequence[Bitboard],
    first: Piece,
    last: Piece,
) -> int:
    """Leaves two plies down through ``mover`` flipping a face-down square to a piece
    code from ``first`` to ``last - 1``.

    A flip leaves the occupancy as it is, so the opponent's count in a child is its
    flips, ``foe_moves``, and what the revealed piece adds: its own moves if it is
    the opponent's (``foe_prey`` per kind), or the opponent's captures of it if it is
    the mover's (``threats`` per kind, and jumping cannons).
    """
    jump = tables.jump
    pool = pos.pool
    hidden = pos.hidden
    empty = pos.empty
    total = kinds = single = 0
    walks = jumped = -1
    for piece in range(first, last):
        if not pool[piece]:
            continue
        kinds += 1
        if pool[piece] == 1:
            single += 1
        kind = piece % 7
        if piece // 7 == mover:
            if threats[kind]:
                total += adjacent_pairs(hidden, threats[kind])
            if jump:
                if jumped < 0:
                    jumped = _jump_pairs(pos.bb[(mover ^ 1) * 7 + 5], hidden, ~empty)
                total += jumped
            continue
        if foe_prey[kind]:
            total += adjacent_pairs(hidden, foe_prey[kind])
        if kind == 5 and (jump or tables.slide):
            if jump:
                total += _jump_pairs(hidden, pos.colour_bb[mover], ~empty)
            if tables.slide:
                rest = hidden
                while rest:
                    total += cannon_slide_count(low_square(rest), ~empty)
                    rest &= rest - 1
                continue
        if walks < 0:
            walks = adjacent_pairs(hidden, empty)
        total += walks
    count = popcount(hidden)
    types = face_down_types(pos)
    return total + count * ((count - 1) * (kinds * types - single) + kinds * foe_moves)


_FAR_PIECES_CHECK = 4
"""From this many pieces on, ``_step_children`` first sets aside those far from the
opponent; with fewer, looking for them costs more than it saves."""


def _step_children(
    pos: Position,
    tables: RuleTables,
    foe_moves: int,
    foe_prey: Sequence[Bitboard],
    threats: Sequence[Bitboard],
) -> int:
    """Leaves two plies down through the moves and captures of the side to move.

    The opponent's count in a child is ``foe_moves`` plus a local change: squares
    next to the source gain an empty square and lose a target, squares next to the
    destination the opposite, a captured piece's own moves go, and every opponent
    cannon whose reach holds either square is counted again. A piece three steps or
    more from every opponent piece changes nothing but the cannons' counts.
    """
    # The loop over the pieces stays whole, though it makes the function long: it runs
    # for every node of perft, and moving its parts into functions (a call per piece
    # and per capture) cost 2-7% of ``banqi bench perft`` speed on the positions with
    # several pieces. Its parts, in order: a piece's targets (a cannon's from its
    # lines); the change of its quiet moves around the source, around each destination
    # (the two-step table, or one by one for a sliding cannon) and in the opponent
    # cannons' lines; then each capture's change around both squares, the taken
    # piece's own moves gone, and in the cannons' lines. The opponent cannons (their
    # squares, move counts and reaches, in three arrays) and the far pieces are set up
    # first.
    jump = tables.jump
    slide = tables.slide
    board = pos.board
    empty = pos.empty
    side = pos.side
    own = side * 7
    own_bb = pos.colour_bb[side]
    foe_bb = pos.colour_bb[side ^ 1]
    own_cannons = pos.bb[own + 5] if jump or slide else 0
    foe_cannons = pos.bb[(side ^ 1) * 7 + 5] if jump or slide else 0
    if not compiled:
        squares = [0] * _CANNONS_MAX
        befores = [0] * _CANNONS_MAX
        reaches = [0] * _CANNONS_MAX
        prey = [0] * 7
    cannons = 0
    lines = 0
    walkers = foe_bb
    if foe_cannons:
        rest = foe_cannons
        while rest:
            square = low_square(rest)
            rest &= rest - 1
            reach = cannon_reach(square, ~empty)
            before = 0
            if jump:
                before += popcount(cannon_jumps(square, ~empty) & own_bb)
            if slide:
                before += cannon_slide_count(square, ~empty)
            squares[cannons] = square
            befores[cannons] = before
            reaches[cannons] = reach
            cannons += 1
            lines |= reach | BITS[square]
        if slide:
            walkers = foe_bb ^ foe_cannons
    moves = change = 0
    pieces = own_bb
    if popcount(pieces) >= _FAR_PIECES_CHECK:
        zone = adjacent(foe_bb)
        far = pieces & ~own_cannons & ~(zone | adjacent(zone))
        if far:
            pieces ^= far
            moves = adjacent_pairs(far, empty)
            if lines:
                change = _far_change(
                    far, squares, befores, reaches, cannons, lines, empty, own_bb, tables
                )
    enemy = (side ^ 1) * 7
    if pieces:
        prey_into(pos.bb, enemy, tables, prey)
    while pieces:
        frm_bit = pieces & -pieces
        pieces ^= frm_bit
        frm = low_square(frm_bit)
        kind = board[frm] - own
        chasers = threats[kind]
        around = _NEAR[frm]
        here = popcount(around & walkers) - popcount(around & chasers)
        hits = around & prey[kind]
        steps = around & empty
        slider = False
        if frm_bit & own_cannons:
            if jump:
                hits |= cannon_jumps(frm, ~empty) & foe_bb
            if slide:
                steps = cannon_slides(frm, ~empty)
                slider = True
        if steps:
            count = popcount(steps)
            moves += count
            change += count * here
            if slider:
                rest = steps
                while rest:
                    there = _NEAR[low_square(rest)]
                    rest &= rest - 1
                    change += popcount(there & chasers) - popcount(there & walkers)
            else:
                index = frm * 16 + _neighbour_index(frm, steps)
                once = _ONCE[index]
                twice = _TWICE[index]
                change += (
                    popcount(once & chasers)
                    + popcount(twice & chasers)
                    - popcount(once & walkers)
                    - popcount(twice & walkers)
                )
            if lines & (frm_bit | steps):
                change += _cannons_quiet_change(
                    squares, befores, reaches, cannons, frm_bit, steps, empty, own_bb, tables
                )
        while hits:
            to_bit = hits & -hits
            hits ^= to_bit
            moves += 1
            to = low_square(to_bit)
            there = _NEAR[to]
            gone = ~to_bit
            change += (
                popcount(around & walkers & gone)
                - popcount(around & chasers & gone)
                + popcount(there & chasers)
                - popcount(there & foe_prey[board[to] - enemy])
            )
            if walkers & to_bit:
                change -= popcount(there & empty)
            if lines & (frm_bit | to_bit):
                change += _cannons_capture_change(
                    squares, befores, reaches, cannons, frm_bit, to, empty, own_bb, tables
                )
    return moves * (popcount(pos.hidden) * face_down_types(pos) + foe_moves) + change


def _far_change(
    far: Bitboard,
    squares: Sequence[Square],
    befores: Sequence[int],
    reaches: Sequence[Bitboard],
    cannons: int,
    lines: Bitboard,
    empty: Bitboard,
    own_bb: Bitboard,
    tables: RuleTables,
) -> int:
    """The change the moves of the ``far`` pieces make, which only step to empty
    squares: only the opponent cannons' (see ``_step_children``)."""
    change = 0
    far &= lines | adjacent(empty & lines)
    while far:
        frm_bit = far & -far
        far ^= frm_bit
        steps = _NEAR[low_square(frm_bit)] & empty
        change += _cannons_quiet_change(
            squares, befores, reaches, cannons, frm_bit, steps, empty, own_bb, tables
        )
    return change


def _cannons_quiet_change(
    squares: Sequence[Square],
    befores: Sequence[int],
    reaches: Sequence[Bitboard],
    cannons: int,
    frm_bit: Bitboard,
    steps: Bitboard,
    empty: Bitboard,
    own_bb: Bitboard,
    tables: RuleTables,
) -> int:
    """How the moves of the opponent cannons (the first ``cannons`` of ``squares``, with
    their move counts ``befores`` and ``reaches``) change, summed over the moves of the
    piece on ``frm_bit`` to the empty squares ``steps``."""
    jump = tables.jump
    slide = tables.slide
    change = 0
    left = ~(empty ^ frm_bit)
    targets = own_bb ^ frm_bit
    for i in range(cannons):
        square = squares[i]
        moved = steps if reaches[i] & frm_bit else steps & reaches[i]
        if not moved:
            continue
        change -= befores[i] * popcount(moved)
        while moved:
            to_bit = moved & -moved
            moved ^= to_bit
            if jump:
                change += popcount(cannon_jumps(square, left ^ to_bit) & (targets ^ to_bit))
            if slide:
                change += cannon_slide_count(square, left ^ to_bit)
    return change


def _cannons_capture_change(
    squares: Sequence[Square],
    befores: Sequence[int],
    reaches: Sequence[Bitboard],
    cannons: int,
    frm_bit: Bitboard,
    to: Square,
    empty: Bitboard,
    own_bb: Bitboard,
    tables: RuleTables,
) -> int:
    """How the moves of the opponent cannons (as in ``_cannons_quiet_change``) change
    when the piece on ``frm_bit`` takes ``to``."""
    to_bit = BITS[to]
    change = 0
    for i in range(cannons):
        square = squares[i]
        if square == to:
            change -= befores[i]
        elif reaches[i] & (frm_bit | to_bit):
            left = ~(empty ^ frm_bit)
            if tables.jump:
                change += popcount(cannon_jumps(square, left) & (own_bb ^ frm_bit ^ to_bit))
            if tables.slide:
                change += cannon_slide_count(square, left)
            change -= befores[i]
    return change
