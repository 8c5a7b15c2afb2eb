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

import math
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Final

from banqi_common.errors import InputError
from banqi_engine.errors import RulesInputError
from banqi_engine.moves import move_from
from banqi_engine.notation import parse_ply
from banqi_engine.pieces import (
    NUM_PIECES,
    PIECE_LETTERS,
    RED,
    SQUARE_LETTERS,
    UNDECIDED,
    Colour,
    SquareState,
    colour_of,
    is_piece,
)
from banqi_engine.position import Position, check_consistency
from banqi_engine.squares import NUM_FILES, NUM_RANKS, NUM_SQUARES, ranks_top_down, square_at

from .reasons import Reason
from .record import GameRecord

_MONTHS = ("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec")
_BOARD_START: Final = 3
"""Index of the first board row among the lines (after time, players, counts)."""
HEADER_LINES: Final = _BOARD_START + NUM_RANKS
"""Lines before the body: time, players, face-down counts, the board rows."""


class TextRecordError(InputError):
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
    for rank in ranks_top_down():
        cells = (start.board[square_at(file, rank)] for file in range(NUM_FILES))
        lines.append(" ".join(SQUARE_LETTERS[state] for state in cells))
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
    lines = _star_lines(text)
    if len(lines) < HEADER_LINES:
        raise TextRecordError(
            f"text record has {len(lines)} lines; a header alone needs {HEADER_LINES} "
            f"(time, players, counts, {NUM_RANKS} board rows)"
        )
    names = _parse_players(*lines[1])
    pool = _parse_counts(*lines[2])
    board = _parse_board_rows(lines[_BOARD_START:HEADER_LINES])
    body = _parse_body(lines[HEADER_LINES:], names)
    face_up = any(is_piece(state) for state in board)
    side = _guess_side(board, body.moves) if face_up else UNDECIDED
    try:
        check_consistency(board, pool, side)
    except RulesInputError as error:
        raise TextRecordError(f"text record start position: {error}") from None
    start = Position(board, pool, side)
    return TextRecord(
        lines[0][1],
        names,
        start,
        body.first,
        body.time_seconds,
        body.moves,
        body.reason,
        body.winner,
        body.result_line,
    )


def _star_lines(text: str) -> list[tuple[int, str]]:
    """The non-blank lines with their 1-based numbers, each without its leading ``*``."""
    lines: list[tuple[int, str]] = []
    for number, line in enumerate(text.split("\n"), start=1):
        line = line.rstrip("\r")
        if not line.strip():
            continue
        if not line.startswith("*"):
            raise _fail(number, f"expected a line starting with '* ', got {line[:40]!r}")
        lines.append((number, line[1:].strip()))
    return lines


def _parse_players(number: int, players: str) -> tuple[str, str]:
    """The two names of the ``<first> vs <second>`` line."""
    if " vs " not in players:
        raise _fail(number, f"expected '<first> vs <second>', got {players!r}")
    first_name, _, second_name = players.partition(" vs ")
    return first_name.strip(), second_name.strip()


def _parse_counts(number: int, counts_text: str) -> list[int]:
    """The face-down counts line: one count per piece code."""
    counts = counts_text.split()
    if len(counts) != NUM_PIECES or not all(c.isdigit() for c in counts):
        raise _fail(number, f"expected {NUM_PIECES} face-down counts ({' '.join(PIECE_LETTERS)})")
    return [int(c) for c in counts]


def _parse_board_rows(rows: list[tuple[int, str]]) -> list[SquareState]:
    """The board from its rows (rank 8 first, files a..d, letters apart)."""
    board = [0] * NUM_SQUARES
    for rank, (number, cells_text) in zip(ranks_top_down(), rows, strict=True):
        cells = cells_text.split()
        if len(cells) != NUM_FILES or any(len(c) != 1 or c not in SQUARE_LETTERS for c in cells):
            raise _fail(
                number,
                f"expected {NUM_FILES} squares (letters {SQUARE_LETTERS}), got {cells_text!r}",
            )
        for file, cell in enumerate(cells):
            board[square_at(file, rank)] = SQUARE_LETTERS.index(cell)
    return board


@dataclass
class _Body:
    """What the lines after the board say."""

    first: int = 0
    time_seconds: float | None = None
    moves: list[str] = field(default_factory=list)
    reason: Reason | None = None
    winner: int | None = None
    result_line: str = ""


def _parse_body(lines: list[tuple[int, str]], names: tuple[str, str]) -> _Body:
    """The ``first``, ``time``, numbered move and result lines, in any order."""
    body = _Body()
    for number, text in lines:
        head, _, rest = text.partition(" ")
        if head == "first":
            if rest.strip() not in ("1", "2"):
                raise _fail(number, f"'first' must be 1 or 2, got {rest!r}")
            body.first = int(rest) - 1
        elif head == "time":
            try:
                seconds = float(rest)
            except ValueError:
                seconds = math.nan
            if not math.isfinite(seconds):
                raise _fail(number, f"'time' must be seconds, got {rest!r}")
            body.time_seconds = seconds
        elif head.endswith(".") and head[:-1].isdigit():
            if body.result_line:
                raise _fail(number, "moves after the result line")
            body.moves.extend(rest.split())
        else:
            body.result_line = text
            body.reason, body.winner = _parse_result(text, names)
    return body


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


def _guess_side(board: list[SquareState], moves: list[str]) -> Colour:
    """Side to move of a start with face-up pieces: the colour of the first moved
    piece (the format does not say; red when the first ply does not tell)."""
    if moves:
        try:
            ply = parse_ply(moves[0])
        except RulesInputError:
            return RED
        if not ply.is_flip:
            state = board[move_from(ply.move)]
            if is_piece(state):
                return colour_of(state)
    return RED


def read_text_record(path: Path) -> TextRecord:
    """Read a text record file."""
    try:
        return parse_text_record(path.read_text(encoding="utf-8", errors="replace"))
    except OSError as error:
        raise TextRecordError(f"cannot read {path}: {error}") from None
