"""Move strings: ``a2-a3`` for a move or capture, ``b6(K)`` for a flip with its piece,
``a2-a3(k)`` for a move onto a face-down piece with the piece it turned up.

The parenthesis always holds what the ply turned face up. A move onto a face-down
piece captured it (the mover now stands on ``a3``) or not (the mover stayed on
``a2`` and ``k`` stands face up on ``a3``) as the rule set decides from the two
pieces (``rules.takes_revealed``), so the string does not repeat it. A flip chosen
before its piece is known is just the square (``b6``), such a move just ``a2-a3``;
a piece that a record holds back is ``?`` (``b6(?)``, ``a2-a3(?)``). DCTP writes moves
as two squares (``a2 a3``, a flip ``b6 b6``), handled by ``protocol``.
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
    """A parsed move string: a move code, and the piece a flip or a move onto a face-down
    piece turned up, if given."""

    move: Move
    piece: Piece | None = None
    onto_face_down: bool = False
    """Written as a move onto a face-down piece (``a2-a3(k)``, ``a2-a3(?)``)."""

    @property
    def is_flip(self) -> bool:
        """Whether this ply is a flip."""
        return is_flip(self.move)

    def __str__(self) -> str:
        if self.is_flip:
            square = move_from(self.move)
            return square_name(square) if self.piece is None else format_flip(square, self.piece)
        if self.piece is not None:
            return format_reveal(self.move, self.piece)
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


def format_reveal(move: Move, piece: Piece) -> str:
    """``a2-a3(k)``: a move onto a face-down piece with the piece it turned up."""
    return f"{format_move(move)}({PIECE_LETTERS[piece]})"


def format_hidden_reveal(move: Move) -> str:
    """``a2-a3(?)``: a move onto a face-down piece whose piece is held back."""
    return f"{format_move(move)}({HIDDEN_PIECE})"


def _square(text: str, move_text: str) -> Square:
    try:
        return parse_square(text)
    except ValueError as error:
        raise MoveError(f"bad move {move_text!r}: {error}") from None


def parse_ply(text: str) -> Ply:
    """Parse ``a2-a3``, ``b6(K)``, ``a2-a3(k)``, or ``b6``, ``b6(?)``, ``a2-a3(?)`` (no
    piece); MoveError says what is wrong."""
    text = text.strip()
    squares, piece, revealed = text, None, False
    if text.endswith(")") and "(" in text:
        squares, _, rest = text[:-1].partition("(")
        revealed = True
        if rest != HIDDEN_PIECE:
            try:
                piece = piece_from_letter(rest)
            except ValueError as error:
                raise MoveError(f"bad move {text!r}: {error}") from None
    if "-" in squares:
        left, _, right = squares.partition("-")
        frm, to = _square(left, text), _square(right, text)
        if frm == to:
            raise MoveError(f"bad move {text!r}: from and to are the same square")
        return Ply(step_move(frm, to), piece, revealed)
    if len(squares) == 2:
        return Ply(flip_move(_square(squares, text)), piece)
    raise MoveError(
        f"bad move {text!r}: expected a move like a2-a3, a flip like b6(K) or b6, "
        "or a move onto a face-down piece like a2-a3(k)"
    )
