"""Move codes: one int per action, ``from << 5 | to``; a flip has from == to.

The move generator and the search read the two squares with raw shifts in their
hot loops; everything else goes through the helpers here.
"""

from typing import Final, TypeAlias

from .squares import Square

Move: TypeAlias = int
"""A move code: ``from_square << SQUARE_BITS | to_square``; a flip is ``square * 33``."""

SQUARE_BITS: Final = 5
"""Bits of one square in a move code."""
_TO_MASK: Final = (1 << SQUARE_BITS) - 1


def step_move(frm: Square, to: Square) -> Move:
    """The move code of moving or capturing from ``frm`` to ``to``."""
    return frm << SQUARE_BITS | to


def flip_move(square: Square) -> Move:
    """The move code of flipping ``square`` (from and to are both ``square``)."""
    return step_move(square, square)


def move_from(move: Move) -> Square:
    """The square a move leaves (for a flip: the flipped square)."""
    return move >> SQUARE_BITS


def move_to(move: Move) -> Square:
    """The square a move goes to (for a flip: the flipped square)."""
    return move & _TO_MASK


def is_flip(move: Move) -> bool:
    """Whether a move code is a flip (from and to are the same square)."""
    return move >> SQUARE_BITS == move & _TO_MASK
