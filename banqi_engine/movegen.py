"""Legal-move generation and bulk leaf counting for every rule set.

Moves are ints: ``from << 5 | to``; a flip has from == to (``square * 33``).
Generation works on the bitboards of a ``Position``: each piece's targets are its
neighbour mask ANDed with the empty squares and the enemy kinds it may take. A
cannon that jumps or slides looks its targets up by the occupancy of its rank and
file, in a table filled as occupancies are met.

Counting builds no children. ``count_leaves`` is perft 1. ``count_two_ply_leaves``
is perft 2: the opponent's move count on the current board, plus for each move the
change that move makes to it (a flip changes one square's relations; a step or
capture changes two squares and the cannon lines through them), and flips are
summed over all face-down squares at once.
"""

from typing import NamedTuple, TypeAlias

from .moves import Move
from .pieces import CANNON, KIND_LETTERS, KING, PAWN, UNDECIDED, Colour, Kind, Piece
from .position import Position
from .rules import RuleSet
from .squares import (
    ALL_SQUARES,
    CROSS_MASKS,
    FILE_A,
    FILE_D,
    NEIGHBOUR_MASKS,
    NEIGHBOURS,
    NUM_SQUARES,
    RAYS,
    Bitboard,
    Square,
)

# Everything here runs for every node of perft and the search, so squares, pieces and
# moves are computed with raw arithmetic (``<< 5``, ``* 33``, ``* 7``, ``14``, ``<< 4``
# for a rank step) rather than the helpers of ``squares``, ``pieces`` and ``moves``:
# function calls and global lookups cost measurably in CPython's inner loops.

_NOT_FILE_A = ALL_SQUARES & ~FILE_A
_NOT_FILE_D = ALL_SQUARES & ~FILE_D

_CannonEntry: TypeAlias = tuple[Bitboard, Bitboard, int, Bitboard]
"""Of a cannon on a square: jump targets, slide targets, slide count, reach."""
_FoeCannon: TypeAlias = tuple[Square, int, Bitboard]
"""Of an opponent cannon: its square, its move count, its reach."""


class _Tables(NamedTuple):
    """What generation and counting need from a rule set."""

    rising: tuple[Kind, ...]
    """The kinds from the lowest capture order to the highest."""
    falling: tuple[Kind, ...]
    """The kinds from the highest capture order to the lowest."""
    jump: bool
    """Cannons capture by jumping."""
    slide: bool
    """Cannons move by sliding."""
    cannon_and_below: tuple[Kind, ...]
    """The cannon and the kinds below it in capture order."""


_TABLES: dict[int, tuple[RuleSet, _Tables]] = {}
"""Tables by ``id`` of the rule set, which each entry keeps alive (hashing a rule
set costs more than a whole leaf count)."""
_TABLES_LIMIT = 64


def _tables(rules: RuleSet) -> _Tables:
    entry = _TABLES.get(id(rules))
    if entry is None:
        if len(_TABLES) >= _TABLES_LIMIT:
            _TABLES.clear()
        falling = tuple(KIND_LETTERS.index(letter) for letter in rules.capture_order)
        tables = _Tables(
            falling[::-1],
            falling,
            rules.cannon_capture == "jump",
            rules.cannon_move == "slide",
            falling[falling.index(CANNON) :],
        )
        entry = _TABLES[id(rules)] = (rules, tables)
    return entry[1]


def _prey_masks(bb: list[Bitboard], enemy: Piece, tables: _Tables) -> list[Bitboard]:
    """Per attacker kind, the squares of the pieces ``enemy + kind`` it takes by a step
    (``enemy``: the first piece code of the enemy colour).

    A kind takes every kind at or below its capture order, except that the King
    never takes a Pawn, a Pawn takes the King, and a jumping cannon takes nothing
    by a step (the rules' ``step_capture_masks``).
    """
    k0, k1, k2, k3, k4, k5, k6 = tables.rising
    prey = [0] * 7
    below = prey[k0] = bb[enemy + k0]
    below = prey[k1] = below | bb[enemy + k1]
    below = prey[k2] = below | bb[enemy + k2]
    below = prey[k3] = below | bb[enemy + k3]
    below = prey[k4] = below | bb[enemy + k4]
    below = prey[k5] = below | bb[enemy + k5]
    prey[k6] = below | bb[enemy + k6]
    prey[KING] &= ~bb[enemy + PAWN]
    prey[PAWN] |= bb[enemy + KING]
    if tables.jump:
        prey[CANNON] = 0
    return prey


def _threat_masks(bb: list[Bitboard], own: Piece, tables: _Tables) -> list[Bitboard]:
    """Per target kind, the squares of the pieces (codes ``own + kind``) that take it by a step."""
    k0, k1, k2, k3, k4, k5, k6 = tables.falling
    threats = [0] * 7
    above = threats[k0] = bb[own + k0]
    above = threats[k1] = above | bb[own + k1]
    above = threats[k2] = above | bb[own + k2]
    above = threats[k3] = above | bb[own + k3]
    above = threats[k4] = above | bb[own + k4]
    above = threats[k5] = above | bb[own + k5]
    threats[k6] = above | bb[own + k6]
    threats[PAWN] &= ~bb[own + KING]
    threats[KING] |= bb[own + PAWN]
    if tables.jump:
        cannons = ~bb[own + CANNON]
        for kind in tables.cannon_and_below:
            threats[kind] &= cannons
    return threats


_CANNON: tuple[dict[Bitboard, _CannonEntry], ...] = tuple({} for _ in range(NUM_SQUARES))
"""Per square, ``_cannon`` entries by the occupied squares of its rank and file
(at most 1024 a square)."""


def _cannon(square: Square, occupied: Bitboard) -> _CannonEntry:
    """Jump targets, slide targets, slide count and reach of a cannon on ``square``.

    The reach is every square up to the second occupied one along each line: only
    changes there can change the cannon's moves. ``occupied`` may be any int whose
    bits on the square's rank and file are the occupied squares (``~empty`` will do).
    """
    key = occupied & CROSS_MASKS[square]
    table = _CANNON[square]
    entry = table.get(key)
    if entry is None:
        jumps = slides = reach = 0
        for ray in RAYS[square]:
            screen = False
            for target in ray:
                reach |= 1 << target
                if not key >> target & 1:
                    if not screen:
                        slides |= 1 << target
                elif screen:
                    jumps |= 1 << target
                    break
                else:
                    screen = True
        entry = table[key] = (jumps, slides, slides.bit_count(), reach)
    return entry


def _pairs(pieces: Bitboard, targets: Bitboard) -> int:
    """Number of (piece, target) pairs one orthogonal step apart (``pieces`` not 0)."""
    if not pieces & (pieces - 1):
        return (NEIGHBOUR_MASKS[pieces.bit_length() - 1] & targets).bit_count()
    return (
        ((pieces << 4) & targets).bit_count()
        + ((pieces >> 4) & targets).bit_count()
        + (((pieces & _NOT_FILE_D) << 1) & targets).bit_count()
        + (((pieces & _NOT_FILE_A) >> 1) & targets).bit_count()
    )


def _around(squares: Bitboard) -> Bitboard:
    """The squares one orthogonal step from any of ``squares``."""
    return (
        squares << 4 | squares >> 4 | (squares & _NOT_FILE_D) << 1 | (squares & _NOT_FILE_A) >> 1
    ) & ALL_SQUARES


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


def generate_moves(pos: Position, rules: RuleSet) -> list[Move]:
    """Every legal action of the side to move: captures, then moves, then flips."""
    return _generate(pos, rules, quiet_too=True)


def generate_captures(pos: Position, rules: RuleSet) -> list[Move]:
    """The captures of the side to move (for a capture search)."""
    return _generate(pos, rules, quiet_too=False)


def jump_targets(square: Square, occupied: Bitboard) -> Bitboard:
    """Squares a jumping cannon on ``square`` could land on over exactly one screen,
    whatever stands there (``occupied``: the occupied squares, e.g. ``~pos.empty``)."""
    return _cannon(square, occupied)[0]


def _generate(pos: Position, rules: RuleSet, quiet_too: bool) -> list[Move]:
    captures: list[Move] = []
    quiet: list[Move] = []
    side = pos.side
    if side != UNDECIDED:
        tables = _tables(rules)
        jump = tables.jump
        slide = tables.slide
        enemy_bb = pos.colour_bb[side ^ 1]
        empty = pos.empty
        bb = pos.bb
        prey = _prey_masks(bb, (side ^ 1) * 7, tables)
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
                    jumps, slides, _, _ = _cannon(square, ~empty)
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
    while hidden:
        low = hidden & -hidden
        hidden ^= low
        quiet.append((low.bit_length() - 1) * 33)
    return captures + quiet


def _moves_of(pos: Position, colour: Colour, prey: list[Bitboard], tables: _Tables) -> int:
    """Number of moves and captures (no flips) ``colour`` would have on this board.

    ``prey`` is ``_prey_masks`` of the other colour's pieces.
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
            jumps, _, slides, _ = _cannon(low.bit_length() - 1, ~empty)
            total += (jumps & theirs).bit_count() * tables.jump + slides * tables.slide
    if walkers:
        total += _pairs(walkers, empty)
    contact = mine & _around(pos.colour_bb[colour ^ 1])
    near = NEIGHBOUR_MASKS
    while contact:
        low = contact & -contact
        contact ^= low
        square = low.bit_length() - 1
        total += (near[square] & prey[board[square] - own]).bit_count()
    return total


def count_leaves(pos: Position, rules: RuleSet) -> int:
    """perft(pos, 1) without generating: each flip counts once per piece type face down."""
    total = pos.hidden.bit_count() * (14 - pos.pool.count(0))
    side = pos.side
    if side == UNDECIDED:
        return total
    tables = _tables(rules)
    return total + _moves_of(pos, side, _prey_masks(pos.bb, (side ^ 1) * 7, tables), tables)


def has_legal_move(pos: Position, rules: RuleSet) -> bool:
    """Whether the side to move has any legal action."""
    if pos.hidden:
        return True
    return count_leaves(pos, rules) > 0


def count_two_ply_leaves(pos: Position, rules: RuleSet) -> int:
    """perft(pos, 2) without making any move."""
    return _two_plies(pos, _tables(rules))


def _two_plies(pos: Position, tables: _Tables) -> int:
    """``count_two_ply_leaves`` with the rule set's tables already looked up."""
    side = pos.side
    bb = pos.bb
    if side == UNDECIDED:
        total = 0
        for mover in (0, 1):
            foe = mover ^ 1
            foe_prey = _prey_masks(bb, mover * 7, tables)
            foe_moves = _moves_of(pos, foe, foe_prey, tables)
            threats = _threat_masks(bb, foe * 7, tables)
            total += _flip_children(
                pos, tables, mover, foe_moves, foe_prey, threats, mover * 7, mover * 7 + 7
            )
        return total
    foe = side ^ 1
    foe_prey = _prey_masks(bb, side * 7, tables)
    threats = _threat_masks(bb, foe * 7, tables)
    foe_moves = _moves_of(pos, foe, foe_prey, tables)
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
        total += (_cannon(low.bit_length() - 1, occupied)[0] & targets).bit_count()
    return total


def _flip_children(
    pos: Position,
    tables: _Tables,
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
                total += _pairs(hidden, threats[kind])
            if jump:
                if jumped < 0:
                    jumped = _jump_pairs(pos.bb[(mover ^ 1) * 7 + CANNON], hidden, ~empty)
                total += jumped
            continue
        if foe_prey[kind]:
            total += _pairs(hidden, foe_prey[kind])
        if kind == CANNON and (jump or tables.slide):
            if jump:
                total += _jump_pairs(hidden, pos.colour_bb[mover], ~empty)
            if tables.slide:
                rest = hidden
                while rest:
                    low = rest & -rest
                    rest ^= low
                    total += _cannon(low.bit_length() - 1, ~empty)[2]
                continue
        if walks < 0:
            walks = _pairs(hidden, empty)
        total += walks
    count = hidden.bit_count()
    types = 14 - pool.count(0)
    return total + count * ((count - 1) * (kinds * types - single) + kinds * foe_moves)


_FAR_PIECES_CHECK = 4
"""From this many pieces on, ``_step_children`` first sets aside those far from the
opponent; with fewer, looking for them costs more than it saves."""


def _step_children(
    pos: Position,
    tables: _Tables,
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
        zone = _around(foe_bb)
        far = pieces & ~own_cannons & ~(zone | _around(zone))
        if far:
            pieces ^= far
            moves, change = _far_children(far, cannons, lines, empty, own_bb, tables)
    enemy = (side ^ 1) * 7
    prey = _prey_masks(pos.bb, enemy, tables) if pieces else foe_prey
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
            jumps, slides, _, _ = _cannon(frm, ~empty)
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
    pos: Position, foe_cannons: Bitboard, tables: _Tables
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
        jumps, _, slides, reach = _cannon(square, occupied)
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
    tables: _Tables,
) -> tuple[int, int]:
    """The moves of the ``far`` pieces, which only step to empty squares, and the
    change they make, which is only the cannons' (see ``_step_children``)."""
    change = _far_cannons_change(far, cannons, lines, empty, own_bb, tables) if lines else 0
    return _pairs(far, empty), change


def _far_cannons_change(
    far: Bitboard,
    cannons: list[_FoeCannon],
    lines: Bitboard,
    empty: Bitboard,
    own_bb: Bitboard,
    tables: _Tables,
) -> int:
    """The cannons' part of the change of the steps of ``far`` pieces (see ``_step_children``)."""
    change = 0
    far &= lines | _around(empty & lines)
    while far:
        frm_bit = far & -far
        far ^= frm_bit
        steps = NEIGHBOUR_MASKS[frm_bit.bit_length() - 1] & empty
        change += _cannons_quiet_change(cannons, frm_bit, steps, empty, own_bb, tables)
    return change


def _cannons_quiet_change(
    cannons: list[_FoeCannon],
    frm_bit: Bitboard,
    steps: Bitboard,
    empty: Bitboard,
    own_bb: Bitboard,
    tables: _Tables,
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
        table = _CANNON[square]
        cross = CROSS_MASKS[square]
        change -= before * moved.bit_count()
        while moved:
            to_bit = moved & -moved
            moved ^= to_bit
            key = (left ^ to_bit) & cross
            jumps, _, slides, _ = table.get(key) or _cannon(square, key)
            change += (jumps & (targets ^ to_bit)).bit_count() * jump + slides * slide
    return change


def _cannons_capture_change(
    cannons: list[_FoeCannon],
    frm_bit: Bitboard,
    to: Square,
    empty: Bitboard,
    own_bb: Bitboard,
    tables: _Tables,
) -> int:
    """How the opponent cannons' moves change when the piece on ``frm_bit`` takes ``to``."""
    to_bit = 1 << to
    change = 0
    for square, before, reach in cannons:
        if square == to:
            change -= before
        elif reach & (frm_bit | to_bit):
            jumps, _, slides, _ = _cannon(square, ~(empty ^ frm_bit))
            change += (
                (jumps & (own_bb ^ frm_bit ^ to_bit)).bit_count() * tables.jump
                + slides * tables.slide
                - before
            )
    return change
