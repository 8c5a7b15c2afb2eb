"""Legal-move generation for every rule set, and the one-ply leaf count.

Moves are ints: ``from << 5 | to``; a flip has from == to (``square * 33``), and a
move onto a face-down piece (where the rule set allows it) is a step whose ``to`` is
face down. Generation works on the bitboards of a ``Position`` with the tables of
``movegen_tables``. ``count_leaves`` is perft 1: it counts the moves without
generating them, each flip once per piece type face down.
"""

from collections.abc import Iterator

from .movegen_tables import (
    RuleTables,
    adjacent,
    adjacent_pairs,
    cannon_lines,
    prey_masks,
    rule_tables,
)
from .moves import Move
from .pieces import CANNON, HIDDEN, UNDECIDED, Colour, Piece
from .position import Position
from .rules import RuleSet, takes_revealed
from .squares import NEIGHBOUR_MASKS, Bitboard, Square

# Everything here runs for every node of perft and the search, so squares, pieces and
# moves are computed with raw arithmetic (``<< 5``, ``* 33``, ``* 7``, ``14``) rather
# than the helpers of ``squares``, ``pieces`` and ``moves``: function calls and global
# lookups cost measurably in CPython's inner loops.


def generate_moves(pos: Position, rules: RuleSet) -> list[Move]:
    """Every legal action of the side to move: captures, then moves, then moves onto
    face-down pieces, then flips."""
    return _generate(pos, rules, quiet_too=True)


def generate_captures(pos: Position, rules: RuleSet) -> list[Move]:
    """The captures of the side to move (for a capture search)."""
    return _generate(pos, rules, quiet_too=False)


def jump_targets(square: Square, occupied: Bitboard) -> Bitboard:
    """Squares a jumping cannon on ``square`` could land on over exactly one screen,
    whatever stands there (``occupied``: the occupied squares, e.g. ``~pos.empty``)."""
    return cannon_lines(square, occupied)[0]


def _generate(pos: Position, rules: RuleSet, quiet_too: bool) -> list[Move]:
    captures: list[Move] = []
    quiet: list[Move] = []
    side = pos.side
    if side != UNDECIDED:
        tables = rule_tables(rules)
        jump = tables.jump
        slide = tables.slide
        enemy_bb = pos.colour_bb[side ^ 1]
        empty = pos.empty
        bb = pos.bb
        prey = prey_masks(bb, (side ^ 1) * 7, tables)
        for kind in range(7):
            pieces = bb[side * 7 + kind]
            if not pieces:
                continue
            capturable = prey[kind]
            special = kind == CANNON and (jump or slide)
            while pieces:
                low = pieces & -pieces
                square = low.bit_length() - 1
                pieces ^= low
                base = square << 5
                near = NEIGHBOUR_MASKS[square]
                hits = near & capturable
                steps = near & empty
                if special:
                    jumps, slides, _, _ = cannon_lines(square, ~empty)
                    if jump:
                        hits |= jumps & enemy_bb
                    if slide:
                        steps = slides
                while hits:
                    low = hits & -hits
                    captures.append(base | (low.bit_length() - 1))
                    hits ^= low
                if not quiet_too:
                    continue
                while steps:
                    low = steps & -steps
                    quiet.append(base | (low.bit_length() - 1))
                    steps ^= low
    if not quiet_too:
        return captures
    hidden = pos.hidden
    if hidden and side != UNDECIDED and rule_tables(rules).onto_hidden:
        quiet += _reveal_moves(pos, side, rule_tables(rules).jump)
    while hidden:
        low = hidden & -hidden
        hidden ^= low
        quiet.append((low.bit_length() - 1) * 33)
    return captures + quiet


def _reveal_moves(pos: Position, side: Colour, jump: bool) -> list[Move]:
    """The moves of ``side``'s face-up pieces onto adjacent face-down pieces (none of a
    cannon that captures only by jumping)."""
    movers = pos.colour_bb[side]
    if jump:
        movers &= ~pos.bb[side * 7 + CANNON]
    movers &= adjacent(pos.hidden)
    hidden = pos.hidden
    moves: list[Move] = []
    while movers:
        low = movers & -movers
        movers ^= low
        square = low.bit_length() - 1
        targets = NEIGHBOUR_MASKS[square] & hidden
        while targets:
            bit = targets & -targets
            targets ^= bit
            moves.append(square << 5 | (bit.bit_length() - 1))
    return moves


def reveal_count(pos: Position, colour: Colour, tables: RuleTables) -> int:
    """Number of moves onto face-down pieces ``colour`` has (0 unless the rules allow them)."""
    if not tables.onto_hidden or not pos.hidden:
        return 0
    movers = pos.colour_bb[colour]
    if tables.jump:
        movers &= ~pos.bb[colour * 7 + CANNON]
    return adjacent_pairs(movers, pos.hidden) if movers else 0


def moves_of(pos: Position, colour: Colour, prey: list[Bitboard], tables: RuleTables) -> int:
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
        cannons = bb[own + CANNON]
        if tables.slide:
            walkers ^= cannons
        theirs = pos.colour_bb[colour ^ 1]
        while cannons:
            low = cannons & -cannons
            cannons ^= low
            jumps, _, slides, _ = cannon_lines(low.bit_length() - 1, ~empty)
            total += (jumps & theirs).bit_count() * tables.jump + slides * tables.slide
    if walkers:
        total += adjacent_pairs(walkers, empty)
    contact = mine & adjacent(pos.colour_bb[colour ^ 1])
    near = NEIGHBOUR_MASKS
    while contact:
        low = contact & -contact
        contact ^= low
        square = low.bit_length() - 1
        total += (near[square] & prey[board[square] - own]).bit_count()
    return total


def count_leaves(pos: Position, rules: RuleSet) -> int:
    """perft(pos, 1) without generating: each flip, and each move onto a face-down piece,
    counts once per piece type face down."""
    types = 14 - pos.pool.count(0)
    total = pos.hidden.bit_count() * types
    side = pos.side
    if side == UNDECIDED:
        return total
    tables = rule_tables(rules)
    total += reveal_count(pos, side, tables) * types
    return total + moves_of(pos, side, prey_masks(pos.bb, (side ^ 1) * 7, tables), tables)


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
    # This runs for every child of every inner node of perft: the move's squares are read
    # with raw ``>> 5`` and ``& 31``, as calls to the ``moves`` helpers cost measurably.
    pool = pos.pool
    board = pos.board
    for move in generate_moves(pos, rules):
        square = move >> 5
        to = move & 31
        if square == to:
            for piece in range(14):
                if pool[piece]:
                    pos.make_flip(square, piece)
                    yield move, piece
                    pos.unmake()
        elif board[to] == HIDDEN:
            mover = board[square]
            for piece in range(14):
                if pool[piece]:
                    pos.make_reveal(move, piece, takes_revealed(rules, mover, piece))
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
