"""The engine side of DCTP: answer one command per line, track the game from echoes.

``DctpEngine`` turns one command into one ``Reply``; ``run_engine`` is the loop
over text streams (stdin/stdout of a process, or ``io.StringIO`` in tests).

The game is tracked only through the ``move``/``flip``/``reveal_move`` echoes, never
from the engine's own genmove answers. An echo that is illegal in the tracked position
is refused with ``?10``/``?11``/``?20`` and leaves the game unchanged; so is a
``reveal_move`` whose outcome (``went`` or ``stayed``) is not the one the engine's rule
set gives.

``genmove <colour>`` is taken as the driver's word on whose turn it is: when the
tracked position has another colour to move, the engine logs a warning, sets the
tracked side to move to the asked colour (board, pool and counters stay; the
repetition history restarts) and answers for it. ``genmove unknown`` answers for
the tracked side. While colours are undecided only flips are legal, so any colour
gets a flip.

The driver decides when the game ends: the engine's own draw rules (its rule set,
``num_repetition``, ``num_moves_to_draw``, ``rule_set``) only shape its search. Past
a draw they say has happened it goes on taking legal echoes and answering genmove;
only a side with no legal move at all gets ``?12``.

``rule_set`` (id 19, this project's extension) switches the whole rule set (move
generation, search, draw limits) to the one the driver judges by; ``reveal_move`` (id
20) is the echo of a move onto a face-down piece under a rule set that allows them.

The 46-word ``init_board`` form has no side-to-move field: with face-up pieces the
engine assumes red and corrects that from the colour of the piece moved by the
first move echo, or from the next ``genmove``.
"""

import logging
from collections.abc import Callable
from typing import Final, TextIO

from pydantic import ValidationError

from banqi_common.version import VERSION
from banqi_engine.core_build import CORE_BUILD
from banqi_engine.errors import RulesInputError
from banqi_engine.game import Game
from banqi_engine.moves import Move, flip_move, is_flip, step_move
from banqi_engine.pieces import (
    BLACK,
    NUM_PIECES,
    PIECE_LETTERS,
    RED,
    UNDECIDED,
    Colour,
    Piece,
    colour_of,
    is_piece,
    piece_from_letter,
)
from banqi_engine.players import Player
from banqi_engine.position import Position, check_consistency, parse_board_field, parse_position
from banqi_engine.rules import RuleSet, takes_revealed
from banqi_engine.squares import NUM_FILES, NUM_RANKS, NUM_SQUARES, parse_square
from banqi_engine.time_manager import ClockPlayer, clock_budget

from .command_parser import parse_command_line
from .errors import CommandSyntaxError
from .messages import (
    COLOUR_WORDS,
    COMMAND_NAMES,
    INIT_BOARD_COUNT_ORDER,
    REVEAL_OUTCOMES,
    Command,
    CommandId,
    Reply,
    command_id_for_name,
    format_genmove,
    rule_set_from_payload,
)

PROTOCOL_VERSION: Final = "1.1.0"

ENGINE_VERSION: Final = f"{VERSION} {CORE_BUILD.token}"
"""The ``version`` reply: the package's version and the core's build, ``0.1.0 compiled`` or
``0.1.0 pure-python``."""

ENGINE_NAME: Final = "banqi-engine"
BOARD_SIZES: Final = ((NUM_FILES, NUM_RANKS), (NUM_RANKS, NUM_FILES))
"""Accepted ``boardsize`` arguments: 4 files by 8 ranks, in either order."""


log = logging.getLogger(__name__)


class _Refusal(Exception):
    """A command the engine understood but cannot carry out; the message is the reason."""


def genmove_budget(remaining_ms: int | None) -> float | None:
    """Seconds a player without its own time management may spend on one genmove: the
    soft target of ``clock_budget`` (the clock over the moves likely left, at most
    ``MAX_SOFT_SECONDS``, within the hard limit), with no reserve per move, as such a
    player (random, greedy) answers at once. A ``ClockPlayer`` is told the time itself
    and budgets it (soft target, hard limit, reserve, per-move limits noticed)."""
    if remaining_ms is None:
        return None
    return clock_budget(remaining_ms, reserve=0.0).soft


MAX_REASON_CHARS: Final = 200
"""Longest reason in a ``?id`` reply or a log line about one: a bad argument, however long,
is quoted by a short prefix at most."""


def _short(text: str) -> str:
    """``text`` on one line, cut to ``MAX_REASON_CHARS`` characters (``...`` marks a cut)."""
    line = " ".join(text[: 4 * MAX_REASON_CHARS].split())
    if len(line) <= MAX_REASON_CHARS and len(text) <= 4 * MAX_REASON_CHARS:
        return line
    return line[: MAX_REASON_CHARS - 3] + "..."


def _init_board_position(args: tuple[str, ...]) -> tuple[Position, bool]:
    """The position of ``init_board`` args, and whether its side to move is only assumed."""
    if len(args) <= 5:
        return parse_position(" ".join(args)), False
    rows = ["".join(args[start : start + NUM_FILES]) for start in range(0, NUM_SQUARES, NUM_FILES)]
    board = parse_board_field("/".join(rows))
    pool = [0] * NUM_PIECES
    for letter, count in zip(INIT_BOARD_COUNT_ORDER, args[NUM_SQUARES:], strict=True):
        pool[PIECE_LETTERS.index(letter)] = int(count)
    face_up = any(is_piece(state) for state in board)
    side = RED if face_up else UNDECIDED
    check_consistency(board, pool, side)
    return Position(board, pool, side), face_up


class DctpEngine:
    """The state of a DCTP engine: rule set, tracked game, clocks, and its player."""

    def __init__(
        self,
        rules: RuleSet,
        player: Player,
        *,
        board_stream: TextIO | None = None,
        name: str = ENGINE_NAME,
        version: str = ENGINE_VERSION,
    ) -> None:
        """``board_stream`` receives ``showboard`` diagrams (never the reply stream)."""
        self.rules = rules
        self.player = player
        self.name = name
        self.version = version
        self.board_stream = board_stream
        self.game = Game(rules, play_past_end=True)
        self.quitting = False
        """Set once ``quit`` has been answered: the loop stops after that reply."""
        self._side_assumed = False
        self._time_left: dict[Colour, int] = {}
        self._handlers: dict[CommandId, Callable[[tuple[str, ...]], str]] = {
            CommandId.PROTOCOL_VERSION: lambda args: PROTOCOL_VERSION,
            CommandId.NAME: lambda args: self.name,
            CommandId.VERSION: lambda args: self.version,
            CommandId.KNOWN_COMMAND: self._known_command,
            CommandId.LIST_COMMANDS: lambda args: "\n".join(COMMAND_NAMES.values()),
            CommandId.QUIT: self._quit,
            CommandId.BOARDSIZE: self._boardsize,
            CommandId.RESET_BOARD: self._reset_board,
            CommandId.NUM_REPETITION: self._num_repetition,
            CommandId.NUM_MOVES_TO_DRAW: self._num_moves_to_draw,
            CommandId.MOVE: self._move,
            CommandId.FLIP: self._flip,
            CommandId.GENMOVE: self._genmove,
            CommandId.GAME_OVER: self._game_over,
            CommandId.READY: lambda args: "",
            CommandId.TIME_SETTINGS: self._time_settings,
            CommandId.TIME_LEFT: self._time_left_command,
            CommandId.SHOWBOARD: self._showboard,
            CommandId.INIT_BOARD: self._init_board,
            CommandId.RULE_SET: self._rule_set,
            CommandId.REVEAL_MOVE: self._reveal_move,
        }

    # -- entry points ----------------------------------------------------------------

    def handle_line(self, line: str) -> Reply | None:
        """The reply to one input line, or None for a line without a usable id."""
        try:
            command = parse_command_line(line)
        except CommandSyntaxError as error:
            if error.id is None:
                if line.strip():
                    log.warning("ignored a line without a command id: %s", _short(repr(line)))
                else:
                    log.debug("ignored an empty line")
                return None
            log.warning("refused %s: %s", _short(repr(line)), _short(str(error)))
            return Reply(error.id, False, _short(str(error)))
        return self.handle(command)

    def handle(self, command: Command) -> Reply:
        """Carry out one parsed command and return its reply."""
        number = int(command.id)
        try:
            payload = self._handlers[command.id](command.args)
        except _Refusal as refusal:
            log.warning("refused %s: %s", _short(command.line()), _short(str(refusal)))
            return Reply(number, False, _short(str(refusal)))
        except Exception as error:
            log.exception("internal error on %s", _short(command.line()))
            return Reply(number, False, _short(f"internal error: {error!r}"))
        return Reply(number, True, payload)

    # -- command handlers --------------------------------------------------------------

    def _known_command(self, args: tuple[str, ...]) -> str:
        return "true" if command_id_for_name(args[0]) is not None else "false"

    def _quit(self, args: tuple[str, ...]) -> str:
        self.quitting = True
        return ""

    def _boardsize(self, args: tuple[str, ...]) -> str:
        size = (int(args[0]), int(args[1]))
        if size not in BOARD_SIZES:
            raise _Refusal(
                f"unsupported board size {size[0]}x{size[1]}: the board is 4 files by 8 ranks"
            )
        return ""

    def _reset_board(self, args: tuple[str, ...]) -> str:
        self.game = Game(self.rules, play_past_end=True)
        self._side_assumed = False
        log.info("new game (%s rules)", self.rules.name)
        return ""

    def _num_repetition(self, args: tuple[str, ...]) -> str:
        self._change_rules("num_repetition", "repetition_count", int(args[0]))
        return ""

    def _num_moves_to_draw(self, args: tuple[str, ...]) -> str:
        self._change_rules("num_moves_to_draw", "no_progress_limit", int(args[0]))
        return ""

    def _change_rules(self, command: str, field: str, value: int) -> None:
        """Use a new draw count from now on, for this game and the next ones."""
        try:
            rules = RuleSet.model_validate({**self.rules.model_dump(), field: value})
        except ValidationError as error:
            reason = error.errors()[0]["msg"]
            raise _Refusal(f"{command} {value}: {reason}") from None
        self._use_rules(f"{command} {value}", rules)
        log.info("%s is now %d", field, value)

    def _rule_set(self, args: tuple[str, ...]) -> str:
        self._use_rules("rule_set", rule_set_from_payload(args[0]))
        log.info("rule set is now %s", self.rules)
        return ""

    def _use_rules(self, command: str, rules: RuleSet) -> None:
        """Play this game (its plies replayed) and the next ones under ``rules``."""
        old = self.game
        game = Game(rules, old.start, play_past_end=True)
        for number, ply in enumerate(old.plies, start=1):
            try:
                game.play_ply(ply)
            except RulesInputError as error:
                raise _Refusal(
                    f"{command}: ply {number} of this game is illegal under those rules "
                    f"({error}); send it before the game or after reset_board"
                ) from None
        self.rules = rules
        self.game = game

    def _move(self, args: tuple[str, ...]) -> str:
        frm, to = parse_square(args[0]), parse_square(args[1])
        state = self.game.position.board[frm]
        if self._side_assumed and is_piece(state) and colour_of(state) != self.game.side:
            colour = colour_of(state)
            log.info("side to move taken from the first move echo: %s", COLOUR_WORDS[colour])
            self._set_side(colour)
        self._play(step_move(frm, to), None)
        return ""

    def _flip(self, args: tuple[str, ...]) -> str:
        square = parse_square(args[0])
        self._play(flip_move(square), piece_from_letter(args[1]))
        return ""

    def _reveal_move(self, args: tuple[str, ...]) -> str:
        frm, to = parse_square(args[0]), parse_square(args[1])
        move, piece = step_move(frm, to), piece_from_letter(args[2])
        try:
            self.game.check(move, piece)
        except RulesInputError as error:
            raise _Refusal(str(error)) from None  # also: a square that is not face down
        mover = self.game.position.board[frm]
        went = takes_revealed(self.rules, mover, piece)
        if went != (args[3] == REVEAL_OUTCOMES[0]):
            raise _Refusal(
                f"reveal_move {' '.join(args)}: under the rule set {self.rules.name!r} the "
                f"{PIECE_LETTERS[mover]} on {args[0]} {'takes' if went else 'does not take'} "
                f"a revealed {args[2]}, so it {REVEAL_OUTCOMES[0 if went else 1]}"
            )
        self._play(move, piece)
        return ""

    def _play(self, move: Move, piece: Piece | None) -> None:
        undecided = self.game.side == UNDECIDED
        ended = self.game.outcome is not None
        try:
            self.game.play(move, piece)
        except RulesInputError as error:
            raise _Refusal(str(error)) from None
        self._side_assumed = False
        if undecided and is_flip(move) and piece is not None:
            log.info(
                "colours decided: the first flip showed %s, so its player is %s",
                PIECE_LETTERS[piece],
                COLOUR_WORDS[colour_of(piece)],
            )
        if self.game.outcome is not None and not ended:
            log.info("by this engine's rules: %s; play goes on", self.game.outcome.description)

    def _set_side(self, colour: Colour) -> None:
        pos = self.game.position
        position = Position(pos.board, pos.pool, colour, pos.no_progress, pos.ply)
        self.game = Game(self.game.rules, position, play_past_end=True)
        self._side_assumed = False

    def _genmove(self, args: tuple[str, ...]) -> str:
        colour = COLOUR_WORDS.index(args[0])
        side = self.game.side
        if colour != UNDECIDED and side not in (UNDECIDED, colour):
            log.warning(
                "genmove %s but the tracked position has %s to move; playing for %s",
                args[0],
                COLOUR_WORDS[side],
                args[0],
            )
            self._set_side(colour)
        if not self.game.legal_moves():
            raise _Refusal(f"{COLOUR_WORDS[self.game.side]} has no legal move in the tracked game")
        self._side_assumed = False
        clock_colour = colour if colour != UNDECIDED else self.game.side
        if clock_colour == UNDECIDED:
            remaining = min(self._time_left.values(), default=None)
        else:
            remaining = self._time_left.get(clock_colour)
        if isinstance(self.player, ClockPlayer):
            move = self.player.choose_on_clock(self.game, remaining)
        else:
            move = self.player.choose(self.game, genmove_budget(remaining))
        return format_genmove(move)

    def _game_over(self, args: tuple[str, ...]) -> str:
        log.info("game over from the driver: %s", " ".join(args) or "(no result given)")
        return ""

    def _time_settings(self, args: tuple[str, ...]) -> str:
        total = int(args[0])
        self._time_left = {RED: total, BLACK: total}
        return ""

    def _time_left_command(self, args: tuple[str, ...]) -> str:
        self._time_left[COLOUR_WORDS.index(args[0])] = max(0, int(args[1]))
        return ""

    def _showboard(self, args: tuple[str, ...]) -> str:
        game = self.game
        lines = [game.position.diagram(), game.position.to_string()]
        if game.outcome is not None:
            lines.append(game.outcome.description)
        text = "\n".join(lines)
        log.info("board:\n%s", text)
        if self.board_stream is not None:
            self.board_stream.write(text + "\n")
            self.board_stream.flush()
        return ""

    def _init_board(self, args: tuple[str, ...]) -> str:
        try:
            position, assumed = _init_board_position(args)
        except RulesInputError as error:
            raise _Refusal(f"init_board: {error}") from None
        self.game = Game(self.rules, position, play_past_end=True)
        self._side_assumed = assumed
        log.info("position set: %s", position)
        return ""


def run_engine(engine: DctpEngine, stdin: TextIO, stdout: TextIO) -> int:
    """Answer lines from ``stdin`` on ``stdout`` until ``quit`` or EOF; the exit status."""
    while True:
        line = stdin.readline()
        if not line:
            log.info("end of input")
            return 0
        log.debug("<- %s", line.rstrip("\r\n"))
        reply = engine.handle_line(line)
        if reply is None:
            continue
        text = reply.line()
        log.debug("-> %s", text)
        try:
            stdout.write(text + "\n")
            stdout.flush()
        except (OSError, ValueError) as error:
            log.warning("cannot write to the reply stream: %s", error)
            return 0
        if engine.quitting:
            return 0
