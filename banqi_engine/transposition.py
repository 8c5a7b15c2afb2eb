"""The search's transposition table: its keys, its entries' flags, and mate scores.

The table is a dict keyed by ``Position.hash`` XOR a key of the face-down pool
(the same board can be reached with different pools after flips and captures).
Its entries are (depth, flag, score, best move). A mate is scored by its distance
from the root, so a score is stored relative to the node (``to_tt``) and read back
relative to the root (``from_tt``).
"""

import random
from typing import Final

from .pieces import FULL_POOL, NUM_PIECES
from .position import ZOBRIST_BITS

MATE: Final = 100_000.0
"""A side to move with no legal action ``ply`` plies below the root scores
``-MATE + ply`` (the sooner the win, the higher its score)."""
MATE_THRESHOLD: Final = MATE - 1_000.0
"""Scores beyond this, either way, are mates."""
TT_MAX_ENTRIES: Final = 1_000_000
"""The table is cleared before a search once it holds more entries than this."""

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
