"""The platform's text record: writing it beside the JSON record, and reading it back.

Shape (each line starts with ``* ``; the platform writes ``\\r\\n``, both are read)::

    * 12:56pm Dec 26, 2019
    * alpha vs beta
    * 1 2 2 2 2 2 5 1 2 2 2 2 2 5
    * X X X X                        (eight rows, rank 8 first, files a..d)
    ...
    * first 1
    * time 900
    * 1. b6(c) d6(g)
    * 2. a7(m) d5(k)
    * no-legal-move alpha wins

``first`` is the 1-based seat (in the ``A vs B`` line) of the player who moved
first. The last line is ``* <reason code> <player name> wins`` or
``* <reason code> draw``, with the reason codes of ``referee.reasons``.
"""

from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from banqi_engine.errors import BanqiError
from banqi_engine.notation import parse_ply
from banqi_engine.pieces import HIDDEN, PIECE_LETTERS, RED, SQUARE_LETTERS, UNDECIDED, colour_of
from banqi_engine.position import Position, check_consistency

from .reasons import Reason
from .record import GameRecord

_MONTHS = ("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec")


class TextRecordError(BanqiError):
    """A text record that does not follow the platform's shape."""


def format_platform_time(moment: datetime) -> str:
    """``12:56pm Dec 26, 2019``, the way the platform writes the start time."""
    hour = moment.hour % 12 or 12
    half = "am" if moment.hour < 12 else "pm"
    return (
        f"{hour}:{moment.minute:02d}{half} {_MONTHS[moment.month - 1]} {moment.day}, {moment.year}"
    )


def format_text_record(record: GameRecord, start: Position) -> str:
    """The platform text record of a finished game (``\\r\\n`` line ends, as the platform)."""
    names = [p.name for p in record.players]
    lines = [
        format_platform_time(record.started_at.astimezone()),
        f"{names[0]} vs {names[1]}",
        " ".join(str(n) for n in start.pool),
    ]
    for rank in range(7, -1, -1):
        lines.append(" ".join(SQUARE_LETTERS[start.board[rank * 4 + f]] for f in range(4)))
    lines.append(f"first {record.first + 1}")
    lines.append(f"time {record.time_control.time:g}")
    moves = [p.move for p in record.plies]
    for number, index in enumerate(range(0, len(moves), 2), start=1):
        lines.append(f"{number}. " + " ".join(moves[index : index + 2]))
    if record.winner is None:
        lines.append(f"{record.reason.value} draw")
    else:
        lines.append(f"{record.reason.value} {names[record.winner]} wins")
    return "".join(f"* {line}\r\n" for line in lines)


@dataclass(frozen=True)
class TextRecord:
    """What a platform text record says."""

    started: str
    names: tuple[str, str]
    start: Position
    first: int
    time_seconds: float | None
    moves: list[str]
    reason: Reason | None
    winner: int | None
    result_line: str


def _fail(number: int, message: str) -> TextRecordError:
    return TextRecordError(f"text record line {number}: {message}")


def parse_text_record(text: str) -> TextRecord:
    """Read a platform text record; TextRecordError names the line and the problem."""
    raw = [line.rstrip("\r") for line in text.split("\n")]
    lines: list[tuple[int, str]] = []
    for number, line in enumerate(raw, start=1):
        if not line.strip():
            continue
        if not line.startswith("*"):
            raise _fail(number, f"expected a line starting with '* ', got {line[:40]!r}")
        lines.append((number, line[1:].strip()))
    if len(lines) < 11:
        raise TextRecordError(
            f"text record has {len(lines)} lines; a header alone needs 11 "
            "(time, players, counts, 8 board rows)"
        )
    started = lines[0][1]
    number, players = lines[1]
    if " vs " not in players:
        raise _fail(number, f"expected '<first> vs <second>', got {players!r}")
    first_name, _, second_name = players.partition(" vs ")
    number, counts_text = lines[2]
    counts = counts_text.split()
    if len(counts) != 14 or not all(c.isdigit() for c in counts):
        raise _fail(number, f"expected 14 face-down counts ({' '.join(PIECE_LETTERS)})")
    pool = [int(c) for c in counts]
    board = [0] * 32
    for row in range(8):
        number, cells_text = lines[3 + row]
        cells = cells_text.split()
        if len(cells) != 4 or any(len(c) != 1 or c not in SQUARE_LETTERS for c in cells):
            raise _fail(
                number, f"expected 4 squares (letters {SQUARE_LETTERS}), got {cells_text!r}"
            )
        rank = 7 - row
        for file, cell in enumerate(cells):
            board[rank * 4 + file] = SQUARE_LETTERS.index(cell)
    first = 0
    time_seconds: float | None = None
    moves: list[str] = []
    reason: Reason | None = None
    winner: int | None = None
    result_line = ""
    names = (first_name.strip(), second_name.strip())
    for number, body in lines[11:]:
        head, _, rest = body.partition(" ")
        if head == "first":
            if rest.strip() not in ("1", "2"):
                raise _fail(number, f"'first' must be 1 or 2, got {rest!r}")
            first = int(rest) - 1
        elif head == "time":
            try:
                time_seconds = float(rest)
            except ValueError:
                raise _fail(number, f"'time' must be seconds, got {rest!r}") from None
        elif head.endswith(".") and head[:-1].isdigit():
            if result_line:
                raise _fail(number, "moves after the result line")
            moves.extend(rest.split())
        else:
            result_line = body
            reason, winner = _parse_result(body, names)
    face_up = any(state < HIDDEN for state in board)
    side = _guess_side(board, moves) if face_up else UNDECIDED
    try:
        check_consistency(board, pool, side)
    except BanqiError as error:
        raise TextRecordError(f"text record start position: {error}") from None
    start = Position(board, pool, side)
    return TextRecord(
        started, names, start, first, time_seconds, moves, reason, winner, result_line
    )


def _parse_result(body: str, names: tuple[str, str]) -> tuple[Reason | None, int | None]:
    code, _, rest = body.partition(" ")
    try:
        reason: Reason | None = Reason(code)
    except ValueError:
        reason = None
    winner = None
    if rest.endswith(" wins"):
        who = rest[: -len(" wins")].strip()
        if who in names:
            winner = names.index(who)
    return reason, winner


def _guess_side(board: list[int], moves: list[str]) -> int:
    """Side to move of a start with face-up pieces: the colour of the first moved
    piece (the format does not say; red when the first ply does not tell)."""
    if moves:
        try:
            ply = parse_ply(moves[0])
        except BanqiError:
            return RED
        if not ply.is_flip:
            state = board[ply.move >> 5]
            if state < HIDDEN:
                return colour_of(state)
    return RED


def read_text_record(path: Path) -> TextRecord:
    """Read a text record file."""
    try:
        return parse_text_record(path.read_text(encoding="utf-8", errors="replace"))
    except OSError as error:
        raise TextRecordError(f"cannot read {path}: {error}") from None
