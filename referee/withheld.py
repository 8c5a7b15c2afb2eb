"""A record with its deal held back (``withhold``), and the same record completed (``complete``).

While another game of its deal has not ended, a game's record must not show the layout:
``withhold`` drops the deal secret and the layout, writes every flip as ``b6(?)`` and every
move onto a face-down piece as ``a2-a3(?)`` (whether it took the piece is withheld too, as
it tells something of the piece), and cuts an illegal move's ``detail`` to the move once a
piece has been turned up (the referee's words on why it was illegal may name a face-up
piece; before any, they name none). ``complete`` puts everything back from the deal: the
shuffle of its secret, or its deal book entry. Either one is a record of other content,
without the MAC the record had (``referee.macs``): its writer MACs it again.
"""

from collections.abc import Sequence
from typing import Final

from banqi_engine.layout import format_layout
from banqi_engine.moves import move_from, move_to
from banqi_engine.notation import (
    Ply,
    format_hidden_flip,
    format_hidden_reveal,
    parse_ply,
)
from banqi_engine.pieces import Piece

from .deals import Deal, dealt
from .reasons import Reason
from .record import GameRecord, PlyRecord

DETAIL_WITHHELD: Final = "why it was illegal is withheld with the layout"
"""What a withheld record says in place of the referee's words on an illegal move."""


def withhold(record: GameRecord) -> GameRecord:
    """``record`` as it may be written while another game of its deal has not ended."""
    detail = record.detail
    if record.reason is Reason.ILLEGAL_MOVE and any(_turns_up(ply.move) for ply in record.plies):
        detail = f"{detail.partition(': ')[0]}: {DETAIL_WITHHELD}"
    plies = withhold_plies(record.plies)
    return GameRecord(
        **{
            **dict(record),
            "withheld": True,
            "deal_secret": None,
            "layout": None,
            "plies": plies,
            "detail": detail,
            "mac": None,
        }
    )


def complete(record: GameRecord, deal: Deal | str, detail: str | None = None) -> GameRecord:
    """A withheld ``record`` with its ``deal`` (a Deal, or the secret it is the shuffle of)
    revealed: the secret if known, the layout and every flip's piece; ``detail`` is the
    original detail, if the referee still has it."""
    revealed = dealt(deal)
    layout = revealed.layout
    plies = [_with_move(ply, _reveal(ply.move, layout)) for ply in record.plies]
    return GameRecord(
        **{
            **dict(record),
            "withheld": False,
            "deal_book": revealed.book,
            "deal_secret": revealed.secret,
            "layout": format_layout(layout),
            "plies": plies,
            "detail": record.detail if detail is None else detail,
            "mac": None,
        }
    )


def withhold_plies(plies: Sequence[PlyRecord]) -> list[PlyRecord]:
    """``plies`` with every flip as ``b6(?)`` and every move onto a face-down piece as
    ``a2-a3(?)``: what may be shown of a game while another game of its deal has not
    ended."""
    return [_with_move(ply, hide_move(ply.move)) for ply in plies]


def _with_move(ply: PlyRecord, move: str) -> PlyRecord:
    return ply.model_copy(update={"move": move})


def _turns_up(move: str) -> bool:
    """Whether a ply turned a piece up (a flip, a move onto a face-down piece): until one
    has, the referee's words on an illegal move can name no piece, and are kept."""
    ply = parse_ply(move)
    return ply.is_flip or ply.onto_face_down


def hide_move(move: str) -> str:
    """A flip as ``b6(?)``, a move onto a face-down piece as ``a2-a3(?)``; a move as it is
    (one ply of ``withhold_plies``)."""
    ply = parse_ply(move)
    if ply.is_flip:
        return format_hidden_flip(move_from(ply.move))
    return format_hidden_reveal(ply.move) if ply.onto_face_down else move


def _reveal(move: str, layout: list[Piece]) -> str:
    """A flip, or a move onto a face-down piece, with the piece the layout has under its
    square; a move as it is."""
    ply = parse_ply(move)
    if ply.is_flip:
        return str(Ply(ply.move, layout[move_from(ply.move)]))
    if ply.onto_face_down:
        return str(Ply(ply.move, layout[move_to(ply.move)]))
    return move
