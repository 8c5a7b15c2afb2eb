"""A review of an engine's face-up play in run records: each face-up position where the
engine was to move is searched again by this project's full engine (level 3) for a short
time and for ``deep`` times as long, to see how deep such a move sees and how often more
time changes the move.

The positions are the records' own: each record is replayed on its layout, and every
``stride``-th ply of the named engine played with nothing face down is searched, with the
game's history up to it (repetitions count as in the game). The figures are by the pieces
left on the board, where the depth a search reaches changes most.
"""

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Final

from banqi_engine.game import Game
from banqi_engine.layout import parse_layout
from banqi_engine.notation import format_move, parse_ply
from banqi_engine.pieces import is_piece
from banqi_engine.search_player import SearchPlayer
from referee.record import GameRecord

PIECE_BANDS: Final = ((9, 32), (6, 8), (2, 5))
"""The bands of pieces left that the review reports, most pieces first."""


@dataclass(frozen=True)
class ReviewedMove:
    """One face-up position: the pieces left, and each search's move and depth."""

    game_id: str
    ply: int
    pieces: int
    played: str
    short_move: str
    short_depth: int
    deep_move: str
    deep_depth: int

    @property
    def agrees(self) -> bool:
        """Whether the deep search chose the short search's move."""
        return self.short_move == self.deep_move

    @property
    def played_agrees(self) -> bool:
        """Whether the deep search chose the move the engine played in the game."""
        return self.played == self.deep_move


def engine_seat(record: GameRecord, engine: str) -> int | None:
    """The seat of the player named ``engine`` in ``record`` (None: it did not play)."""
    for seat, player in enumerate(record.players):
        if player.name == engine:
            return seat
    return None


def review_record(
    record: GameRecord, seat: int, seconds: float, deep: float, stride: int
) -> Iterator[ReviewedMove]:
    """The reviewed face-up positions of ``seat`` in a complete ``record``."""
    if record.layout is None:
        return
    layout = parse_layout(record.layout)
    game = Game(record.rules)
    short = SearchPlayer(record.rules, seed=0)
    long = SearchPlayer(record.rules, seed=0)
    count = 0
    for number, ply in enumerate(record.plies):
        move = parse_ply(ply.move).move
        if ply.player == seat and not game.position.hidden:
            if count % stride == 0 and len(game.legal_moves()) > 1:
                quick = short.choose(game, seconds)
                assert short.last is not None
                slow = long.choose(game, seconds * deep)
                assert long.last is not None
                yield ReviewedMove(
                    game_id=record.game_id,
                    ply=number + 1,
                    pieces=sum(is_piece(state) for state in game.position.board),
                    played=ply.move,
                    short_move=format_move(quick),
                    short_depth=short.last.depth,
                    deep_move=format_move(slow),
                    deep_depth=long.last.depth,
                )
            count += 1
        game.play(move, game.piece_shown(move, layout))


@dataclass(frozen=True)
class BandFigures:
    """The review's figures over one band of pieces left."""

    low: int
    high: int
    positions: int
    short_depth: float
    deep_depth: float
    agreement: float
    played_agreement: float


def band_figures(moves: Sequence[ReviewedMove]) -> list[BandFigures]:
    """The figures of each band of ``PIECE_BANDS`` that holds a reviewed position."""
    bands = []
    for low, high in PIECE_BANDS:
        inside = [m for m in moves if low <= m.pieces <= high]
        if inside:
            bands.append(
                BandFigures(
                    low=low,
                    high=high,
                    positions=len(inside),
                    short_depth=sum(m.short_depth for m in inside) / len(inside),
                    deep_depth=sum(m.deep_depth for m in inside) / len(inside),
                    agreement=sum(m.agrees for m in inside) / len(inside),
                    played_agreement=sum(m.played_agrees for m in inside) / len(inside),
                )
            )
    return bands
