# cython: infer_types=False
# (compiled as plain Python: its bytearray slices must stay Python objects)
"""Sets of endgame positions as Python ints, one bit per placement of a material's pieces.

A material of ``n`` pieces has ``n`` slots; a placement is the square of each slot and
its index is ``s0 | s1 << 5 | s2 << 10 | ...`` (``SLOT_BITS`` bits a slot), so a set of
placements is an int of ``32 ** n`` bits. Moving the piece of slot ``i`` by ``delta``
squares adds ``delta << 5 * i`` to the index: a shift of the whole set. Whole-set
operations on ints of a million bits take tens of microseconds, which is what makes
pure-Python retrograde analysis of four pieces take a fraction of a second rather than
minutes.
Indexes where two slots share a square are not positions; ``Space.valid`` leaves them out.
"""

import sys
from array import array
from typing import Final

from .squares import NUM_FILES, NUM_RANKS, NUM_SQUARES, Bitboard, Square, square_at

SLOT_BITS: Final = 5
"""Bits of one slot (a square 0..31) in a placement index."""
DIRECTIONS: Final = ((1, 0), (-1, 0), (0, 1), (0, -1))
"""(rank step, file step) of the four orthogonal directions."""

_SPREAD_SLOT: Final = tuple(
    b"".join((b"\xff" if value >> bit & 1 else b"\x00") * 4 for bit in range(8))
    for value in range(256)
)
"""Each byte value with each bit made 32 bits (4 bytes) of that bit."""


def shift(bits: int, delta: int) -> int:
    """``bits`` with every bit moved up by ``delta`` places (down when negative)."""
    return bits << delta if delta >= 0 else bits >> -delta


def line_squares(direction: tuple[int, int], steps: int) -> Bitboard:
    """The squares from which ``steps`` steps in ``direction`` stay on the board."""
    rank_step, file_step = direction
    found = 0
    for rank in range(NUM_RANKS):
        for file in range(NUM_FILES):
            if (
                0 <= rank + steps * rank_step < NUM_RANKS
                and 0 <= file + steps * file_step < NUM_FILES
            ):
                found |= 1 << square_at(file, rank)
    return found


def square_delta(direction: tuple[int, int]) -> int:
    """How a square index changes with one step in ``direction``."""
    return direction[0] * NUM_FILES + direction[1]


def _placements(slots: int) -> int:
    """How many placements ``slots`` slots have (valid or not)."""
    return 1 << (SLOT_BITS * slots)


def _slot_bytes(slots: int, slot: int, squares: Bitboard) -> bytes:
    """As bytes (little-endian), the placements of ``slots`` slots whose piece of ``slot``
    stands on one of ``squares``."""
    if slot == 0:
        return squares.to_bytes(4, "little") * _placements(slots - 1)
    run = 4 * _placements(slot - 1)
    block = b"".join(
        (b"\xff" if squares >> square & 1 else b"\x00") * run for square in range(NUM_SQUARES)
    )
    return block * _placements(slots - 1 - slot)


class Space:
    """The placements of ``slots`` pieces, with the masks that describe them."""

    def __init__(self, slots: int) -> None:
        self.slots = slots
        self.size = _placements(slots)
        """Placement indexes (valid or not)."""
        self.full = (1 << self.size) - 1
        self._same: dict[tuple[int, int], int] = {}
        self._on: dict[tuple[int, int, tuple[int, int], int], int] = {}
        clash = 0
        for i in range(slots):
            for j in range(i + 1, slots):
                clash |= self.same(i, j)
        self.valid = self.full & ~clash
        """The placements where no two slots share a square."""

    def weight(self, slot: int) -> int:
        """How far a placement index moves when the piece of ``slot`` moves one square."""
        return 1 << (SLOT_BITS * slot)

    def slot_in(self, slot: int, squares: Bitboard) -> int:
        """The placements whose piece of ``slot`` stands on one of ``squares``."""
        return int.from_bytes(_slot_bytes(self.slots, slot, squares), "little")

    def same(self, i: int, j: int) -> int:
        """The placements (all invalid) where slots ``i`` and ``j`` share a square."""
        low, high = min(i, j), max(i, j)
        found = self._same.get((low, high))
        if found is None:
            block = b"".join(_slot_bytes(high, low, 1 << square) for square in range(NUM_SQUARES))
            data = block * _placements(self.slots - 1 - high)
            found = self._same[low, high] = int.from_bytes(data, "little")
        return found

    def on(self, i: int, k: int, direction: tuple[int, int], steps: int) -> int:
        """The placements where slot ``k`` stands ``steps`` steps from slot ``i`` in
        ``direction`` (on the same rank or file)."""
        key = (i, k, direction, steps)
        found = self._on.get(key)
        if found is None:
            start = self.same(i, k) & self.slot_in(i, line_squares(direction, steps))
            found = shift(start, steps * square_delta(direction) * self.weight(k))
            self._on[key] = found
        return found

    def forget(self) -> None:
        """Drop the cached masks (they are only needed while a table is built)."""
        self._same.clear()
        self._on.clear()

    def expand(self, smaller: int, slot: int) -> int:
        """A set of placements of one slot fewer, with ``slot`` inserted taking any square
        (the slots from ``slot`` on move up by one)."""
        data = smaller.to_bytes(self.size // NUM_SQUARES // 8, "little")
        if slot == 0:
            spread = b"".join(map(_SPREAD_SLOT.__getitem__, data))
        else:
            chunk = 4 * _placements(slot - 1)
            spread = b"".join(
                data[start : start + chunk] * NUM_SQUARES for start in range(0, len(data), chunk)
            )
        return int.from_bytes(spread, "little")


def exactly_one(sets: list[int]) -> int:
    """The members of exactly one of ``sets``."""
    once = twice = 0
    for bits in sets:
        twice |= once & bits
        once ^= bits
    return once & ~twice


_TRANSPOSE_STEPS: Final = (
    (7, 0x00AA00AA00AA00AA),
    (14, 0x0000CCCC0000CCCC),
    (28, 0x00000000F0F0F0F0),
)
"""Shifts and masks that transpose the 8x8 bit matrix of each 64-bit word (byte i, bit j
to byte j, bit i), from Hacker's Delight."""


def _transpose_bytes(planes: list[int], nbytes: int) -> bytes:
    """Byte ``p`` of the result has bit ``b`` set when bit ``p`` of ``planes[b]`` is
    (at most 8 planes of ``8 * nbytes`` bits each)."""
    rows = bytearray(8 * nbytes)
    for bit, plane in enumerate(planes):
        if plane:
            rows[bit::8] = plane.to_bytes(nbytes, "little")
    words = int.from_bytes(rows, "little")
    for distance, word_mask in _TRANSPOSE_STEPS:
        mask = int.from_bytes(word_mask.to_bytes(8, "little") * nbytes, "little")
        swap = (words ^ (words >> distance)) & mask
        words ^= swap ^ (swap << distance)
    return words.to_bytes(8 * nbytes, "little")


def spread_values(planes: list[int], size: int) -> "array[int]":
    """16-bit values, one per index below ``size``, whose bit ``b`` is in ``planes[b]``
    (at most 16 planes)."""
    lanes = bytearray(2 * size)
    for half in (0, 1):
        part = planes[8 * half : 8 * half + 8]
        if any(part):
            lanes[half::2] = _transpose_bytes(part, size // 8)
    values = array("H")
    values.frombytes(lanes)
    if sys.byteorder != "little":
        values.byteswap()
    return values


def index_of(squares: list[Square]) -> int:
    """The placement index of the squares of the slots."""
    index = 0
    for slot, square in enumerate(squares):
        index |= square << (SLOT_BITS * slot)
    return index
