"""Squares of the 4x8 board and the geometry tables the move generator uses.

Square index is ``(rank - 1) * 4 + file``: a1 = 0, d1 = 3, a2 = 4, ..., d8 = 31.
"""

from typing import Final

FILES: Final = "abcd"
RANKS: Final = "12345678"
NUM_SQUARES: Final = 32
ALL_SQUARES: Final = (1 << NUM_SQUARES) - 1

SQUARE_NAMES: Final = tuple(f + r for r in RANKS for f in FILES)

FILE_A: Final = sum(1 << (r * 4) for r in range(8))
FILE_D: Final = FILE_A << 3


def square_name(square: int) -> str:
    """Name like ``b6`` of a square index."""
    return SQUARE_NAMES[square]


def parse_square(text: str) -> int:
    """Index of a square name ``a1``..``d8``; raises ValueError otherwise."""
    if len(text) == 2 and text[0] in FILES and text[1] in RANKS:
        return (int(text[1]) - 1) * 4 + FILES.index(text[0])
    raise ValueError(f"{text!r} is not a square (files a-d, ranks 1-8, e.g. b6)")


def _neighbours(square: int) -> tuple[int, ...]:
    rank, file = divmod(square, 4)
    found = []
    for dr, df in ((1, 0), (-1, 0), (0, 1), (0, -1)):
        r, f = rank + dr, file + df
        if 0 <= r < 8 and 0 <= f < 4:
            found.append(r * 4 + f)
    return tuple(found)


def _rays(square: int) -> tuple[tuple[int, ...], ...]:
    rank, file = divmod(square, 4)
    rays = []
    for dr, df in ((1, 0), (-1, 0), (0, 1), (0, -1)):
        ray = []
        r, f = rank + dr, file + df
        while 0 <= r < 8 and 0 <= f < 4:
            ray.append(r * 4 + f)
            r, f = r + dr, f + df
        if ray:
            rays.append(tuple(ray))
    return tuple(rays)


NEIGHBOURS: Final = tuple(_neighbours(s) for s in range(NUM_SQUARES))
"""Orthogonally adjacent squares of each square."""
NEIGHBOUR_MASKS: Final = tuple(sum(1 << n for n in ns) for ns in NEIGHBOURS)
"""NEIGHBOURS as bitboards."""
RAYS: Final = tuple(_rays(s) for s in range(NUM_SQUARES))
"""For each square, the non-empty lines of squares going away from it, nearest first."""
CROSS_MASKS: Final = tuple(sum(1 << s for ray in rays for s in ray) for rays in RAYS)
"""For each square, every other square of its rank and file, as a bitboard."""


def iter_bits(bitboard: int) -> list[int]:
    """Square indices of the set bits of a bitboard, lowest first."""
    found = []
    while bitboard:
        low = bitboard & -bitboard
        found.append(low.bit_length() - 1)
        bitboard ^= low
    return found
