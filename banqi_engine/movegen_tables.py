"""The bitboard tables and masks that move generation and leaf counting share.

Each piece's targets are its neighbour mask ANDed with the empty squares and the
enemy kinds it may take (``prey_masks``; ``threat_masks`` is the converse). A
cannon that jumps or slides looks its targets up by the occupancy of its rank and
of its file, in tables filled at import (``cannon_jumps``, ``cannon_slides``,
``cannon_slide_count``, ``cannon_reach``; ``cannon_lines`` has all four).

In the compiled build (``movegen_tables.pxd``) ``RuleTables`` is a C-level class, the
``*_into`` functions fill C arrays, and the cannon tables are C arrays: ``movegen``,
``two_ply_count`` and the evaluation call them at C level. Plain-Python callers use
``rule_tables``, ``prey_masks``, ``threat_masks``, ``cannon_lines``, ``adjacent`` and
``adjacent_pairs``.
"""

from collections.abc import Sequence
from typing import TypeAlias

from cython import compiled

from .pieces import CANNON, KIND_LETTERS, Kind, Piece
from .rules import RuleSet, reveal_captures
from .squares import (
    ALL_SQUARES,
    CROSS_MASKS,
    FILE_A,
    FILE_D,
    NEIGHBOUR_MASKS,
    NUM_SQUARES,
    RAYS,
    Bitboard,
    Square,
)

if not compiled:  # the compiled build cimports these in the .pxd (C calls)
    from .bits import low_square, popcount

# These run for every node of perft and the search, so pieces and squares are computed
# with raw arithmetic (``enemy + kind``; kind codes as numbers: 0 the King, 5 the
# Cannon, 6 the Pawn), as in the hot loops of ``movegen`` and ``two_ply_count``.

_ALL = ALL_SQUARES
_NOT_FILE_A = ALL_SQUARES & ~FILE_A
_NOT_FILE_D = ALL_SQUARES & ~FILE_D
_NEAR = NEIGHBOUR_MASKS
"""NEIGHBOUR_MASKS (a C array in the compiled build)."""
_CROSS = CROSS_MASKS
"""CROSS_MASKS (a C array in the compiled build)."""

CannonEntry: TypeAlias = tuple[Bitboard, Bitboard, int, Bitboard]
"""Of a cannon on a square: jump targets, slide targets, slide count, reach."""


class RuleTables:
    """What generation and counting need from a rule set (build with ``rule_tables``).

    The kind orders have seven entries each; ``cannon_and_below`` has its
    ``n_cannon_and_below`` kinds first, then the cannon again. In the compiled build
    the fields are C arrays, read from Python as lists.
    """

    def __init__(self, rules: RuleSet) -> None:
        falling = tuple(KIND_LETTERS.index(letter) for letter in rules.capture_order)
        below = falling[falling.index(CANNON) :]
        self.rising: Sequence[Kind] = falling[::-1]
        """The kinds from the lowest capture order to the highest."""
        self.falling: Sequence[Kind] = falling
        """The kinds from the highest capture order to the lowest."""
        self.cannon_and_below: Sequence[Kind] = below + (CANNON,) * (7 - len(below))
        """The cannon and the kinds below it in capture order (the first
        ``n_cannon_and_below``; the rest repeat the cannon)."""
        self.n_cannon_and_below: int = len(below)
        self.jump: bool = rules.cannon_capture == "jump"
        """Cannons capture by jumping."""
        self.slide: bool = rules.cannon_move == "slide"
        """Cannons move by sliding."""
        self.onto_hidden: bool = rules.move_onto_face_down
        """Pieces may move onto face-down pieces (all but a jumping cannon)."""
        self.reveal_takes: Sequence[bool] = tuple(
            takes for row in reveal_captures(rules) for takes in row
        )
        """``takes_revealed`` by ``mover * 14 + revealed``."""


_TABLES: dict[int, tuple[RuleSet, RuleTables]] = {}
"""Tables by ``id`` of the rule set, which each entry keeps alive (hashing a rule
set costs more than a whole leaf count)."""
_TABLES_LIMIT = 64


def rule_tables(rules: RuleSet) -> RuleTables:
    """The tables of ``rules``, built on first use."""
    entry = _TABLES.get(id(rules))
    if entry is None:
        if len(_TABLES) >= _TABLES_LIMIT:
            _TABLES.clear()
        entry = _TABLES[id(rules)] = (rules, RuleTables(rules))
    return entry[1]


def _running_unions(
    bb: Sequence[Bitboard], base: Piece, order: Sequence[Kind], out: list[Bitboard]
) -> None:
    """Per kind into ``out``, the squares of the pieces ``base + k`` of every kind ``k``
    up to it in ``order`` (seven kinds; unrolled, as it runs for every node)."""
    k = order[0]
    union = bb[base + k]
    out[k] = union
    k = order[1]
    union |= bb[base + k]
    out[k] = union
    k = order[2]
    union |= bb[base + k]
    out[k] = union
    k = order[3]
    union |= bb[base + k]
    out[k] = union
    k = order[4]
    union |= bb[base + k]
    out[k] = union
    k = order[5]
    union |= bb[base + k]
    out[k] = union
    k = order[6]
    out[k] = union | bb[base + k]


def prey_into(
    bb: Sequence[Bitboard], enemy: Piece, tables: RuleTables, out: list[Bitboard]
) -> None:
    """Into ``out[0..6]``, per attacker kind, the squares of the pieces ``enemy + kind``
    it takes by a step (``enemy``: the first piece code of the enemy colour).

    A kind takes every kind at or below its capture order, except that the King
    never takes a Pawn, a Pawn takes the King, and a jumping cannon takes nothing
    by a step (the rules' ``step_capture_masks``).
    """
    _running_unions(bb, enemy, tables.rising, out)
    out[0] &= ~bb[enemy + 6]
    out[6] |= bb[enemy]
    if tables.jump:
        out[5] = 0


def threat_into(
    bb: Sequence[Bitboard], own: Piece, tables: RuleTables, out: list[Bitboard]
) -> None:
    """Into ``out[0..6]``, per target kind, the squares of the pieces (codes
    ``own + kind``) that take it by a step."""
    _running_unions(bb, own, tables.falling, out)
    out[6] &= ~bb[own]
    out[0] |= bb[own + 6]
    if tables.jump:
        cannons = ~bb[own + 5]
        for i in range(tables.n_cannon_and_below):
            out[tables.cannon_and_below[i]] &= cannons


def prey_masks(bb: Sequence[Bitboard], enemy: Piece, tables: RuleTables) -> list[Bitboard]:
    """``prey_into`` as a new list (``bb``: at least the 14 piece codes' bitboards)."""
    if not compiled:
        out = [0] * 7
        prey_into(bb, enemy, tables, out)
        return out
    buf = [bb[i] for i in range(14)]  # C arrays in the compiled build
    masks = [0] * 7
    prey_into(buf, enemy, tables, masks)
    return [masks[i] for i in range(7)]


def threat_masks(bb: Sequence[Bitboard], own: Piece, tables: RuleTables) -> list[Bitboard]:
    """``threat_into`` as a new list (``bb``: at least the 14 piece codes' bitboards)."""
    if not compiled:
        out = [0] * 7
        threat_into(bb, own, tables, out)
        return out
    buf = [bb[i] for i in range(14)]  # C arrays in the compiled build
    masks = [0] * 7
    threat_into(buf, own, tables, masks)
    return [masks[i] for i in range(7)]


# -- cannon lines ------------------------------------------------------------------
# A cannon's targets along its rank depend only on the occupancy of the rank, and
# along its file only on that of the file: per square, one table entry per rank
# occupancy (4 bits, ``_rank_index``) and one per file occupancy (8 bits, gathered
# from every fourth bit by ``_file_index``). The square's own bit is in both indexes
# and changes nothing. An entry is the OR (a count: the sum) of the two halves.


def _walk(square: Square, occupied: Bitboard, rays: Sequence[Sequence[Square]]) -> CannonEntry:
    """Jump targets, slide targets, slide count and reach of a cannon on ``square``
    along ``rays``."""
    jumps = slides = reach = 0
    for ray in rays:
        screen = False
        for target in ray:
            reach |= 1 << target
            if not occupied >> target & 1:
                if not screen:
                    slides |= 1 << target
            elif screen:
                jumps |= 1 << target
                break
            else:
                screen = True
    return jumps, slides, slides.bit_count(), reach


def _line_tables(
    count: int, occupied_of: list[Bitboard], along_rank: bool
) -> tuple[list[Bitboard], list[Bitboard], list[int], list[Bitboard]]:
    """The four tables of one half (the rank's or the file's), by ``square * count +
    pattern``, the pattern's occupancy being ``occupied_of[square * count + pattern]``."""
    jumps: list[Bitboard] = []
    slides: list[Bitboard] = []
    counts: list[int] = []
    reach: list[Bitboard] = []
    for square in range(NUM_SQUARES):
        rays = [ray for ray in RAYS[square] if (ray[0] >> 2 == square >> 2) == along_rank]
        for pattern in range(count):
            entry = _walk(square, occupied_of[square * count + pattern], rays)
            jumps.append(entry[0])
            slides.append(entry[1])
            counts.append(entry[2])
            reach.append(entry[3])
    return jumps, slides, counts, reach


def _rank_occupied() -> list[int]:
    """The occupancy of each rank index (``square * 16 + pattern``)."""
    return [pattern << (square & 28) for square in range(NUM_SQUARES) for pattern in range(16)]


def _file_occupied() -> list[int]:
    """The occupancy of each file index (``square * 256 + pattern``)."""
    return [
        sum(1 << (rank * 4 + (square & 3)) for rank in range(8) if pattern >> rank & 1)
        for square in range(NUM_SQUARES)
        for pattern in range(256)
    ]


_RANK = _line_tables(16, _rank_occupied(), True)
_RANK_JUMPS = _RANK[0]
_RANK_SLIDES = _RANK[1]
_RANK_COUNTS = _RANK[2]
_RANK_REACH = _RANK[3]
_FILE = _line_tables(256, _file_occupied(), False)
_FILE_JUMPS = _FILE[0]
_FILE_SLIDES = _FILE[1]
_FILE_COUNTS = _FILE[2]
_FILE_REACH = _FILE[3]
del _RANK, _FILE


def _rank_index(square: Square, occupied: Bitboard) -> int:
    """The rank table index of a cannon on ``square`` (``square * 16`` plus the
    occupancy of its rank)."""
    return square * 16 + (occupied >> (square & 28) & 15)


def _file_index(square: Square, occupied: Bitboard) -> int:
    """The file table index of a cannon on ``square`` (``square * 256`` plus the
    occupancy of its file, rank 1 in the lowest bit)."""
    column = occupied >> (square & 3) & 0x11111111
    column = (column | column >> 3) & 0x03030303
    column = (column | column >> 6) & 0x000F000F
    return square * 256 + ((column | column >> 12) & 0xFF)


def cannon_jumps(square: Square, occupied: Bitboard) -> Bitboard:
    """Squares a cannon on ``square`` would land on over exactly one screen, whatever
    stands there. ``occupied``: a bitboard whose bits on the square's rank and file
    are the occupied squares (the bits of other squares do not matter)."""
    if not compiled:  # plain Python: a dict of the entries met is faster
        return cannon_lines(square, occupied)[0]
    return _RANK_JUMPS[_rank_index(square, occupied)] | _FILE_JUMPS[_file_index(square, occupied)]


def cannon_slides(square: Square, occupied: Bitboard) -> Bitboard:
    """Empty squares a cannon on ``square`` slides to (``occupied`` as in ``cannon_jumps``)."""
    if not compiled:  # plain Python: a dict of the entries met is faster
        return cannon_lines(square, occupied)[1]
    return _RANK_SLIDES[_rank_index(square, occupied)] | _FILE_SLIDES[_file_index(square, occupied)]


def cannon_slide_count(square: Square, occupied: Bitboard) -> int:
    """How many squares a cannon on ``square`` slides to (``occupied`` as in
    ``cannon_jumps``)."""
    if not compiled:  # plain Python: a dict of the entries met is faster
        return cannon_lines(square, occupied)[2]
    return _RANK_COUNTS[_rank_index(square, occupied)] + _FILE_COUNTS[_file_index(square, occupied)]


def cannon_reach(square: Square, occupied: Bitboard) -> Bitboard:
    """Every square up to the second occupied one along each line from ``square``: only
    changes there can change a cannon's moves (``occupied`` as in ``cannon_jumps``)."""
    if not compiled:  # plain Python: a dict of the entries met is faster
        return cannon_lines(square, occupied)[3]
    return _RANK_REACH[_rank_index(square, occupied)] | _FILE_REACH[_file_index(square, occupied)]


def cannon_lines(square: Square, occupied: Bitboard) -> CannonEntry:
    """Jump targets, slide targets, slide count and reach of a cannon on ``square``.

    ``occupied`` may be any int whose bits on the square's rank and file are the
    occupied squares (``~empty`` will do).
    """
    occupied &= _CROSS[square]
    if not compiled:  # plain Python: a dict of the entries met is faster than four calls
        entry = _LINES[square].get(occupied)
        if entry is not None:
            return entry
    rank = _rank_index(square, occupied)
    file = _file_index(square, occupied)
    entry = (
        _RANK_JUMPS[rank] | _FILE_JUMPS[file],
        _RANK_SLIDES[rank] | _FILE_SLIDES[file],
        _RANK_COUNTS[rank] + _FILE_COUNTS[file],
        _RANK_REACH[rank] | _FILE_REACH[file],
    )
    if not compiled:
        _LINES[square][occupied] = entry
    return entry


_LINES: tuple[dict[Bitboard, CannonEntry], ...] = tuple({} for _ in range(NUM_SQUARES))
"""In the plain-Python build, per square, ``cannon_lines`` entries by the occupied
squares of its rank and file (at most 1024 a square)."""


def adjacent_pairs(pieces: Bitboard, targets: Bitboard) -> int:
    """Number of (piece, target) pairs one orthogonal step apart."""
    if not pieces & (pieces - 1):
        if not pieces:
            return 0
        return popcount(_NEAR[low_square(pieces)] & targets)
    return (
        popcount((pieces << 4) & targets)
        + popcount((pieces >> 4) & targets)
        + popcount(((pieces & _NOT_FILE_D) << 1) & targets)
        + popcount(((pieces & _NOT_FILE_A) >> 1) & targets)
    )


def adjacent(squares: Bitboard) -> Bitboard:
    """The squares one orthogonal step from any of ``squares``."""
    return (
        squares << 4 | squares >> 4 | (squares & _NOT_FILE_D) << 1 | (squares & _NOT_FILE_A) >> 1
    ) & _ALL
