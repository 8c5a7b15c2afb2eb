"""The search's transposition table: its keys, its entries' flags, and mate scores.

The table is keyed by ``Position.hash`` XOR a key of the face-down pool (the same
board can be reached with different pools after flips and captures). It has a fixed
number of slots, a key's slot given by its low bits; a slot holds one entry, (key,
depth, flag, score, best move), replaced by every store there. A mate is scored by
its distance from the root, so a score is stored relative to the node (``to_tt``)
and read back relative to the root (``from_tt``).
"""

import random
from array import array
from typing import Final

from .pieces import FULL_POOL, NUM_PIECES
from .position import ZOBRIST_BITS

MATE: Final = 100_000.0
"""A side to move with no legal action ``ply`` plies below the root scores
``-MATE + ply`` (the sooner the win, the higher its score)."""
MATE_THRESHOLD: Final = MATE - 1_000.0
"""Scores beyond this, either way, are mates."""
TT_BITS: Final = 20
"""The table has ``2 ** TT_BITS`` slots (24 MiB: a key, a packed entry and a score each)."""

EXACT: Final = 0
"""Entry flag: the stored score is the node's value."""
LOWER: Final = 1
"""Entry flag: the stored score is a lower bound (the search cut off)."""
UPPER: Final = 2
"""Entry flag: the stored score is an upper bound (no move raised alpha)."""

_rng = random.Random(0x5EA2C)
POOL_KEYS: Final = tuple(
    tuple(_rng.getrandbits(ZOBRIST_BITS) for _ in range(max(FULL_POOL) + 1))
    for _ in range(NUM_PIECES)
)
"""Key of each (piece code, face-down count) pair; a pool's key XORs one per code
(``ZOBRIST_BITS`` wide, as the position's keys, so that table keys stay that wide)."""
del _rng
POOL_STEPS: Final = [
    POOL_KEYS[piece][count] ^ POOL_KEYS[piece][count - 1] if count else 0
    for piece in range(NUM_PIECES)
    for count in range(6)
]
"""The change of a pool's key as one piece code's face-down count drops from ``count``,
piece * 6 + count (a C array in the compiled build)."""


def pool_key(pool: list[int]) -> int:
    """The Zobrist key of a face-down pool."""
    key = 0
    for piece, count in enumerate(pool):
        key ^= POOL_KEYS[piece][count]
    return key


def to_tt(score: float, ply: int) -> float:
    """A score at ``ply`` as stored: a mate's distance counted from the node."""
    if score > MATE_THRESHOLD:
        return score + ply
    if score < -MATE_THRESHOLD:
        return score - ply
    return score


def from_tt(score: float, ply: int) -> float:
    """A stored score read at ``ply``: a mate's distance counted from the root."""
    if score > MATE_THRESHOLD:
        return score - ply
    if score < -MATE_THRESHOLD:
        return score + ply
    return score


class TranspositionTable:
    """Search results by key in ``2 ** bits`` slots (arrays: C-speed in the compiled build).

    A slot's packed entry is ``depth << 16 | flag << 12 | (move + 1)``, 0 while empty (a
    stored depth is at least 1).
    """

    def __init__(self, bits: int = TT_BITS) -> None:
        size = 1 << bits
        self.mask = size - 1
        self.keys = array("q", bytes(8 * size))
        self.packed = array("q", bytes(8 * size))
        self.scores = array("d", bytes(8 * size))

    def find(self, key: int) -> int:
        """The slot holding ``key``'s entry, or -1."""
        slot = key & self.mask
        if self.packed[slot] and self.keys[slot] == key:
            return slot
        return -1

    def store(self, key: int, depth: int, flag: int, score: float, move: int) -> None:
        """Keep an entry for ``key`` (in place of whatever its slot held)."""
        slot = key & self.mask
        self.keys[slot] = key
        self.packed[slot] = depth << 16 | flag << 12 | (move + 1)
        self.scores[slot] = score

    def depth(self, slot: int) -> int:
        """The depth of the entry in ``slot``."""
        return self.packed[slot] >> 16

    def flag(self, slot: int) -> int:
        """The flag (EXACT, LOWER or UPPER) of the entry in ``slot``."""
        return self.packed[slot] >> 12 & 3

    def move(self, slot: int) -> int:
        """The best move of the entry in ``slot`` (-1 for none)."""
        return (self.packed[slot] & 4095) - 1

    def score(self, slot: int) -> float:
        """The stored score of the entry in ``slot``."""
        return self.scores[slot]
