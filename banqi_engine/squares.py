"""Squares of the 4x8 board, bitboards, and the geometry tables the move generator uses.

A ``Square`` is ``rank * 4 + file`` with rank 0..7 and file 0..3: a1 = 0, d1 = 3,
a2 = 4, ..., d8 = 31. A ``Bitboard`` is a set of squares, bit ``s`` for square ``s``.
"""

from typing import Final, TypeAlias

Square: TypeAlias = int
"""A square index 0..31."""
Bitboard: TypeAlias = int
"""A set of squares: bit ``s`` set for each square ``s`` in it."""

FILES: Final = "abcd"
RANKS: Final = "12345678"
NUM_FILES: Final = len(FILES)
NUM_RANKS: Final = len(RANKS)
NUM_SQUARES: Final = NUM_FILES * NUM_RANKS
ALL_SQUARES: Final[Bitboard] = (1 << NUM_SQUARES) - 1

SQUARE_NAMES: Final = tuple(f + r for r in RANKS for f in FILES)

FILE_A: Final[Bitboard] = sum(1 << (r * NUM_FILES) for r in range(NUM_RANKS))
FILE_D: Final[Bitboard] = FILE_A << (NUM_FILES - 1)


def square_at(file: int, rank: int) -> Square:
    """The square on ``file`` 0..3 (a..d) and ``rank`` 0..7 (1..8)."""
    return rank * NUM_FILES + file


def square_file(square: Square) -> int:
    """File 0..3 (a..d) of a square."""
    return square % NUM_FILES


def square_rank(square: Square) -> int:
    """Rank 0..7 (1..8) of a square."""
    return square // NUM_FILES


def square_distance(a: Square, b: Square) -> int:
    """Orthogonal steps between two squares (Manhattan distance)."""
    return abs(square_rank(a) - square_rank(b)) + abs(square_file(a) - square_file(b))


def square_name(square: Square) -> str:
    """Name like ``b6`` of a square index."""
    return SQUARE_NAMES[square]


def parse_square(text: str) -> Square:
    """Index of a square name ``a1``..``d8``; raises ValueError otherwise."""
    if len(text) == 2 and text[0] in FILES and text[1] in RANKS:
        return square_at(FILES.index(text[0]), RANKS.index(text[1]))
    raise ValueError(f"{text!r} is not a square (files a-d, ranks 1-8, e.g. b6)")


def ranks_top_down() -> range:
    """Rank indices from rank 8 down to rank 1, the order boards are written in."""
    return range(NUM_RANKS - 1, -1, -1)


def _line(square: Square, rank_step: int, file_step: int) -> tuple[Square, ...]:
    """The squares going away from ``square`` in one direction, nearest first."""
    rank, file = square_rank(square) + rank_step, square_file(square) + file_step
    found = []
    while 0 <= rank < NUM_RANKS and 0 <= file < NUM_FILES:
        found.append(square_at(file, rank))
        rank, file = rank + rank_step, file + file_step
    return tuple(found)


_DIRECTIONS: Final = ((1, 0), (-1, 0), (0, 1), (0, -1))
"""(rank step, file step) of the four orthogonal directions."""


def _neighbours(square: Square) -> tuple[Square, ...]:
    return tuple(line[0] for d in _DIRECTIONS if (line := _line(square, *d)))


def _rays(square: Square) -> tuple[tuple[Square, ...], ...]:
    return tuple(line for d in _DIRECTIONS if (line := _line(square, *d)))


NEIGHBOURS: Final = tuple(_neighbours(s) for s in range(NUM_SQUARES))
"""Orthogonally adjacent squares of each square."""
NEIGHBOUR_MASKS: Final = tuple(sum(1 << n for n in ns) for ns in NEIGHBOURS)
"""NEIGHBOURS as bitboards."""
RAYS: Final = tuple(_rays(s) for s in range(NUM_SQUARES))
"""For each square, the non-empty lines of squares going away from it, nearest first."""
CROSS_MASKS: Final = tuple(sum(1 << s for ray in rays for s in ray) for rays in RAYS)
"""For each square, every other square of its rank and file, as a bitboard."""
