"""What an engine answered to one ``genmove``: ``PlayResult``."""

from dataclasses import dataclass

from banqi_engine.moves import Move
from banqi_engine.notation import format_move
from protocol.session import MoveAnswer

RESIGN_WORD = "resign"
"""What ``str()`` of a resignation says."""


@dataclass(frozen=True)
class PlayResult:
    """The engine's move, as it said it (nothing is judged).

    ``move`` is a ``banqi_engine.moves.Move`` (None when the engine resigned), ``notation``
    the move string (``a2-a3``; a flip is its square, ``b6``, as the engine cannot know the
    piece it shows), ``seconds`` the time from ``genmove`` to the answer and ``payload``
    the answer's text.
    """

    move: Move | None
    notation: str | None
    resigned: bool
    is_flip: bool
    seconds: float
    payload: str

    @classmethod
    def of(cls, answer: MoveAnswer) -> "PlayResult":
        """The result of a readable genmove answer."""
        move = answer.move
        return cls(
            move=move,
            notation=None if move is None else format_move(move),
            resigned=answer.resigned,
            is_flip=answer.is_flip,
            seconds=answer.seconds,
            payload=answer.payload.strip(),
        )

    def __str__(self) -> str:
        return self.notation if self.notation is not None else RESIGN_WORD
