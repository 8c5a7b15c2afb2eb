"""The echo of a ply: what a driver tells both engines after each ply."""

from banqi_engine.moves import Move, is_flip, move_from, move_to
from banqi_engine.pieces import Piece
from banqi_engine.position import Position
from banqi_engine.rules import RuleSet, takes_revealed

from .messages import Command


def echo_command(pos: Position, rules: RuleSet, move: Move, piece: Piece | None) -> Command:
    """The echo of the legal ply ``move`` (with the ``piece`` it turned up, if any) about to
    be played on ``pos``: ``flip``, ``reveal_move`` for a move onto a face-down piece (with
    whether the mover captured it and went), or ``move``."""
    frm, to = move_from(move), move_to(move)
    if piece is None:
        return Command.move(frm, to)
    if is_flip(move):
        return Command.flip(frm, piece)
    return Command.reveal_move(frm, to, piece, takes_revealed(rules, pos.board[frm], piece))
