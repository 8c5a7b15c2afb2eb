"""Parsing a DCTP command line, as an engine reads it: ``parse_command_line``.

Each command's arguments are checked (squares, pieces, counts, colours, the rule set's
JSON, the two forms of ``init_board``); a line that fails says why, with the id to answer
``?<id>`` with when it had one.
"""

from banqi_engine.pieces import NUM_PIECES, PIECE_LETTERS, SQUARE_LETTERS, piece_from_letter
from banqi_engine.squares import NUM_SQUARES, parse_square, square_name

from .errors import CommandSyntaxError
from .messages import (
    COLOUR_WORDS,
    COMMAND_NAMES,
    INIT_BOARD_COUNT_ORDER,
    INIT_BOARD_TOKENS,
    MAX_ID_DIGITS,
    REVEAL_OUTCOMES,
    Command,
    CommandId,
    rule_set_from_payload,
)


def _square_arg(text: str, command: str) -> str:
    try:
        return square_name(parse_square(text.lower()))
    except ValueError as error:
        raise ValueError(f"{command}: {error}") from None


def _number_arg(text: str, what: str, signed: bool = False) -> str:
    digits = text[1:] if signed and text.startswith("-") else text
    if not (digits.isascii() and digits.isdigit()) or len(digits) > MAX_ID_DIGITS:
        kind = "a whole number" if signed else "a whole number >= 0"
        raise ValueError(f"{what}: expected {kind}, got {text!r}")
    return str(int(text))


def _colour_arg(text: str, command: str, allowed: tuple[str, ...]) -> str:
    word = text.lower()
    if word not in allowed:
        raise ValueError(f"{command}: expected a colour {' or '.join(allowed)}, got {text!r}")
    return word


def _arity(command: CommandId, args: list[str], count: int, usage: str) -> None:
    if len(args) != count:
        name = COMMAND_NAMES[command]
        usage_text = f"{name} {usage}".strip()
        raise ValueError(
            f"{name}: expected {count} argument{'' if count == 1 else 's'} "
            f"({usage_text}), got {len(args)}"
        )


def _init_board_args(args: list[str]) -> tuple[str, ...]:
    if 1 <= len(args) <= 5:
        return tuple(args)
    if len(args) == INIT_BOARD_TOKENS:
        for index, token in enumerate(args[:NUM_SQUARES]):
            if len(token) != 1 or token not in SQUARE_LETTERS:
                raise ValueError(
                    f"init_board: token {index + 1} ({token!r}) is not a square letter "
                    f"({PIECE_LETTERS}, X face down, - empty)"
                )
        for letter, token in zip(INIT_BOARD_COUNT_ORDER, args[NUM_SQUARES:], strict=True):
            _number_arg(token, f"init_board: face-down count of {letter!r}")
        return tuple(args)
    raise ValueError(
        f"init_board: expected a position string (1 to 5 fields) or {NUM_SQUARES} square "
        f"letters followed by {NUM_PIECES} counts ({' '.join(INIT_BOARD_COUNT_ORDER)}), "
        f"got {len(args)} words"
    )


def _reveal_move_args(args: list[str]) -> tuple[str, ...]:
    name = COMMAND_NAMES[CommandId.REVEAL_MOVE]
    _arity(
        CommandId.REVEAL_MOVE, args, 4, f"<from> <to> <piece letter> {'|'.join(REVEAL_OUTCOMES)}"
    )
    frm, to = _square_arg(args[0], name), _square_arg(args[1], name)
    if frm == to:
        raise ValueError(f"{name}: from and to are the same square ({frm})")
    try:
        piece_from_letter(args[2])
    except ValueError as error:
        raise ValueError(f"{name}: {error}") from None
    outcome = args[3].lower()
    if outcome not in REVEAL_OUTCOMES:
        raise ValueError(f"{name}: expected {' or '.join(REVEAL_OUTCOMES)} last, got {args[3]!r}")
    return (frm, to, args[2], outcome)


def _check_args(command: CommandId, args: list[str]) -> tuple[str, ...]:
    """The arguments of ``command`` checked and normalised; ValueError says why not."""
    name = COMMAND_NAMES[command]
    match command:
        case CommandId.KNOWN_COMMAND:
            _arity(command, args, 1, "<name>")
            return tuple(args)
        case CommandId.BOARDSIZE:
            _arity(command, args, 2, "<w> <h>")
            return (
                _number_arg(args[0], "boardsize width"),
                _number_arg(args[1], "boardsize height"),
            )
        case CommandId.NUM_REPETITION | CommandId.NUM_MOVES_TO_DRAW:
            _arity(command, args, 1, "<n>")
            return (_number_arg(args[0], name),)
        case CommandId.MOVE:
            _arity(command, args, 2, "<from> <to>")
            frm, to = _square_arg(args[0], name), _square_arg(args[1], name)
            if frm == to:
                raise ValueError(
                    f"move: from and to are the same square ({frm}); "
                    "a flip is sent as 'flip <square> <piece letter>'"
                )
            return (frm, to)
        case CommandId.FLIP:
            _arity(command, args, 2, "<square> <piece letter>")
            square = _square_arg(args[0], name)
            try:
                piece_from_letter(args[1])
            except ValueError as error:
                raise ValueError(f"flip: {error}") from None
            return (square, args[1])
        case CommandId.GENMOVE:
            _arity(command, args, 1, "red|black|unknown")
            return (_colour_arg(args[0], name, COLOUR_WORDS),)
        case CommandId.GAME_OVER:
            return tuple(args)
        case CommandId.TIME_SETTINGS:
            _arity(command, args, 1, "<ms>")
            return (_number_arg(args[0], "time_settings milliseconds"),)
        case CommandId.TIME_LEFT:
            _arity(command, args, 2, "red|black <ms>")
            colour = _colour_arg(args[0], name, COLOUR_WORDS[:2])
            return (colour, _number_arg(args[1], "time_left milliseconds", signed=True))
        case CommandId.INIT_BOARD:
            return _init_board_args(args)
        case CommandId.RULE_SET:
            _arity(command, args, 1, "<json>")
            rule_set_from_payload(args[0])
            return tuple(args)
        case CommandId.REVEAL_MOVE:
            return _reveal_move_args(args)
        case _:
            _arity(command, args, 0, "")
            return ()


def parse_command_line(line: str) -> Command:
    """Parse ``<id> <name> [args...]`` (trailing ``\\r``/``\\n`` allowed).

    The name is not checked: like real engines, this dispatches on the id.
    CommandSyntaxError has ``.id`` None when the line has no usable id (empty,
    not starting with a number of at most 18 digits), else the id to answer with.
    """
    words = line.rstrip("\r\n").split()
    if not words:
        raise CommandSyntaxError("empty line")
    head = words[0]
    if not (head.isascii() and head.isdigit()) or len(head) > MAX_ID_DIGITS:
        raise CommandSyntaxError(f"no command id: expected '<id> <name> [args...]', got {line!r}")
    number = int(head)
    if number not in CommandId._value2member_map_:
        raise CommandSyntaxError(
            f"unknown command id {number} (known: 0..{len(CommandId) - 1})", number
        )
    command = CommandId(number)
    if len(words) < 2:
        raise CommandSyntaxError(
            f"missing command name: expected '{number} {COMMAND_NAMES[command]} ...'", number
        )
    try:
        return Command(command, _check_args(command, words[2:]))
    except ValueError as error:
        raise CommandSyntaxError(str(error), number) from None
