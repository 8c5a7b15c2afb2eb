"""Openings of deal-book entries: plies played from an entry's layout before either player is
asked for a move, so that a run starts where the games worth testing are (the last flip, say,
to test the face-up endgame alone). An opening is checked under a run's rules before its first
game (``opening_problem``) and cut from the records of earlier runs by ``banqi deals --from``
(``opening_of``)."""

from collections.abc import Sequence
from typing import Final, Literal

from banqi_engine.errors import MoveError
from banqi_engine.game import Game
from banqi_engine.layout import parse_layout
from banqi_engine.notation import parse_ply
from banqi_engine.pieces import PIECE_LETTERS, Piece
from banqi_engine.rules import RuleSet
from banqi_engine.squares import square_name

from .record import GameRecord

LAST_FLIP: Final = "last-flip"
"""The cut of an opening right after the ply that left no piece face down."""

OpeningCut = Literal["last-flip"] | int
"""Where ``opening_of`` cuts a game: after its last flip, or after that many plies."""


def opening_problem(layout: Sequence[Piece], opening: Sequence[str], rules: RuleSet) -> str | None:
    """Why ``opening`` cannot be played from ``layout`` under ``rules`` (a ply that does not
    read, is illegal, shows another piece than the layout holds, or ends the game), or None."""
    game = Game(rules)
    for number, text in enumerate(opening, start=1):
        try:
            ply = parse_ply(text)
            shown = game.piece_shown(ply.move, layout)
            if ply.piece is not None and shown is not None and ply.piece != shown:
                square = game.position.reveal_square(ply.move)
                assert square is not None  # it shows a piece
                raise MoveError(
                    f"it shows {PIECE_LETTERS[ply.piece]!r}, but the layout holds "
                    f"{PIECE_LETTERS[shown]!r} at {square_name(square)}"
                )
            game.play(ply.move, shown if shown is not None else ply.piece)
        except MoveError as error:
            return f"ply {number} ({text}): {error}"
        if game.outcome is not None:
            return (
                f"ply {number} ({text}) ends the game ({game.outcome.description}): an "
                "opening must leave a game to play"
            )
    return None


def opening_of(record: GameRecord, cut: OpeningCut) -> list[str] | None:
    """The first plies of ``record``'s game up to ``cut``, as written, or None when the game
    ended before the cut or at it (nothing would be left to play). The record is complete
    (it has its layout) and replays (``referee.replay``)."""
    assert record.layout is not None, "a withheld record has no layout to open from"
    if cut == LAST_FLIP:
        layout = parse_layout(record.layout)
        game = Game(record.rules)
        cut_at = None
        for number, ply_record in enumerate(record.plies, start=1):
            move = parse_ply(ply_record.move).move
            game.play(move, game.piece_shown(move, layout))
            if not game.position.hidden:
                cut_at = number
                break
        if cut_at is None:
            return None
    else:
        cut_at = cut
    if cut_at >= len(record.plies):
        return None
    return [ply.move for ply in record.plies[:cut_at]]
