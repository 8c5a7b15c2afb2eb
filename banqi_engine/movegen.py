"""Legal-move generation for every rule set, and the one-ply leaf count.

Moves are ints: ``from << 5 | to``; a flip has from == to (``square * 33``), and a
move onto a face-down piece (where the rule set allows it) is a step whose ``to`` is
face down. Generation works on the bitboards of a ``Position`` with the tables of
``movegen_tables``. ``count_leaves`` is perft 1: it counts the moves without
generating them, each flip once per piece type face down.

In the compiled build (``movegen.pxd``) the search and perft call ``generate_into``,
``count_leaves_with``, ``moves_of`` and ``make_child`` at C level, with a rule set's
``RuleTables``; ``generate_moves`` and ``generate_captures`` are its list-returning
wrappers for plain-Python callers.
"""

from collections.abc import Iterator, MutableSequence, Sequence
from typing import Final

from cython import compiled

from .moves import Move
from .pieces import HIDDEN, Colour, Piece
from .rules import RuleSet, takes_revealed
from .squares import NEIGHBOUR_MASKS, Bitboard, Square

if not compiled:  # the compiled build cimports these in the .pxd (C calls)
    from .bits import low_square, popcount
    from .movegen_tables import (
        RuleTables,
        adjacent,
        adjacent_pairs,
        cannon_jumps,
        cannon_slide_count,
        cannon_slides,
        prey_into,
        rule_tables,
    )
    from .position import Position

# Everything here runs for every node of perft and the search, so squares, pieces and
# moves are computed with raw arithmetic (``<< 5``, ``* 33``, ``* 7``, ``14``; kind 5
# the Cannon; side 2 undecided) rather than the helpers of ``squares``, ``pieces`` and
# ``moves``: function calls and global lookups cost measurably in CPython's inner loops.

MOVE_BUFFER: Final = 256
"""The moves a buffer for ``generate_into`` must have room for."""
CHILD_BUFFER: Final = MOVE_BUFFER * 14
"""The children buffers for ``child_plies_into`` must have room for: each action once per
piece type face down, at most."""
_QUIET_START = 64
"""Where ``generate_into`` puts the quiet moves until the captures are all in: a side
has at most 16 pieces, each with at most 4 captures."""
_NEAR = NEIGHBOUR_MASKS
"""NEIGHBOUR_MASKS (a C array in the compiled build)."""


def generate_into(
    pos: Position, tables: RuleTables, quiet_too: bool, out: MutableSequence[Move]
) -> int:
    """Write the legal actions of the side to move into ``out`` (room for
    ``MOVE_BUFFER``), returning how many: the captures, then (if ``quiet_too``) the
    moves, the moves onto face-down pieces and the flips."""
    n = 0
    q = _QUIET_START
    side = pos.side
    empty = pos.empty
    if side != 2:
        jump = tables.jump
        slide = tables.slide
        enemy_bb = pos.colour_bb[side ^ 1]
        bb = pos.bb
        if not compiled:
            prey = [0] * 7
        prey_into(bb, (side ^ 1) * 7, tables, prey)
        for kind in range(7):
            pieces = bb[side * 7 + kind]
            if not pieces:
                continue
            capturable = prey[kind]
            special = kind == 5 and (jump or slide)
            while pieces:
                square = low_square(pieces)
                pieces &= pieces - 1
                base = square << 5
                near = _NEAR[square]
                hits = near & capturable
                steps = near & empty
                if special:
                    if jump:
                        hits |= cannon_jumps(square, ~empty) & enemy_bb
                    if slide:
                        steps = cannon_slides(square, ~empty)
                while hits:
                    out[n] = base | low_square(hits)
                    n += 1
                    hits &= hits - 1
                if not quiet_too:
                    continue
                while steps:
                    out[q] = base | low_square(steps)
                    q += 1
                    steps &= steps - 1
    if not quiet_too:
        return n
    hidden = pos.hidden
    if hidden and side != 2 and tables.onto_hidden:
        # The moves of the side's face-up pieces onto adjacent face-down pieces (none
        # of a cannon that captures only by jumping).
        movers = pos.colour_bb[side]
        if tables.jump:
            movers &= ~pos.bb[side * 7 + 5]
        movers &= adjacent(hidden)
        while movers:
            square = low_square(movers)
            movers &= movers - 1
            targets = _NEAR[square] & hidden
            while targets:
                out[q] = square << 5 | low_square(targets)
                q += 1
                targets &= targets - 1
    while hidden:
        out[q] = low_square(hidden) * 33
        q += 1
        hidden &= hidden - 1
    if not compiled:  # the same as the loop below, at the speed of plain Python
        out[n : n + q - _QUIET_START] = out[_QUIET_START:q]
        return n + q - _QUIET_START
    for i in range(_QUIET_START, q):  # the quiet moves after the captures
        out[n] = out[i]
        n += 1
    return n


def _generate(pos: Position, tables: RuleTables, quiet_too: bool) -> list[Move]:
    """``generate_into`` as a list."""
    if not compiled:
        out = [0] * MOVE_BUFFER
        return out[: generate_into(pos, tables, quiet_too, out)]
    n = generate_into(pos, tables, quiet_too, out)
    return [out[i] for i in range(n)]


def generate_moves(pos: Position, rules: RuleSet) -> list[Move]:
    """Every legal action of the side to move: captures, then moves, then moves onto
    face-down pieces, then flips."""
    return _generate(pos, rule_tables(rules), True)


def generate_captures(pos: Position, rules: RuleSet) -> list[Move]:
    """The captures of the side to move (for a capture search)."""
    return _generate(pos, rule_tables(rules), False)


def jump_targets(square: Square, occupied: Bitboard) -> Bitboard:
    """Squares a jumping cannon on ``square`` could land on over exactly one screen,
    whatever stands there (``occupied``: the occupied squares, e.g. ``~pos.empty``)."""
    return cannon_jumps(square, occupied & 0xFFFFFFFF)


def face_down_types(pos: Position) -> int:
    """How many piece codes are still face down (what a flip can show)."""
    if not compiled:  # the same count, at the speed of plain Python
        return 14 - pos.pool.count(0)
    pool = pos.pool
    types = 0
    for piece in range(14):
        if pool[piece]:
            types += 1
    return types


def reveal_count(pos: Position, colour: Colour, tables: RuleTables) -> int:
    """Number of moves onto face-down pieces ``colour`` has (0 unless the rules allow them)."""
    if not tables.onto_hidden or not pos.hidden:
        return 0
    movers = pos.colour_bb[colour]
    if tables.jump:
        movers &= ~pos.bb[colour * 7 + 5]
    return adjacent_pairs(movers, pos.hidden) if movers else 0


def moves_of(pos: Position, colour: Colour, prey: Sequence[Bitboard], tables: RuleTables) -> int:
    """Number of moves and captures (no flips) ``colour`` would have on this board.

    ``prey`` is ``prey_masks`` of the other colour's pieces.
    """
    bb = pos.bb
    board = pos.board
    empty = pos.empty
    own = colour * 7
    mine = pos.colour_bb[colour]
    walkers = mine
    total = 0
    if tables.jump or tables.slide:
        cannons = bb[own + 5]
        if tables.slide:
            walkers ^= cannons
        theirs = pos.colour_bb[colour ^ 1]
        while cannons:
            square = low_square(cannons)
            cannons &= cannons - 1
            if tables.jump:
                total += popcount(cannon_jumps(square, ~empty) & theirs)
            if tables.slide:
                total += cannon_slide_count(square, ~empty)
    if walkers:
        total += adjacent_pairs(walkers, empty)
    contact = mine & adjacent(pos.colour_bb[colour ^ 1])
    while contact:
        square = low_square(contact)
        contact &= contact - 1
        total += popcount(_NEAR[square] & prey[board[square] - own])
    return total


def count_leaves_with(pos: Position, tables: RuleTables) -> int:
    """``count_leaves`` with the rule set's tables already looked up."""
    types = face_down_types(pos)
    total = popcount(pos.hidden) * types
    side = pos.side
    if side == 2:
        return total
    total += reveal_count(pos, side, tables) * types
    if not compiled:
        prey = [0] * 7
    prey_into(pos.bb, (side ^ 1) * 7, tables, prey)
    return total + moves_of(pos, side, prey, tables)


def count_leaves(pos: Position, rules: RuleSet) -> int:
    """perft(pos, 1) without generating: each flip, and each move onto a face-down piece,
    counts once per piece type face down."""
    return count_leaves_with(pos, rule_tables(rules))


def child_plies_into(
    pos: Position, tables: RuleTables, moves_out: MutableSequence[Move], pieces_out: list[int]
) -> int:
    """Write the plies to each child of ``pos`` into ``moves_out`` and ``pieces_out`` (room
    for ``CHILD_BUFFER``), returning how many: a flip, and a move onto a face-down piece,
    once per piece type face down (with that piece), a move or capture once (piece -1),
    as ``make_child`` takes them."""
    if not compiled:
        moves = [0] * MOVE_BUFFER
    n = generate_into(pos, tables, True, moves)
    board = pos.board
    pool = pos.pool
    count = 0
    for i in range(n):
        move = moves[i]
        if move >> 5 == move & 31 or board[move & 31] == 14:
            for piece in range(14):
                if pool[piece]:
                    moves_out[count] = move
                    pieces_out[count] = piece
                    count += 1
        else:
            moves_out[count] = move
            pieces_out[count] = -1
            count += 1
    return count


class Children:
    """The plies to each child of a position, ``n`` of them: ``moves[i]`` with
    ``pieces[i]``, as ``make_child`` takes them (``child_plies_into``)."""

    def __init__(self, pos: Position, tables: RuleTables) -> None:
        if not compiled:
            self.moves = [0] * CHILD_BUFFER
            self.pieces = [0] * CHILD_BUFFER
        self.n = child_plies_into(pos, tables, self.moves, self.pieces)


def make_child(pos: Position, tables: RuleTables, move: Move, piece: Piece) -> None:
    """Make a legal ply on ``pos``: a flip or a move onto a face-down piece with the
    ``piece`` it showed, or a move or capture (``piece`` -1)."""
    frm = move >> 5
    to = move & 31
    if piece < 0:
        pos.make_move(move)
    elif frm == to:
        pos.make_flip(frm, piece)
    else:
        pos.make_reveal(move, piece, tables.reveal_takes[pos.board[frm] * 14 + piece])


def make_ply(pos: Position, rules: RuleSet, move: Move, piece: Piece | None) -> None:
    """Make a legal ply on ``pos``: a flip or a move onto a face-down piece with the
    ``piece`` it showed, or a move or capture (``piece`` None)."""
    frm = move >> 5
    to = move & 31
    if piece is None:
        pos.make_move(move)
    elif frm == to:
        pos.make_flip(frm, piece)
    else:
        pos.make_reveal(move, piece, takes_revealed(rules, pos.board[frm], piece))


def children(pos: Position, rules: RuleSet) -> Iterator[tuple[Move, Piece | None]]:
    """Make each child of ``pos`` in turn (a flip, or a move onto a face-down piece, once
    per piece type face down), yielding its move and revealed piece; each is unmade
    before the next."""
    tables = rule_tables(rules)
    for move in generate_moves(pos, rules):
        if move >> 5 == move & 31 or pos.board[move & 31] == HIDDEN:
            for piece in range(14):
                if pos.pool[piece]:
                    make_child(pos, tables, move, piece)
                    yield move, piece
                    pos.unmake()
        else:
            pos.make_move(move)
            yield move, None
            pos.unmake()


def has_legal_move(pos: Position, rules: RuleSet) -> bool:
    """Whether the side to move has any legal action."""
    if pos.hidden:
        return True
    return count_leaves(pos, rules) > 0
