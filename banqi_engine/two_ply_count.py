"""Perft 2 without making any move (``count_two_ply_leaves``), for every rule set
without moves onto face-down pieces (with them, by making the children).

Counting builds no children: the count is the opponent's move count on the current
board, plus for each move the change that move makes to it (a flip changes one
square's relations; a step or capture changes two squares and the cannon lines
through them), and flips are summed over all face-down squares at once.
"""

from typing import TypeAlias

from .movegen import children, count_leaves, moves_of
from .movegen_tables import (
    RuleTables,
    adjacent,
    adjacent_pairs,
    cannon_lines,
    prey_masks,
    rule_tables,
    threat_masks,
)
from .pieces import CANNON, UNDECIDED, Colour, Piece
from .position import Position
from .rules import RuleSet
from .squares import CROSS_MASKS, NEIGHBOUR_MASKS, NEIGHBOURS, NUM_SQUARES, Bitboard, Square

# Everything here runs for every node of perft, so squares and pieces are computed
# with raw arithmetic (``* 7``, ``14``, ``1 << square``) rather than the helpers of
# ``squares`` and ``pieces``: function calls and global lookups cost measurably in
# CPython's inner loops.

_FoeCannon: TypeAlias = tuple[Square, int, Bitboard]
"""Of an opponent cannon: its square, its move count, its reach."""


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


_TWO_STEPS = tuple(_two_steps(square) for square in range(NUM_SQUARES))
"""Per square, ``_two_steps``: summing a count over the neighbours in a set is two
popcounts."""


def count_two_ply_leaves(pos: Position, rules: RuleSet) -> int:
    """perft(pos, 2), without making any move where moves onto face-down pieces are not
    allowed (with them, the children are made and their moves counted)."""
    tables = rule_tables(rules)
    if tables.onto_hidden and pos.hidden and (pos.side != UNDECIDED or pos.colour_bb != [0, 0]):
        # (Before the first flip, with nothing face up, the flip's piece is the only one
        # up, the mover's: the other side has nothing to move onto a face-down piece.)
        return sum(count_leaves(pos, rules) for _ in children(pos, rules))
    return _two_plies(pos, tables)


def _two_plies(pos: Position, tables: RuleTables) -> int:
    """``count_two_ply_leaves`` with the rule set's tables already looked up."""
    side = pos.side
    bb = pos.bb
    if side == UNDECIDED:
        total = 0
        for mover in (0, 1):
            foe = mover ^ 1
            foe_prey = prey_masks(bb, mover * 7, tables)
            foe_moves = moves_of(pos, foe, foe_prey, tables)
            threats = threat_masks(bb, foe * 7, tables)
            total += _flip_children(
                pos, tables, mover, foe_moves, foe_prey, threats, mover * 7, mover * 7 + 7
            )
        return total
    foe = side ^ 1
    foe_prey = prey_masks(bb, side * 7, tables)
    threats = threat_masks(bb, foe * 7, tables)
    foe_moves = moves_of(pos, foe, foe_prey, tables)
    total = _step_children(pos, tables, foe_moves, foe_prey, threats)
    if pos.hidden:
        total += _flip_children(pos, tables, side, foe_moves, foe_prey, threats, 0, 14)
    return total


def _jump_pairs(sources: Bitboard, targets: Bitboard, occupied: Bitboard) -> int:
    """Number of (source, target) pairs a jump apart, sources and targets occupied.

    The relation is symmetric: the loop runs over the smaller of the two sets.
    """
    if sources.bit_count() > targets.bit_count():
        sources, targets = targets, sources
    total = 0
    while sources:
        low = sources & -sources
        sources ^= low
        total += (cannon_lines(low.bit_length() - 1, occupied)[0] & targets).bit_count()
    return total


def _flip_children(
    pos: Position,
    tables: RuleTables,
    mover: Colour,
    foe_moves: int,
    foe_prey: list[Bitboard],
    threats: list[Bitboard],
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
        single += pool[piece] == 1
        kind = piece % 7
        if piece // 7 == mover:
            if threats[kind]:
                total += adjacent_pairs(hidden, threats[kind])
            if jump:
                if jumped < 0:
                    jumped = _jump_pairs(pos.bb[(mover ^ 1) * 7 + CANNON], hidden, ~empty)
                total += jumped
            continue
        if foe_prey[kind]:
            total += adjacent_pairs(hidden, foe_prey[kind])
        if kind == CANNON and (jump or tables.slide):
            if jump:
                total += _jump_pairs(hidden, pos.colour_bb[mover], ~empty)
            if tables.slide:
                rest = hidden
                while rest:
                    low = rest & -rest
                    rest ^= low
                    total += cannon_lines(low.bit_length() - 1, ~empty)[2]
                continue
        if walks < 0:
            walks = adjacent_pairs(hidden, empty)
        total += walks
    count = hidden.bit_count()
    types = 14 - pool.count(0)
    return total + count * ((count - 1) * (kinds * types - single) + kinds * foe_moves)


_FAR_PIECES_CHECK = 4
"""From this many pieces on, ``_step_children`` first sets aside those far from the
opponent; with fewer, looking for them costs more than it saves."""


def _step_children(
    pos: Position,
    tables: RuleTables,
    foe_moves: int,
    foe_prey: list[Bitboard],
    threats: list[Bitboard],
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
    # piece's own moves gone, and in the cannons' lines. The set-up of the opponent
    # cannons and the far pieces run once per call, so they are functions.
    jump = tables.jump
    slide = tables.slide
    board = pos.board
    empty = pos.empty
    side = pos.side
    own = side * 7
    own_bb = pos.colour_bb[side]
    foe_bb = pos.colour_bb[side ^ 1]
    own_cannons = pos.bb[own + CANNON] if jump or slide else 0
    foe_cannons = pos.bb[(side ^ 1) * 7 + CANNON] if jump or slide else 0
    cannons, lines, walkers = (
        _foe_cannons(pos, foe_cannons, tables) if foe_cannons else ([], 0, foe_bb)
    )
    moves = change = 0
    pieces = own_bb
    if pieces.bit_count() >= _FAR_PIECES_CHECK:
        zone = adjacent(foe_bb)
        far = pieces & ~own_cannons & ~(zone | adjacent(zone))
        if far:
            pieces ^= far
            moves, change = _far_children(far, cannons, lines, empty, own_bb, tables)
    enemy = (side ^ 1) * 7
    prey = prey_masks(pos.bb, enemy, tables) if pieces else foe_prey
    near = NEIGHBOUR_MASKS
    two_steps = _TWO_STEPS
    while pieces:
        frm_bit = pieces & -pieces
        pieces ^= frm_bit
        frm = frm_bit.bit_length() - 1
        kind = board[frm] - own
        chasers = threats[kind]
        around = near[frm]
        here = (around & walkers).bit_count() - (around & chasers).bit_count()
        hits = around & prey[kind]
        steps = around & empty
        slider = False
        if frm_bit & own_cannons:
            jumps, slides, _, _ = cannon_lines(frm, ~empty)
            if jump:
                hits |= jumps & foe_bb
            if slide:
                steps = slides
                slider = True
        if steps:
            count = steps.bit_count()
            moves += count
            change += count * here
            if slider:
                rest = steps
                while rest:
                    there = near[(rest & -rest).bit_length() - 1]
                    rest &= rest - 1
                    change += (there & chasers).bit_count() - (there & walkers).bit_count()
            else:
                once, twice = two_steps[frm][steps]
                change += (
                    (once & chasers).bit_count()
                    + (twice & chasers).bit_count()
                    - (once & walkers).bit_count()
                    - (twice & walkers).bit_count()
                )
            if lines & (frm_bit | steps):
                change += _cannons_quiet_change(cannons, frm_bit, steps, empty, own_bb, tables)
        while hits:
            to_bit = hits & -hits
            hits ^= to_bit
            moves += 1
            to = to_bit.bit_length() - 1
            there = near[to]
            gone = ~to_bit
            change += (
                (around & walkers & gone).bit_count()
                - (around & chasers & gone).bit_count()
                + (there & chasers).bit_count()
                - (there & foe_prey[board[to] - enemy]).bit_count()
            )
            if walkers & to_bit:
                change -= (there & empty).bit_count()
            if lines & (frm_bit | to_bit):
                change += _cannons_capture_change(cannons, frm_bit, to, empty, own_bb, tables)
    return moves * (pos.hidden.bit_count() * (14 - pos.pool.count(0)) + foe_moves) + change


def _foe_cannons(
    pos: Position, foe_cannons: Bitboard, tables: RuleTables
) -> tuple[list[_FoeCannon], Bitboard, Bitboard]:
    """For ``_step_children``: the opponent's cannons (with their move counts and
    reaches), the squares they stand on or reach, and the opponent pieces that move
    by steps."""
    side = pos.side
    foe_bb = pos.colour_bb[side ^ 1]
    cannons: list[_FoeCannon] = []
    rest = foe_cannons
    own_bb = pos.colour_bb[side]
    occupied = ~pos.empty
    lines = 0
    while rest:
        low = rest & -rest
        rest ^= low
        square = low.bit_length() - 1
        jumps, _, slides, reach = cannon_lines(square, occupied)
        moves = (jumps & own_bb).bit_count() * tables.jump + slides * tables.slide
        cannons.append((square, moves, reach))
        lines |= reach | low
    return cannons, lines, foe_bb ^ foe_cannons if tables.slide else foe_bb


def _far_children(
    far: Bitboard,
    cannons: list[_FoeCannon],
    lines: Bitboard,
    empty: Bitboard,
    own_bb: Bitboard,
    tables: RuleTables,
) -> tuple[int, int]:
    """The moves of the ``far`` pieces, which only step to empty squares, and the
    change they make, which is only the cannons' (see ``_step_children``)."""
    moves = adjacent_pairs(far, empty)
    change = 0
    if lines:
        far &= lines | adjacent(empty & lines)
        while far:
            frm_bit = far & -far
            far ^= frm_bit
            steps = NEIGHBOUR_MASKS[frm_bit.bit_length() - 1] & empty
            change += _cannons_quiet_change(cannons, frm_bit, steps, empty, own_bb, tables)
    return moves, change


def _cannons_quiet_change(
    cannons: list[_FoeCannon],
    frm_bit: Bitboard,
    steps: Bitboard,
    empty: Bitboard,
    own_bb: Bitboard,
    tables: RuleTables,
) -> int:
    """How the opponent cannons' moves change, summed over the moves of the piece on
    ``frm_bit`` to the empty squares ``steps``."""
    jump = tables.jump
    slide = tables.slide
    change = 0
    left = ~(empty ^ frm_bit)
    targets = own_bb ^ frm_bit
    for square, before, reach in cannons:
        moved = steps if reach & frm_bit else steps & reach
        if not moved:
            continue
        cross = CROSS_MASKS[square]
        change -= before * moved.bit_count()
        while moved:
            to_bit = moved & -moved
            moved ^= to_bit
            key = (left ^ to_bit) & cross
            jumps, _, slides, _ = cannon_lines(square, key)
            change += (jumps & (targets ^ to_bit)).bit_count() * jump + slides * slide
    return change


def _cannons_capture_change(
    cannons: list[_FoeCannon],
    frm_bit: Bitboard,
    to: Square,
    empty: Bitboard,
    own_bb: Bitboard,
    tables: RuleTables,
) -> int:
    """How the opponent cannons' moves change when the piece on ``frm_bit`` takes ``to``."""
    to_bit = 1 << to
    change = 0
    for square, before, reach in cannons:
        if square == to:
            change -= before
        elif reach & (frm_bit | to_bit):
            jumps, _, slides, _ = cannon_lines(square, ~(empty ^ frm_bit))
            change += (
                (jumps & (own_bb ^ frm_bit ^ to_bit)).bit_count() * tables.jump
                + slides * tables.slide
                - before
            )
    return change
