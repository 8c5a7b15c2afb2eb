"""DCTP messages: command ids and names, command and reply lines, genmove answers.

A command line is ``<id> <name> [args...]``; engines dispatch on the id and ignore
the name. A reply line is ``=<id>`` / ``=<id> <payload>`` on success and ``?<id>`` /
``?<id> <message>`` on failure. Moves are the move codes of ``banqi_engine.moves``.
Ids 0 to 18 are the platform's; ``19 rule_set`` and ``20 reveal_move`` are this
project's extension (see ``Command.rule_set`` and ``Command.reveal_move``).
"""

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass
from enum import IntEnum
from types import MappingProxyType
from typing import Final

from pydantic import ValidationError

from banqi_engine.moves import Move, move_from, move_to, step_move
from banqi_engine.pieces import (
    NUM_PIECES,
    PIECE_LETTERS,
    Colour,
    Piece,
)
from banqi_engine.rules import RuleSet
from banqi_engine.squares import (
    NUM_FILES,
    NUM_RANKS,
    NUM_SQUARES,
    Square,
    parse_square,
    square_name,
)

from .errors import ReplySyntaxError


class CommandId(IntEnum):
    """The fixed id of each DCTP command."""

    PROTOCOL_VERSION = 0
    NAME = 1
    VERSION = 2
    KNOWN_COMMAND = 3
    LIST_COMMANDS = 4
    QUIT = 5
    BOARDSIZE = 6
    RESET_BOARD = 7
    NUM_REPETITION = 8
    NUM_MOVES_TO_DRAW = 9
    MOVE = 10
    FLIP = 11
    GENMOVE = 12
    GAME_OVER = 13
    READY = 14
    TIME_SETTINGS = 15
    TIME_LEFT = 16
    SHOWBOARD = 17
    INIT_BOARD = 18
    RULE_SET = 19
    REVEAL_MOVE = 20


COMMAND_NAMES: Final[Mapping[CommandId, str]] = MappingProxyType(
    {command: command.name.lower() for command in CommandId}
)
"""The canonical name of each command id."""

_IDS_BY_NAME: Final[Mapping[str, CommandId]] = MappingProxyType(
    {
        **{name: command for command, name in COMMAND_NAMES.items()},
        "time_setting": CommandId.TIME_SETTINGS,
    }
)

COLOUR_WORDS: Final = ("red", "black", "unknown")
"""The DCTP colour words, indexed by RED, BLACK and UNDECIDED."""

RESIGN: Final = "a0 a0"
"""The genmove payload of a resignation."""

INIT_BOARD_COUNT_ORDER: Final = "KkGgMmRrNnCcPp"
"""Order of the 14 face-down counts in the 46-token form of ``init_board``."""
INIT_BOARD_TOKENS: Final = NUM_SQUARES + NUM_PIECES
"""Words of the long form of ``init_board``: 32 square letters, then 14 counts."""

REVEAL_OUTCOMES: Final = ("went", "stayed")
"""The last word of ``reveal_move``: the mover took the revealed piece's square (capturing
it), or stayed where it was."""

RULE_SET_NAME_CHARS: Final = 64
"""Longest rule-set name a ``rule_set`` payload carries (a longer one is cut)."""
RULE_SET_MAX_CHARS: Final = 1024
"""Longest ``rule_set`` payload: the fields with a 64-character name always fit."""

MAX_ID_DIGITS: Final = 18
"""The most digits a command or reply id has."""
_REPLY_RE: Final = re.compile(r"([=?])([0-9]{1,18})(?: (.*))?", re.DOTALL)


def command_id_for_name(name: str) -> CommandId | None:
    """The id of a command name (``time_setting`` is accepted for 15), or None."""
    return _IDS_BY_NAME.get(name)


def _colour_word(colour: str | Colour) -> str:
    if isinstance(colour, int):
        if 0 <= colour < len(COLOUR_WORDS):
            return COLOUR_WORDS[colour]
        raise ValueError(f"colour code {colour} is not RED (0), BLACK (1) or UNDECIDED (2)")
    word = colour.lower()
    if word not in COLOUR_WORDS:
        raise ValueError(f"expected a colour red, black or unknown, got {colour!r}")
    return word


def _check_count(value: int, what: str) -> int:
    if value < 0:
        raise ValueError(f"{what} must be >= 0, got {value}")
    return value


@dataclass(frozen=True)
class Command:
    """One driver-to-engine command: its id and its arguments as words."""

    id: CommandId
    args: tuple[str, ...] = ()

    def line(self) -> str:
        """The command line without its newline, e.g. ``12 genmove red``."""
        return " ".join((str(int(self.id)), COMMAND_NAMES[self.id], *self.args))

    @classmethod
    def protocol_version(cls) -> "Command":
        """``0 protocol_version``."""
        return cls(CommandId.PROTOCOL_VERSION)

    @classmethod
    def name(cls) -> "Command":
        """``1 name``."""
        return cls(CommandId.NAME)

    @classmethod
    def version(cls) -> "Command":
        """``2 version``."""
        return cls(CommandId.VERSION)

    @classmethod
    def known_command(cls, name: str) -> "Command":
        """``3 known_command <name>``."""
        if not name or any(c.isspace() for c in name):
            raise ValueError(f"a command name is one word, got {name!r}")
        return cls(CommandId.KNOWN_COMMAND, (name,))

    @classmethod
    def list_commands(cls) -> "Command":
        """``4 list_commands``."""
        return cls(CommandId.LIST_COMMANDS)

    @classmethod
    def quit(cls) -> "Command":
        """``5 quit``."""
        return cls(CommandId.QUIT)

    @classmethod
    def boardsize(cls, width: int = NUM_FILES, height: int = NUM_RANKS) -> "Command":
        """``6 boardsize <w> <h>``."""
        w, h = _check_count(width, "width"), _check_count(height, "height")
        return cls(CommandId.BOARDSIZE, (str(w), str(h)))

    @classmethod
    def reset_board(cls) -> "Command":
        """``7 reset_board``."""
        return cls(CommandId.RESET_BOARD)

    @classmethod
    def num_repetition(cls, count: int) -> "Command":
        """``8 num_repetition <n>``."""
        return cls(CommandId.NUM_REPETITION, (str(_check_count(count, "repetition count")),))

    @classmethod
    def num_moves_to_draw(cls, plies: int) -> "Command":
        """``9 num_moves_to_draw <n>``."""
        return cls(CommandId.NUM_MOVES_TO_DRAW, (str(_check_count(plies, "ply limit")),))

    @classmethod
    def move(cls, frm: Square, to: Square) -> "Command":
        """``10 move <from> <to>``: a move or capture was played."""
        if frm == to:
            raise ValueError("a move needs two different squares; a flip is Command.flip")
        return cls(CommandId.MOVE, (square_name(frm), square_name(to)))

    @classmethod
    def flip(cls, square: Square, piece: Piece) -> "Command":
        """``11 flip <square> <piece letter>``: a flip was played and showed ``piece``."""
        if not 0 <= piece < NUM_PIECES:
            raise ValueError(f"piece code {piece} is not 0..13")
        return cls(CommandId.FLIP, (square_name(square), PIECE_LETTERS[piece]))

    @classmethod
    def genmove(cls, colour: str | Colour) -> "Command":
        """``12 genmove red|black|unknown`` (a colour word or RED/BLACK/UNDECIDED)."""
        return cls(CommandId.GENMOVE, (_colour_word(colour),))

    @classmethod
    def game_over(cls, words: str) -> "Command":
        """``13 game_over <result words>``."""
        return cls(CommandId.GAME_OVER, tuple(words.split()))

    @classmethod
    def ready(cls) -> "Command":
        """``14 ready``."""
        return cls(CommandId.READY)

    @classmethod
    def time_settings(cls, ms: int) -> "Command":
        """``15 time_settings <ms>``: total thinking time per side."""
        return cls(CommandId.TIME_SETTINGS, (str(_check_count(ms, "time")),))

    @classmethod
    def time_left(cls, colour: str | Colour, ms: int) -> "Command":
        """``16 time_left red|black <ms>``."""
        word = _colour_word(colour)
        if word == "unknown":
            raise ValueError("time_left needs the colour red or black")
        return cls(CommandId.TIME_LEFT, (word, str(ms)))

    @classmethod
    def showboard(cls) -> "Command":
        """``17 showboard``."""
        return cls(CommandId.SHOWBOARD)

    @classmethod
    def init_board(cls, position_string: str) -> "Command":
        """``18 init_board <position string>``."""
        return cls(CommandId.INIT_BOARD, tuple(position_string.split()))

    @classmethod
    def rule_set(cls, rules: RuleSet) -> "Command":
        """``19 rule_set <json>``: the rules the game is judged by (this project's extension,
        sent only to an engine whose ``list_commands`` lists it)."""
        return cls(CommandId.RULE_SET, (rule_set_payload(rules),))

    @classmethod
    def reveal_move(cls, frm: Square, to: Square, piece: Piece, went: bool) -> "Command":
        """``20 reveal_move <from> <to> <piece letter> went|stayed``: a move onto the
        face-down ``to`` was played; it showed ``piece``, and the mover captured it and went
        to ``to``, or stayed on ``frm`` (this project's extension, sent only to an engine
        that took a ``rule_set`` allowing such moves)."""
        if frm == to:
            raise ValueError("a move onto a face-down piece needs two different squares")
        if not 0 <= piece < NUM_PIECES:
            raise ValueError(f"piece code {piece} is not 0..13")
        outcome = REVEAL_OUTCOMES[0] if went else REVEAL_OUTCOMES[1]
        return cls(
            CommandId.REVEAL_MOVE,
            (square_name(frm), square_name(to), PIECE_LETTERS[piece], outcome),
        )


@dataclass(frozen=True)
class Reply:
    """One engine-to-driver reply: the command id, success, and the payload."""

    id: int
    ok: bool
    payload: str = ""

    def line(self) -> str:
        """``=12 a2 a3``, ``=7``, ``?12 reason``; a multi-line payload keeps its newlines."""
        head = f"{'=' if self.ok else '?'}{self.id}"
        return f"{head} {self.payload}" if self.payload else head


def rule_set_payload(rules: RuleSet) -> str:
    """The one-word payload of ``rule_set``: every field of ``rules`` as compact ASCII JSON,
    the name cut to ``RULE_SET_NAME_CHARS`` and a space in it written ``\\u0020``.

    ``move_onto_face_down`` is sent only when it is on, so that an engine that knows the
    six fields from before it existed still takes every rule set it can play."""
    fields = {**rules.model_dump(), "name": rules.name[:RULE_SET_NAME_CHARS]}
    if not rules.move_onto_face_down:
        del fields["move_onto_face_down"]
    return json.dumps(fields, separators=(",", ":")).replace(" ", "\\u0020")


def rule_set_from_payload(payload: str) -> RuleSet:
    """The rule set a ``rule_set`` payload names; ValueError says what is wrong with it."""
    if len(payload) > RULE_SET_MAX_CHARS:
        raise ValueError(
            f"rule_set: payload of {len(payload)} characters; at most {RULE_SET_MAX_CHARS}"
        )
    try:
        return RuleSet.model_validate_json(payload)
    except ValidationError as error:
        problems = "; ".join(
            f"{'.'.join(str(p) for p in item['loc']) or 'payload'}: {item['msg']}"
            for item in error.errors()
        )
        raise ValueError(f"rule_set: {problems}") from None


def parse_reply_line(line: str) -> Reply | None:
    """Parse one engine output line; None when it is noise, not a reply.

    A reply starts with ``=`` or ``?``, then 1 to 18 digits, then a space or the
    end of the line. The payload is stripped of surrounding blanks.
    """
    match = _REPLY_RE.fullmatch(line.rstrip("\r\n"))
    if match is None:
        return None
    mark, digits, payload = match.groups()
    return Reply(int(digits), mark == "=", (payload or "").strip())


# -- genmove answers ------------------------------------------------------------------


@dataclass(frozen=True)
class GenmoveAnswer:
    """An engine's genmove answer: a move code (a flip is ``flip_move(square)``), None to
    resign."""

    move: Move | None


def format_genmove(move: Move | None) -> str:
    """The genmove payload: ``a2 a3``, a flip ``b6 b6``, a resignation ``a0 a0``."""
    if move is None:
        return RESIGN
    return f"{square_name(move_from(move))} {square_name(move_to(move))}"


def parse_genmove_payload(payload: str) -> GenmoveAnswer:
    """Parse ``<from> <to>`` (``a0 a0`` resigns); ReplySyntaxError says what is wrong.

    Only the form is checked here, not whether the move is legal.
    """
    words = payload.split()
    if len(words) != 2:
        raise ReplySyntaxError(
            f"genmove answer {payload!r}: expected two squares '<from> <to>' "
            f"(a flip as '<sq> <sq>', resign as '{RESIGN}')"
        )
    if [w.lower() for w in words] == RESIGN.split():
        return GenmoveAnswer(None)
    squares = []
    for word in words:
        try:
            squares.append(parse_square(word.lower()))
        except ValueError as error:
            raise ReplySyntaxError(f"genmove answer {payload!r}: {error}") from None
    return GenmoveAnswer(step_move(squares[0], squares[1]))
