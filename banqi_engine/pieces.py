"""Pieces, colours, square states and their letters.

A ``Piece`` is an int code ``colour * 7 + kind``: red 0..6, black 7..13, with kinds
in the fixed order K G M R N C P (the letters of the rules, not a capture order).
A ``SquareState`` is a piece code or one of two more states: ``HIDDEN`` (face down,
``X``) and ``EMPTY`` (``-``).
"""

from typing import Final, TypeAlias

Colour: TypeAlias = int
"""RED or BLACK; as a side to move, also UNDECIDED."""
Kind: TypeAlias = int
"""A kind 0..6: KING, GUARD, MINISTER, ROOK, KNIGHT, CANNON, PAWN."""
Piece: TypeAlias = int
"""A piece code 0..13: ``colour * NUM_KINDS + kind``."""
SquareState: TypeAlias = int
"""What a square shows: a Piece, HIDDEN or EMPTY."""

RED: Final[Colour] = 0
BLACK: Final[Colour] = 1
UNDECIDED: Final[Colour] = 2
"""Side-to-move value before the first flip has decided the colours."""
COLOURS: Final = (RED, BLACK)

KING, GUARD, MINISTER, ROOK, KNIGHT, CANNON, PAWN = range(7)
KIND_LETTERS: Final = "KGMRNCP"
NUM_KINDS: Final = len(KIND_LETTERS)
NUM_PIECES: Final = 2 * NUM_KINDS
"""How many piece codes there are (both colours)."""

HIDDEN: Final[SquareState] = NUM_PIECES
EMPTY: Final[SquareState] = NUM_PIECES + 1

PIECE_LETTERS: Final = "KGMRNCPkgmrncp"
"""Letter of each piece code 0..13; also the pool order of the position string."""
SQUARE_LETTERS: Final = PIECE_LETTERS + "X-"
"""Letter of every square state 0..15."""

FULL_SET: Final = (1, 2, 2, 2, 2, 2, 5)
"""How many of each kind one colour has."""
FULL_POOL: Final = FULL_SET + FULL_SET
"""Face-down counts at the start, in piece-code order."""

COLOUR_NAMES: Final = ("red", "black")


def colour_of(piece: Piece) -> Colour:
    """Colour (RED or BLACK) of a piece code 0..13."""
    return piece // NUM_KINDS


def kind_of(piece: Piece) -> Kind:
    """Kind 0..6 (K G M R N C P) of a piece code 0..13."""
    return piece % NUM_KINDS


def make_piece(colour: Colour, kind: Kind) -> Piece:
    """Piece code of a colour and a kind."""
    return colour * NUM_KINDS + kind


def is_piece(state: SquareState) -> bool:
    """Whether a square state is a face-up piece (not HIDDEN, not EMPTY)."""
    return state < HIDDEN


def opponent(colour: Colour) -> Colour:
    """The other colour of RED or BLACK."""
    return colour ^ 1


def seat_colours(player: int, colour: Colour) -> tuple[Colour, Colour]:
    """The colours of players 0 and 1 once ``player`` has ``colour`` (the first flip's
    mover takes the colour of the piece it turned up, the other player the other one)."""
    return (colour, opponent(colour)) if player == 0 else (opponent(colour), colour)


def piece_from_letter(letter: str) -> Piece:
    """Piece code of a letter ``KGMRNCP`` (red) or ``kgmrncp`` (black).

    Raises ValueError for anything else.
    """
    index = PIECE_LETTERS.find(letter) if len(letter) == 1 else -1
    if index < 0:
        raise ValueError(f"{letter!r} is not a piece letter (allowed: {PIECE_LETTERS})")
    return index
