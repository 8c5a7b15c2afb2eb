"""The hidden layout: which piece lies under each face-down square.

Only the referee knows it. It is written as the board field of a position string
(8 groups of 4 piece letters, rank 8 first).
"""

import random

from .errors import PositionError
from .pieces import FULL_POOL, HIDDEN, PIECE_LETTERS
from .position import board_field, parse_board_field


def random_layout(rng: random.Random) -> list[int]:
    """A uniformly shuffled full set of 32 pieces, one per square."""
    pieces = [code for code in range(14) for _ in range(FULL_POOL[code])]
    rng.shuffle(pieces)
    return pieces


def format_layout(layout: list[int]) -> str:
    """The layout as a board field, e.g. ``kgCP/...``."""
    return board_field(layout)


def parse_layout(text: str) -> list[int]:
    """Parse a layout board field: 32 piece letters making up exactly one full set."""
    layout = parse_board_field(text, what="layout")
    if any(state >= HIDDEN for state in layout):
        raise PositionError("layout: every square must hold a piece letter (no X or -)")
    for code in range(14):
        if layout.count(code) != FULL_POOL[code]:
            raise PositionError(
                f"layout: {layout.count(code)} {PIECE_LETTERS[code]!r}, a full set has "
                f"{FULL_POOL[code]}"
            )
    return layout
