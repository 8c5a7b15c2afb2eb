"""A game in progress: plies applied with their legality checked, history, and the end.

After every ply the end is checked in the order of the rules: the side to move has
no legal action (it loses), the position occurs for the ``repetition_count``-th
time (draw), the no-progress counter reaches the rule set's limit (draw). A game
made with ``play_past_end`` (an engine's, whose driver decides when the game ends)
still notes that end but goes on taking legal plies after it.
"""

from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum

from .errors import MoveError
from .movegen import generate_moves, has_legal_move
from .moves import Move, is_flip, move_from, move_to
from .notation import Ply, format_flip, format_hidden_reveal, format_move, format_reveal
from .pieces import (
    COLOUR_NAMES,
    EMPTY,
    HIDDEN,
    NUM_KINDS,
    PIECE_LETTERS,
    UNDECIDED,
    Colour,
    Piece,
    colour_of,
    is_piece,
    opponent,
)
from .position import Position
from .rules import RuleSet, takes_revealed
from .squares import NEIGHBOURS, square_name


class BoardEnd(StrEnum):
    """How the rules end a game on the board (the reason codes of a record)."""

    NO_LEGAL_MOVE = "no-legal-move"
    THREEFOLD_REPETITION = "threefold-repetition"
    NO_PROGRESS = "no-progress"


@dataclass(frozen=True, slots=True)
class Outcome:
    """The end of a game: the winning colour (None for a draw) and why, in words
    (``red wins: black has no pieces left``); ``also_said``: words records have used for
    the same end before (``black has no legal move``, for a side with no piece left)."""

    winner: Colour | None
    reason: BoardEnd
    description: str
    also_said: tuple[str, ...] = ()

    @property
    def why(self) -> str:
        """The description's reason alone: ``black has no pieces left``."""
        return self.description.partition(": ")[2]


def no_legal_move_words(loser: str, has_pieces: bool) -> str:
    """Why the side to move lost for want of a legal action: it has no piece left (every
    one captured), or its pieces cannot move and nothing is left to flip. The one home of
    these words: records, the command line and the board all say them."""
    return f"{loser} has no legal move" if has_pieces else f"{loser} has no pieces left"


class Game:
    """Plies applied to a position under one rule set, with the history the draw rules need."""

    def __init__(
        self, rules: RuleSet, position: Position | None = None, *, play_past_end: bool = False
    ) -> None:
        """``play_past_end``: legal plies are taken after the rules have ended the game."""
        self.rules = rules
        self.play_past_end = play_past_end
        self.position = position.copy() if position is not None else Position.opening()
        self.start = self.position.copy()
        self.plies: list[Ply] = []
        self.first_colour: Colour | None = None
        """Colour taken by the player who made the first flip (None until then)."""
        self._seen: dict[bytes, int] = {self.position.key(): 1}
        self.outcome: Outcome | None = None
        self.outcome = self._check_end()

    @property
    def side(self) -> Colour:
        """Colour to move (RED, BLACK or UNDECIDED)."""
        return self.position.side

    def legal_moves(self) -> list[Move]:
        """Every legal action of the side to move (a flip as ``flip_move(square)``)."""
        return generate_moves(self.position, self.rules)

    def piece_shown(self, move: Move, layout: Sequence[Piece]) -> Piece | None:
        """The piece ``layout`` holds under the face-down square ``move`` turns up (a flip,
        or a move onto a face-down piece), or None if ``move`` turns nothing up."""
        square = self.position.reveal_square(move)
        return None if square is None else layout[square]

    def check(self, move: Move, piece: Piece | None = None) -> None:
        """Raise MoveError saying why ``move`` (with ``piece`` for a flip or a move onto a
        face-down piece) cannot be played."""
        pos = self.position
        if self.outcome is not None and not self.play_past_end:
            raise MoveError(f"the game is over ({self.outcome.description})")
        if not is_flip(move) and pos.reveal_square(move) is not None:
            self._check_reveal(move, piece)
            return
        if not is_flip(move) and piece is not None:
            raise MoveError(
                f"{format_reveal(move, piece)} moves onto a face-down piece, but "
                f"{square_name(move_to(move))} is not face down"
            )
        if is_flip(move):
            square = move_from(move)
            if pos.board[square] != HIDDEN:
                raise MoveError(f"cannot flip {square_name(square)}: it is not face down")
            if piece is None:
                raise MoveError(f"flip of {square_name(square)} needs the piece it revealed")
            if not pos.pool[piece]:
                raise MoveError(
                    f"flip {format_flip(square, piece)}: no {PIECE_LETTERS[piece]!r} "
                    "is left face down"
                )
            return
        if move not in generate_moves(pos, self.rules):
            raise MoveError(f"illegal move {format_move(move)}: {self._why_illegal(move)}")

    def _check_reveal(self, move: Move, piece: Piece | None) -> None:
        """``check`` for a step onto a face-down square."""
        pos = self.position
        if move not in generate_moves(pos, self.rules):
            raise MoveError(f"illegal move {format_move(move)}: {self._why_illegal(move)}")
        if piece is None:
            raise MoveError(
                f"move {format_move(move)} onto a face-down piece needs the piece it revealed"
            )
        if not pos.pool[piece]:
            raise MoveError(
                f"move {format_reveal(move, piece)}: no {PIECE_LETTERS[piece]!r} is left face down"
            )

    def _why_illegal(self, move: Move) -> str:
        pos = self.position
        frm, to = move_from(move), move_to(move)
        state = pos.board[frm]
        if pos.side == UNDECIDED:
            return "colours are not decided yet, only a flip is allowed"
        if state == EMPTY:
            return f"{square_name(frm)} is empty"
        if state == HIDDEN:
            return f"{square_name(frm)} is face down"
        if colour_of(state) != pos.side:
            return f"the piece on {square_name(frm)} is not {COLOUR_NAMES[pos.side]}'s"
        target = pos.board[to]
        if target == HIDDEN:
            if not self.rules.move_onto_face_down:
                return (
                    f"{square_name(to)} is face down and cannot be taken (the rule set "
                    f"{self.rules.name!r} does not allow moving onto a face-down piece)"
                )
            if to not in NEIGHBOURS[frm]:
                return f"{square_name(to)} is face down and not next to {square_name(frm)}"
            return (
                f"{PIECE_LETTERS[state]} captures only by jumping, so it may not move onto a "
                "face-down piece (a flip turns it up)"
            )
        if is_piece(target) and colour_of(target) == pos.side:
            return f"{square_name(to)} holds a piece of the mover's own colour"
        return f"{PIECE_LETTERS[state]} cannot go from {square_name(frm)} to {square_name(to)}"

    def play(self, move: Move, piece: Piece | None = None) -> Outcome | None:
        """Check and apply one ply; return the outcome if the game ended with it."""
        self.check(move, piece)
        pos = self.position
        if is_flip(move):
            assert piece is not None
            if self.first_colour is None and pos.side == UNDECIDED:
                self.first_colour = colour_of(piece)
            pos.make_flip(move_from(move), piece)
            self._seen.clear()
        elif pos.reveal_square(move) is not None:
            assert piece is not None
            mover = pos.board[move_from(move)]
            pos.make_reveal(move, piece, takes_revealed(self.rules, mover, piece))
            self._seen.clear()
        else:
            captured = pos.board[move_to(move)] != EMPTY
            pos.make_move(move)
            if captured:
                self._seen.clear()
        self.plies.append(Ply(move, piece))
        key = pos.key()
        self._seen[key] = self._seen.get(key, 0) + 1
        self.outcome = self._check_end()
        return self.outcome

    def play_ply(self, ply: Ply) -> Outcome | None:
        """``play`` for a parsed move string (one written as a move onto a face-down piece,
        ``a2-a3(?)`` too, is refused where ``a3`` is not face down)."""
        if ply.onto_face_down and self.position.reveal_square(ply.move) is None:
            text = format_hidden_reveal(ply.move) if ply.piece is None else str(ply)
            raise MoveError(
                f"{text} moves onto a face-down piece, but "
                f"{square_name(move_to(ply.move))} is not face down"
            )
        return self.play(ply.move, ply.piece)

    def _check_end(self) -> Outcome | None:
        pos = self.position
        rules = self.rules
        if not has_legal_move(pos, rules):
            loser = pos.side
            winner = opponent(loser) if loser != UNDECIDED else None
            if winner is None:
                return Outcome(None, BoardEnd.NO_LEGAL_MOVE, "draw: nobody can move")
            has_pieces = bool(pos.colour_bb[loser]) or any(
                pos.pool[piece] for piece in range(loser * NUM_KINDS, loser * NUM_KINDS + NUM_KINDS)
            )
            words = no_legal_move_words(COLOUR_NAMES[loser], has_pieces)
            former = no_legal_move_words(COLOUR_NAMES[loser], True)
            return Outcome(
                winner,
                BoardEnd.NO_LEGAL_MOVE,
                f"{COLOUR_NAMES[winner]} wins: {words}",
                () if has_pieces else (f"{COLOUR_NAMES[winner]} wins: {former}",),
            )
        if self._seen.get(pos.key(), 0) >= rules.repetition_count:
            return Outcome(
                None,
                BoardEnd.THREEFOLD_REPETITION,
                "draw: threefold repetition"
                if rules.repetition_count == 3
                else f"draw: same position {rules.repetition_count} times",
            )
        if pos.no_progress >= rules.no_progress_limit:
            return Outcome(
                None,
                BoardEnd.NO_PROGRESS,
                f"draw: {rules.no_progress_limit} plies without flip or capture",
            )
        return None
