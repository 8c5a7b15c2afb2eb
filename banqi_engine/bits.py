"""Bit tricks of the hot loops: the lowest square of a bitboard, and its square count.

In the compiled build the hot modules use the C versions of ``cbits.pxd`` (one CPU
instruction each) in their place, by the same names (see ``docs/development.md``).
"""

from .squares import Bitboard, Square


def low_square(squares: Bitboard) -> Square:
    """The lowest square of a non-empty bitboard."""
    return (squares & -squares).bit_length() - 1


popcount = int.bit_count
"""How many squares a bitboard holds (int.bit_count itself: no Python call around it)."""
