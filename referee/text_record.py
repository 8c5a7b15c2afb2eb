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

The platform's own records are read too: its reason words (``* NoMove a1 Wins``), a
0-based ``first``, ``* Comment``, and the trailer after the ``* `` lines
(``referee.platform_record``). A record without a result line, or a platform record
without its closing ``###``, is read as *incomplete*.
"""

import math
from dataclasses import dataclass, field
from datetime import datetime
from typing import Final

from banqi_common.errors import InputError
from banqi_engine import pieces
from banqi_engine.errors import RulesInputError
from banqi_engine.moves import move_from
from banqi_engine.notation import parse_ply
from banqi_engine.position import Position, check_consistency
from banqi_engine.squares import NUM_FILES, NUM_RANKS, NUM_SQUARES, ranks_top_down, square_at

from .platform_record import (
    CLOSING_MARK,
    PLATFORM_REASONS,
    PLATFORM_WINS,
    PlatformTrailer,
    PlatformTrailerError,
    parse_trailer,
)
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
        lines.append(" ".join(pieces.SQUARE_LETTERS[state] for state in cells))
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
    platform: bool = False
    """Written by the platform (its reason words, ``first`` 0-based, its trailer)."""
    trailer: PlatformTrailer | None = None
    """The platform's trailer (ply times, reply log), if the record has one."""
    incomplete: str | None = None
    """Why the record does not tell a whole game (no result, cut short), if it does not."""


def _fail(number: int, message: str) -> TextRecordError:
    return TextRecordError(f"text record line {number}: {message}")


def parse_text_record(text: str) -> TextRecord:
    """Read a text record, the project's or the platform's; TextRecordError names the line
    and the problem."""
    lines, rest = _star_lines(text)
    if len(lines) < HEADER_LINES:
        raise TextRecordError(
            f"text record has {len(lines)} '* ' lines; a header alone needs {HEADER_LINES} "
            f"(time, players, counts, {NUM_RANKS} board rows): cut short, or not a text record"
        )
    names = _parse_players(*lines[1])
    pool = _parse_counts(*lines[2])
    board = _parse_board_rows(lines[_BOARD_START:HEADER_LINES])
    body = _parse_body(lines[HEADER_LINES:])
    try:
        trailer = parse_trailer(rest) if rest else None
    except PlatformTrailerError as error:
        raise TextRecordError(f"text record {error}") from None
    platform = (
        trailer is not None
        or body.comment
        or _is_platform_result(body.result)
        or (body.first is not None and body.first[1] == "0")  # only the platform's is 0-based
    )
    first = _first_player(body.first, platform)
    reason, winner, cut = _result(body.result, names, platform)
    face_up = any(pieces.is_piece(state) for state in board)
    side = _guess_side(board, body.moves) if face_up else pieces.UNDECIDED
    try:
        check_consistency(board, pool, side)
    except RulesInputError as error:
        raise TextRecordError(f"text record start position: {error}") from None
    if cut is None and platform and (trailer is None or not trailer.closed):
        cut = f"cut short: the platform's record ends with {CLOSING_MARK}, this one does not"
    return TextRecord(
        lines[0][1],
        names,
        Position(board, pool, side),
        first,
        body.time_seconds,
        body.moves,
        reason,
        winner,
        body.result[1] if body.result else "",
        platform,
        trailer,
        cut,
    )


def _star_lines(text: str) -> tuple[list[tuple[int, str]], list[tuple[int, str]]]:
    """The non-blank ``* `` lines with their 1-based numbers, each without its leading
    ``*``; and every line from the first that does not start with ``*`` on (the
    platform's trailer)."""
    lines: list[tuple[int, str]] = []
    all_lines = [line.rstrip("\r") for line in text.split("\n")]
    for index, line in enumerate(all_lines):
        if not line.strip():
            continue
        if not line.startswith("*"):
            if len(lines) < HEADER_LINES:
                raise _fail(index + 1, f"expected a line starting with '* ', got {line[:40]!r}")
            return lines, list(enumerate(all_lines[index:], start=index + 1))
        lines.append((index + 1, line[1:].strip()))
    return lines, []


def _parse_players(number: int, players: str) -> tuple[str, str]:
    """The two names of the ``<first> vs <second>`` line."""
    if " vs " not in players:
        raise _fail(number, f"expected '<first> vs <second>', got {players!r}")
    first_name, _, second_name = players.partition(" vs ")
    return first_name.strip(), second_name.strip()


def _parse_counts(number: int, counts_text: str) -> list[int]:
    """The face-down counts line: one count per piece code."""
    counts = counts_text.split()
    if len(counts) != pieces.NUM_PIECES or not all(c.isdigit() for c in counts):
        letters = " ".join(pieces.PIECE_LETTERS)
        raise _fail(number, f"expected {pieces.NUM_PIECES} face-down counts ({letters})")
    return [int(c) for c in counts]


def _parse_board_rows(rows: list[tuple[int, str]]) -> list[pieces.SquareState]:
    """The board from its rows (rank 8 first, files a..d, letters apart)."""
    board = [0] * NUM_SQUARES
    for rank, (number, cells_text) in zip(ranks_top_down(), rows, strict=True):
        cells = cells_text.split()
        if len(cells) != NUM_FILES or any(
            len(c) != 1 or c not in pieces.SQUARE_LETTERS for c in cells
        ):
            raise _fail(
                number,
                f"expected {NUM_FILES} squares (letters {pieces.SQUARE_LETTERS}), "
                f"got {cells_text!r}",
            )
        for file, cell in enumerate(cells):
            board[square_at(file, rank)] = pieces.SQUARE_LETTERS.index(cell)
    return board


@dataclass
class _Body:
    """What the lines after the board say."""

    first: tuple[int, str] | None = None
    time_seconds: float | None = None
    moves: list[str] = field(default_factory=list)
    result: tuple[int, str] | None = None
    comment: bool = False


def _parse_body(lines: list[tuple[int, str]]) -> _Body:
    """The ``first``, ``time``, numbered move lines (two plies each, the last may have
    one), the result line, and the platform's ``Comment`` line."""
    body = _Body()
    move_lines = 0
    for number, text in lines:
        head, _, rest = text.partition(" ")
        if body.result is not None and head != "Comment":
            raise _fail(number, f"nothing but '* Comment' may follow the result line, got {text!r}")
        if head == "first":
            body.first = (number, rest.strip())
        elif head == "time":
            try:
                seconds = float(rest)
            except ValueError:
                seconds = math.nan
            if not math.isfinite(seconds):
                raise _fail(number, f"'time' must be seconds, got {rest!r}")
            body.time_seconds = seconds
        elif head.endswith(".") and head[:-1].isdigit():
            move_lines += 1
            plies = rest.split()
            if head != f"{move_lines}." or not 1 <= len(plies) <= 2 or len(body.moves) % 2:
                raise _fail(
                    number,
                    f"expected move line '{move_lines}. <ply> <ply>' (only the last may have "
                    f"one ply), got {text!r}",
                )
            body.moves.extend(plies)
        elif head == "Comment":
            body.comment = True
        else:
            body.result = (number, text)
    return body


def _is_platform_result(result: tuple[int, str] | None) -> bool:
    return result is not None and result[1].partition(" ")[0] in PLATFORM_REASONS


def _first_player(first: tuple[int, str] | None, platform: bool) -> int:
    """Index (in the ``A vs B`` line) of the player who moved first: the project writes it
    1-based, the platform 0-based."""
    if first is None:
        return 0
    number, value = first
    allowed = ("0", "1") if platform else ("1", "2")
    if value not in allowed:
        raise _fail(
            number,
            f"'first' must be {' or '.join(allowed)} in a "
            f"{'platform' if platform else 'banqi'} record, got {value!r}",
        )
    return int(value) - (0 if platform else 1)


def _result(
    result: tuple[int, str] | None, names: tuple[str, str], platform: bool
) -> tuple[Reason | None, int | None, str | None]:
    """The reason, the winner and, for a record without a result, why it is incomplete."""
    if result is None:
        return None, None, "no result line: the game is not over, or the record was cut short"
    number, text = result
    code, _, rest = text.partition(" ")
    wins = PLATFORM_WINS if platform else "wins"
    shape = (
        f"'<reason> <name> {wins}' or '<reason>{'' if platform else ' draw'}'"
        f" (names: {names[0]!r}, {names[1]!r})"
    )
    words: dict[str, Reason | None] = (
        PLATFORM_REASONS if platform else {reason.value: reason for reason in Reason}
    )
    if code not in words:
        raise _fail(
            number, f"unknown reason {code!r} in the result line (allowed: {', '.join(words)})"
        )
    reason = words[code]
    if reason is None:
        return None, None, f"the platform aborted the game ({code}): no result"
    if rest == ("" if platform else "draw"):
        return reason, None, None
    who, _, last = rest.rpartition(" ")
    if last != wins or who not in names:
        raise _fail(number, f"the result line {text!r} is not {shape}")
    return reason, names.index(who), None


def _guess_side(board: list[pieces.SquareState], moves: list[str]) -> pieces.Colour:
    """Side to move of a start with face-up pieces: the colour of the first moved
    piece (the format does not say; red when the first ply does not tell)."""
    if moves:
        try:
            ply = parse_ply(moves[0])
        except RulesInputError:
            return pieces.RED
        if not ply.is_flip:
            state = board[move_from(ply.move)]
            if pieces.is_piece(state):
                return pieces.colour_of(state)
    return pieces.RED
