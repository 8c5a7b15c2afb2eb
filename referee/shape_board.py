"""Plies checked without their pieces: a board that knows only which squares are face
down, face up or empty.

A withheld record hides what each flip revealed, so its plies can be checked only in
shape: a flip turns a face-down square up; a move goes from a face-up square to a square
that is not face down, one step, or along its rank or file as a cannon may under the
rules (a capture over exactly one screen, a slide over empty squares); where the rules
allow it, a move onto a face-down piece goes one step onto a face-down square. Whose
piece moved, and whether its rank allowed a capture, cannot be told; nor whether a move
onto a face-down piece took it, so the square it left is face up or empty (``UNSURE``)
until a later ply tells.
"""

from typing import Final

from banqi_engine.errors import MoveError
from banqi_engine.moves import move_from, move_to
from banqi_engine.notation import Ply, format_move
from banqi_engine.rules import RuleSet
from banqi_engine.squares import NEIGHBOURS, NUM_SQUARES, RAYS, Square, square_name

FACE_DOWN: Final = "X"
FACE_UP: Final = "?"
EMPTY: Final = "-"
UNSURE: Final = "~"
"""Face up or empty: the square a move onto a face-down piece left, whether it took the
piece (and went) withheld."""


class ShapeBoard:
    """The shape of a game's board, from the opening (all face down) on."""

    def __init__(self, rules: RuleSet) -> None:
        self.rules = rules
        self.squares = [FACE_DOWN] * NUM_SQUARES

    def play(self, ply: Ply) -> None:
        """Apply one ply; MoveError says why no piece could have played it."""
        frm, to = move_from(ply.move), move_to(ply.move)
        if ply.is_flip:
            if self.squares[frm] != FACE_DOWN:
                raise MoveError(f"cannot flip {square_name(frm)}: it is not face down")
            self.squares[frm] = FACE_UP
            return
        if self.squares[frm] not in (FACE_UP, UNSURE):
            state = "face down" if self.squares[frm] == FACE_DOWN else "empty"
            raise MoveError(f"{square_name(frm)} is {state}")
        if self.squares[to] == FACE_DOWN:
            if not self.rules.move_onto_face_down:
                raise MoveError(f"{square_name(to)} is face down and cannot be taken")
            if to not in NEIGHBOURS[frm]:
                raise MoveError(
                    f"{square_name(to)} is face down and not next to {square_name(frm)}"
                )
            self.squares[to] = FACE_UP
            self.squares[frm] = UNSURE
            return
        if not self._reachable(frm, to):
            raise MoveError(f"{format_move(ply.move)} is not {self._allowed()}")
        self.squares[to] = FACE_UP
        self.squares[frm] = EMPTY

    def _reachable(self, frm: Square, to: Square) -> bool:
        """Whether some piece may go from ``frm`` to ``to`` on this board's shape."""
        for ray in RAYS[frm]:
            if to in ray:
                between = ray[: ray.index(to)]
                if not between:
                    return True
                surely = sum(self.squares[square] not in (EMPTY, UNSURE) for square in between)
                maybe = sum(self.squares[square] != EMPTY for square in between)
                target = self.squares[to]
                jump = self.rules.cannon_capture == "jump" and surely <= 1 <= maybe
                slide = self.rules.cannon_move == "slide" and surely == 0
                return (target != EMPTY and jump) or (target != FACE_UP and slide)
        return False

    def _allowed(self) -> str:
        """The shapes of move the rules allow, in words."""
        allowed = ["one step"]
        if self.rules.cannon_capture == "jump":
            allowed.append("a cannon's capture over exactly one screen")
        if self.rules.cannon_move == "slide":
            allowed.append("a cannon's slide over empty squares")
        return ", nor ".join(allowed)
