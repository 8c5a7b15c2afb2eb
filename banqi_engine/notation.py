"""Move strings: ``a2-a3`` for a move or capture, ``b6(K)`` for a flip with its piece.

A flip chosen before its piece is known is just the square (``b6``); a flip whose
piece a record holds back is ``b6(?)``. DCTP writes moves as two squares
(``a2 a3``, a flip ``b6 b6``), handled by ``protocol``.
"""

from dataclasses import dataclass
from typing import Final

from .errors import MoveError
from .moves import Move, flip_move, is_flip, move_from, move_to, step_move
from .pieces import PIECE_LETTERS, Piece, piece_from_letter
from .squares import Square, parse_square, square_name

HIDDEN_PIECE: Final = "?"
"""What a flip shows in place of its piece while the piece is held back: ``b6(?)``."""


@dataclass(frozen=True, slots=True)
class Ply:
    """A parsed move string: a move code, and the revealed piece of a flip if given."""

    move: Move
    piece: Piece | None = None

    @property
    def is_flip(self) -> bool:
        """Whether this ply turns a square face up."""
        return is_flip(self.move)

    def __str__(self) -> str:
        if self.is_flip:
            square = move_from(self.move)
            return square_name(square) if self.piece is None else format_flip(square, self.piece)
        return format_move(self.move)


def format_move(move: Move) -> str:
    """``a2-a3`` for a move code; a flip code gives just its square."""
    frm, to = move_from(move), move_to(move)
    if frm == to:
        return square_name(frm)
    return f"{square_name(frm)}-{square_name(to)}"


def format_flip(square: Square, piece: Piece) -> str:
    """``b6(K)``: a flip with the piece it revealed."""
    return f"{square_name(square)}({PIECE_LETTERS[piece]})"


def format_hidden_flip(square: Square) -> str:
    """``b6(?)``: a flip whose piece is held back."""
    return f"{square_name(square)}({HIDDEN_PIECE})"


def _square(text: str, move_text: str) -> Square:
    try:
        return parse_square(text)
    except ValueError as error:
        raise MoveError(f"bad move {move_text!r}: {error}") from None


def parse_ply(text: str) -> Ply:
    """Parse ``a2-a3``, ``b6(K)``, or ``b6`` or ``b6(?)`` (no piece); MoveError says what
    is wrong."""
    text = text.strip()
    if "-" in text:
        left, _, right = text.partition("-")
        frm, to = _square(left, text), _square(right, text)
        if frm == to:
            raise MoveError(f"bad move {text!r}: from and to are the same square")
        return Ply(step_move(frm, to))
    if text.endswith(")") and "(" in text:
        left, _, rest = text.partition("(")
        square = _square(left, text)
        if rest[:-1] == HIDDEN_PIECE:
            return Ply(flip_move(square))
        try:
            piece = piece_from_letter(rest[:-1])
        except ValueError as error:
            raise MoveError(f"bad flip {text!r}: {error}") from None
        return Ply(flip_move(square), piece)
    if len(text) == 2:
        return Ply(flip_move(_square(text, text)))
    raise MoveError(f"bad move {text!r}: expected a move like a2-a3 or a flip like b6(K) or b6")
