"""What the NTU platform writes in its text records that the project's own do not: its
reason words, and the trailer after the ``* `` lines (``referee.text_record`` reads the rest).

The trailer, as the NTU 2019 platform writes it::

    0. 1796113314547         one line per ply, numbered from 0: a wall-clock time in ms
    1. 1796113314547         (the game's start, then each ply; never falling)
    ...
                             an empty line
    # 3 5 8 10 ... #         a list of rising numbers between '#' marks
    =7                       the DCTP replies of the recording side's engine, as sent
    =12 c8 c8                (a genmove reply: the ply, as from and to squares)
    ...
    ###                      the end of the record
"""

from dataclasses import dataclass, field
from itertools import pairwise
from typing import Final

from banqi_common.errors import InputError
from banqi_engine.errors import RulesInputError
from banqi_engine.moves import move_from, move_to
from banqi_engine.notation import parse_ply
from banqi_engine.squares import square_name
from protocol.messages import CommandId

from .reasons import Reason

PLATFORM_REASONS: Final[dict[str, Reason | None]] = {
    "NoMove": Reason.NO_LEGAL_MOVE,
    "Resign": Reason.RESIGN,
    "TimeOut": Reason.TIME_FORFEIT,
    "IllegalAction": Reason.ILLEGAL_MOVE,
    "SocketBroken": Reason.CRASH,
    "PositionRepetitionDraw": Reason.THREEFOLD_REPETITION,
    "NoEatFlipDraw": Reason.NO_PROGRESS,
    "Abort": None,
}
"""The platform's reason words and the project's reason of each (``Abort``: the game was
stopped, no result)."""
PLATFORM_WINS: Final = "Wins"
"""The last word of the platform's result line for a win: ``* NoMove a1 Wins``."""
CLOSING_MARK: Final = "###"
"""The line that ends a platform record."""
_GENMOVE_REPLY: Final = f"={int(CommandId.GENMOVE)} "


class PlatformTrailerError(InputError):
    """A platform trailer line that does not follow its shape."""


@dataclass
class PlatformTrailer:
    """What the trailer of a platform record says."""

    ply_times_ms: list[int] = field(default_factory=list)
    """The start's wall-clock time in ms, then each ply's."""
    moves_replied: list[str] = field(default_factory=list)
    """The recording side's genmove replies, as ``from to`` (``b6 b6`` for a flip)."""
    closed: bool = False
    """Whether the closing ``###`` was read (else the record was cut short)."""


def parse_trailer(lines: list[tuple[int, str]]) -> PlatformTrailer:
    """The trailer from its numbered lines (blank lines left in); PlatformTrailerError names
    the line and what was wrong."""
    trailer = PlatformTrailer()
    for number, raw in lines:
        line = raw.strip()
        if trailer.closed and line:
            raise PlatformTrailerError(f"line {number}: nothing may follow the closing ###")
        if not line:
            continue
        if line == CLOSING_MARK:
            trailer.closed = True
        elif line.startswith("#"):
            _check_marks(number, line)
        elif line.startswith("="):
            if line.startswith(_GENMOVE_REPLY):
                trailer.moves_replied.append(" ".join(line[len(_GENMOVE_REPLY) :].split()))
        else:
            trailer.ply_times_ms.append(_ply_time(number, line, len(trailer.ply_times_ms)))
    return trailer


def _ply_time(number: int, line: str, expected: int) -> int:
    head, _, value = line.partition(" ")
    if head != f"{expected}." or not value.strip().isdigit():
        raise PlatformTrailerError(
            f"line {number}: expected the time line '{expected}. <ms>', a '# ... #' list, "
            f"a '=' reply or '###', got {line[:40]!r}"
        )
    return int(value)


def _check_marks(number: int, line: str) -> None:
    """A ``# 3 5 8 #`` line: rising whole numbers between two ``#`` marks."""
    inner = line[1:-1].split() if len(line) > 1 and line.endswith("#") else None
    if inner is None or not all(word.isdigit() for word in inner):
        raise PlatformTrailerError(
            f"line {number}: expected whole numbers between '#' marks, got {line[:40]!r}"
        )
    values = [int(word) for word in inner]
    if any(b <= a for a, b in pairwise(values)):
        raise PlatformTrailerError(f"line {number}: the numbers between '#' marks must rise")


def ply_time_problems(
    trailer: PlatformTrailer, plies: int, first: int, time_seconds: float | None
) -> list[str]:
    """What is wrong with the per-ply times: one per ply and the start, never falling, and
    no side using more than ``time_seconds`` in all."""
    times = trailer.ply_times_ms
    if len(times) != plies + 1:
        return [f"the trailer has {len(times)} ply times, but {plies} plies need {plies + 1}"]
    for index in range(1, len(times)):
        if times[index] < times[index - 1]:
            return [f"the time of ply {index} ({times[index]}) is before the one before it"]
    if time_seconds is None:
        return []
    used = [0, 0]
    for index in range(1, len(times)):
        mover = first if index % 2 == 1 else 1 - first
        used[mover] += times[index] - times[index - 1]
        if used[mover] > time_seconds * 1000:
            return [
                f"by ply {index} player {mover} used {used[mover]} ms, more than its "
                f"{time_seconds:g} s, without losing on time"
            ]
    return []


def reply_problems(trailer: PlatformTrailer, moves: list[str], first: int) -> list[str]:
    """What is wrong with the reply log: its genmove replies must be the plies of one side
    (and at most one more, the reply that ended the game), in order."""
    replied = trailer.moves_replied
    if not replied:
        return []
    for side in (first, 1 - first):
        own = [_as_reply(text) for text in moves[0 if side == first else 1 :: 2]]
        if replied == own or replied[:-1] == own:
            return []
    return [f"the reply log's {len(replied)} genmove replies are not the plies of either side"]


def _as_reply(text: str) -> str:
    """A ply as an engine sends it: ``a2 a3``, or ``b6 b6`` for a flip."""
    try:
        move = parse_ply(text).move
    except RulesInputError:
        return text
    return f"{square_name(move_from(move))} {square_name(move_to(move))}"
