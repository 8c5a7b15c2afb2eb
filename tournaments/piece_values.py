"""Piece values: the one table of what each kind of piece is worth in material figures."""

from collections.abc import Mapping
from types import MappingProxyType
from typing import Final

from banqi_engine.pieces import KIND_LETTERS, NUM_PIECES, is_piece, kind_of
from banqi_engine.position import Position

PIECE_VALUES: Final[Mapping[str, float]] = MappingProxyType(
    {"K": 6.0, "G": 5.0, "M": 4.0, "R": 3.0, "N": 2.0, "C": 4.5, "P": 1.0}
)
"""What a piece of each kind (by its letter, K G M R N C P) is worth, the values players
quote, the same for both colours. They are for figures about material only; the engine's
evaluation has weights of its own."""

_VALUE_OF_PIECE: Final = tuple(PIECE_VALUES[KIND_LETTERS[kind_of(p)]] for p in range(NUM_PIECES))


def values_text() -> str:
    """The table in words, each letter and its value: ``K 6, G 5, ...``."""
    return ", ".join(f"{letter} {value:g}" for letter, value in PIECE_VALUES.items())


def material_left(position: Position) -> float:
    """The value of every piece still in the game, face up on the board or face down."""
    on_board = sum(_VALUE_OF_PIECE[state] for state in position.board if is_piece(state))
    return on_board + sum(count * _VALUE_OF_PIECE[p] for p, count in enumerate(position.pool))
