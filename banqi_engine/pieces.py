"""Pieces, colours and their letters.

A piece is an int code ``colour * 7 + kind``: red 0..6, black 7..13, with kinds in
the fixed order K G M R N C P (the letters of the rules, not a capture order).
Two more square states exist on a board: ``HIDDEN`` (face down, ``X``) and
``EMPTY`` (``-``).
"""

from typing import Final

RED: Final = 0
BLACK: Final = 1
UNDECIDED: Final = 2
"""Side-to-move value before the first flip has decided the colours."""

KING, GUARD, MINISTER, ROOK, KNIGHT, CANNON, PAWN = range(7)
KIND_LETTERS: Final = "KGMRNCP"
KIND_NAMES: Final = ("king", "guard", "minister", "rook", "knight", "cannon", "pawn")

HIDDEN: Final = 14
EMPTY: Final = 15

PIECE_LETTERS: Final = "KGMRNCPkgmrncp"
"""Letter of each piece code 0..13; also the pool order of the position string."""
SQUARE_LETTERS: Final = PIECE_LETTERS + "X-"
"""Letter of every square state 0..15."""

FULL_SET: Final = (1, 2, 2, 2, 2, 2, 5)
"""How many of each kind one colour has."""
FULL_POOL: Final = FULL_SET + FULL_SET
"""Face-down counts at the start, in piece-code order."""

COLOUR_NAMES: Final = ("red", "black")

RED_CHINESE: Final = "帥仕相俥傌炮兵"
BLACK_CHINESE: Final = "將士象車馬砲卒"


def colour_of(piece: int) -> int:
    """Colour (RED or BLACK) of a piece code 0..13."""
    return piece // 7


def kind_of(piece: int) -> int:
    """Kind 0..6 (K G M R N C P) of a piece code 0..13."""
    return piece % 7


def make_piece(colour: int, kind: int) -> int:
    """Piece code of a colour and a kind."""
    return colour * 7 + kind


def piece_from_letter(letter: str) -> int:
    """Piece code of a letter ``KGMRNCP`` (red) or ``kgmrncp`` (black).

    Raises ValueError for anything else.
    """
    index = PIECE_LETTERS.find(letter) if len(letter) == 1 else -1
    if index < 0:
        raise ValueError(f"{letter!r} is not a piece letter (allowed: {PIECE_LETTERS})")
    return index


def chinese_label(piece: int) -> str:
    """The Chinese character of a piece code, for display."""
    return (RED_CHINESE if colour_of(piece) == RED else BLACK_CHINESE)[kind_of(piece)]
