"""The hidden layout: which piece lies under each face-down square.

Only the referee knows it. It is written as the board field of a position string
(8 groups of 4 piece letters, rank 8 first).
"""

import random

from .errors import PositionError
from .pieces import FULL_POOL, NUM_PIECES, PIECE_LETTERS, Piece, is_piece
from .position import board_field, parse_board_field


def random_layout(rng: random.Random) -> list[Piece]:
    """A uniformly shuffled full set of 32 pieces, one per square."""
    pieces = [piece for piece in range(NUM_PIECES) for _ in range(FULL_POOL[piece])]
    rng.shuffle(pieces)
    return pieces


def format_layout(layout: list[Piece]) -> str:
    """The layout as a board field, e.g. ``kgCP/...``."""
    return board_field(layout)


def parse_layout(text: str) -> list[Piece]:
    """Parse a layout board field: 32 piece letters making up exactly one full set."""
    layout = parse_board_field(text, what="layout")
    if not all(is_piece(state) for state in layout):
        raise PositionError("layout: every square must hold a piece letter (no X or -)")
    for piece in range(NUM_PIECES):
        if layout.count(piece) != FULL_POOL[piece]:
            raise PositionError(
                f"layout: {layout.count(piece)} {PIECE_LETTERS[piece]!r}, a full set has "
                f"{FULL_POOL[piece]}"
            )
    return layout
