"""Public views of a position: its squares as letters, the legal actions, captured pieces.

A board is sent as 32 letters in square order (a1, b1, c1, d1, a2, ... d8): a piece
letter, ``X`` face down, ``-`` empty (and, in a withheld record, ``?`` face up but
unknown, ``~`` face up or empty: the square a move onto a face-down piece left, whether it
took the piece withheld). Nothing here ever looks at a hidden layout.
"""

from typing import Literal

from typing_extensions import TypedDict  # pydantic needs it before Python 3.12

from banqi_engine.game import Game
from banqi_engine.moves import Move, is_flip, move_from, move_to
from banqi_engine.notation import Ply
from banqi_engine.pieces import (
    COLOUR_NAMES,
    HIDDEN,
    PIECE_LETTERS,
    SQUARE_LETTERS,
    colour_of,
    is_piece,
)
from banqi_engine.position import Position
from banqi_engine.rules import RuleSet, takes_revealed
from banqi_engine.squares import square_distance, square_name

ActionKind = Literal["flip", "move", "capture", "jump", "reveal"]


class PageAction(TypedDict):
    """One legal action from a square: where it goes and what it is."""

    to: str
    kind: ActionKind


class Captured(TypedDict):
    """Pieces taken so far, by the colour of the piece taken."""

    red: str
    black: str


def board_letters(position: Position) -> str:
    """The 32 square letters of a position, a1 first."""
    return "".join(SQUARE_LETTERS[state] for state in position.board)


def action_kind(position: Position, move: Move) -> ActionKind:
    """A flip, a move, a capture by a step, a capture from further away (a cannon's
    jump), or a move onto a face-down piece (``reveal``: it is turned up, and taken if the
    mover may)."""
    if is_flip(move):
        return "flip"
    frm, to = move_from(move), move_to(move)
    if position.board[to] == HIDDEN:
        return "reveal"
    if not is_piece(position.board[to]):
        return "move"
    return "capture" if square_distance(frm, to) == 1 else "jump"


def legal_actions(game: Game) -> dict[str, list[PageAction]]:
    """Every legal action of the side to move, by the square it starts from."""
    actions: dict[str, list[PageAction]] = {}
    for move in game.legal_moves():
        kind = action_kind(game.position, move)
        actions.setdefault(square_name(move_from(move)), []).append(
            PageAction(to=square_name(move_to(move)), kind=kind)
        )
    return actions


def taken_piece(position: Position, ply: Ply, rules: RuleSet) -> str | None:
    """The letter of the piece ``ply`` captures in ``position`` under ``rules``, if it
    captures one: a face-up piece, or the piece a move onto a face-down piece turned up if
    the mover takes it (unknown, so None, when the ply does not show it: ``a2-a3(?)``)."""
    if ply.is_flip:
        return None
    frm, to = move_from(ply.move), move_to(ply.move)
    state = position.board[to]
    if state == HIDDEN:
        mover = position.board[frm]
        if ply.piece is None or not is_piece(mover):
            return None
        return PIECE_LETTERS[ply.piece] if takes_revealed(rules, mover, ply.piece) else None
    return PIECE_LETTERS[state] if is_piece(state) else None


def add_taken(captured: Captured, letter: str | None) -> Captured:
    """``captured`` with one more piece taken (unchanged for None)."""
    if letter is None:
        return captured
    colour = COLOUR_NAMES[colour_of(PIECE_LETTERS.index(letter))]
    updated = Captured(red=captured["red"], black=captured["black"])
    updated["red" if colour == "red" else "black"] += letter
    return updated


def no_captures() -> Captured:
    """The strips at the start of a game."""
    return Captured(red="", black="")
