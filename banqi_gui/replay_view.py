"""A record as the replay page shows it: one board per ply, the ending, the layout.

A complete JSON record gives every board, and its layout once the game is over; a
withheld record (``withheld: true``, flips as ``b6(?)``, moves onto face-down pieces as
``a2-a3(?)``) gives only the board's shape (a turned-up piece shows as ``?``, the square
such a move left as ``~``: face up or empty, as whether it took the piece is withheld)
and no layout; a platform text record gives every board but no layout. A ply that does
not replay ends the frames, and ``problem`` says why.
"""

from collections.abc import Sequence

from pydantic import BaseModel, ValidationError

from banqi_common.model_files import first_problem
from banqi_engine.errors import RulesInputError
from banqi_engine.game import Game
from banqi_engine.layout import parse_layout
from banqi_engine.notation import parse_ply
from banqi_engine.pieces import COLOUR_NAMES, SQUARE_LETTERS, colour_of, opponent
from banqi_engine.position import Position
from banqi_engine.rules import RuleSet
from referee.reasons import Reason
from referee.record import RECORD_FORMAT, GameRecord, RecordError
from referee.shape_board import ShapeBoard
from referee.text_record import TextRecord, parse_text_record

from .board_view import Captured, add_taken, board_letters, no_captures, taken_piece


class Frame(BaseModel):
    """The board after a number of plies, and the ply that led to it."""

    board: str
    move: str | None = None
    player: int | None = None
    captured: Captured
    clocks_ms: tuple[int, int] | None = None


class ReplayView(BaseModel):
    """Everything the replay page needs of one record."""

    title: str
    players: tuple[str, str]
    colours: tuple[str | None, str | None]
    rules: str
    first: int
    frames: list[Frame]
    result: str | None
    reason: str | None
    reason_words: str | None
    layout: str | None
    withheld: bool
    problem: str | None = None


def _reason_words(reason: Reason | None) -> str | None:
    return reason.meaning if reason is not None else None


def replay_of_record(record: GameRecord) -> ReplayView:
    """The replay of a JSON record (a withheld one by its shape only)."""
    plies = [(ply.player, ply.move, ply.clocks_ms) for ply in record.plies]
    if record.withheld:
        frames, problem = _shape_frames(record.rules, plies)
        layout = None
    else:
        frames, problem = _frames(record.rules, Position.opening(), plies)
        assert record.layout is not None  # a complete record has its layout
        layout = "".join(SQUARE_LETTERS[piece] for piece in parse_layout(record.layout))
    return ReplayView(
        title=record.game_id,
        players=(record.players[0].name, record.players[1].name),
        colours=(record.players[0].colour, record.players[1].colour),
        rules=record.rules.name,
        first=record.first,
        frames=frames,
        result=record.result,
        reason=record.reason.value,
        reason_words=_reason_words(record.reason),
        layout=layout,
        withheld=record.withheld,
        problem=problem,
    )


def replay_of_text(record: TextRecord, rules: RuleSet, title: str) -> ReplayView:
    """The replay of a platform text record under ``rules`` (the format does not name them)."""
    movers = [record.first if i % 2 == 0 else 1 - record.first for i in range(len(record.moves))]
    plies = [(mover, move, None) for mover, move in zip(movers, record.moves, strict=True)]
    frames, problem = _frames(rules, record.start, plies)
    winner = record.winner
    if record.reason is None:
        result = record.result_line or None
    elif winner is None:
        result = f"draw ({record.reason.value})"
    else:
        result = f"{record.names[winner]} wins ({record.reason.value})"
    return ReplayView(
        title=title,
        players=record.names,
        colours=_text_colours(record),
        rules=rules.name,
        first=record.first,
        frames=frames,
        result=result,
        reason=record.reason.value if record.reason is not None else None,
        reason_words=_reason_words(record.reason),
        layout=None,
        withheld=False,
        problem=problem,
    )


def replay_of_upload(text: str, rules: RuleSet, title: str) -> ReplayView:
    """The replay of an uploaded file: a JSON record if it starts with ``{``, else a text
    record. Raises RecordError or TextRecordError saying what is wrong."""
    if text.lstrip().startswith("{"):
        try:
            record = GameRecord.model_validate_json(text)
        except ValidationError as error:
            raise RecordError(
                f"{title} is not a valid {RECORD_FORMAT} record: {first_problem(error)}"
            ) from None
        return replay_of_record(record)
    return replay_of_text(parse_text_record(text), rules, title)


Plies = Sequence[tuple[int, str, tuple[int, int] | None]]


def _frames(rules: RuleSet, start: Position, plies: Plies) -> tuple[list[Frame], str | None]:
    """Boards ply by ply under the rules; stops at the first ply that does not replay."""
    game = Game(rules, start, play_past_end=True)
    captured = no_captures()
    frames = [Frame(board=board_letters(game.position), captured=captured)]
    for number, (player, text, clocks) in enumerate(plies, start=1):
        try:
            ply = parse_ply(text)
            if ply.is_flip and ply.piece is None:
                raise RulesInputError("a flip must show its piece, like b6(K)")
            if ply.onto_face_down and ply.piece is None:
                raise RulesInputError(
                    "a move onto a face-down piece must show its piece, like a2-a3(k)"
                )
            captured = add_taken(captured, taken_piece(game.position, ply, rules))
            game.play_ply(ply)
        except RulesInputError as error:
            return frames, f"ply {number} ({text}) does not replay: {error}"
        frames.append(
            Frame(
                board=board_letters(game.position),
                move=text,
                player=player,
                captured=captured,
                clocks_ms=clocks,
            )
        )
    return frames, None


def _shape_frames(rules: RuleSet, plies: Plies) -> tuple[list[Frame], str | None]:
    """Boards of a withheld record: face down, face up (``?``), empty, or face up or empty
    (``~``, the square a move onto a face-down piece left)."""
    board = ShapeBoard(rules)
    frames = [Frame(board="".join(board.squares), captured=no_captures())]
    for number, (player, text, clocks) in enumerate(plies, start=1):
        try:
            board.play(parse_ply(text))
        except RulesInputError as error:
            return frames, f"ply {number} ({text}) does not replay: {error}"
        frames.append(
            Frame(
                board="".join(board.squares),
                move=text,
                player=player,
                captured=no_captures(),
                clocks_ms=clocks,
            )
        )
    return frames, None


def _text_colours(record: TextRecord) -> tuple[str | None, str | None]:
    """Each player's colour: the first flip's mover took the colour it revealed."""
    for index, text in enumerate(record.moves):
        try:
            ply = parse_ply(text)
        except RulesInputError:
            break
        if ply.is_flip and ply.piece is not None:
            mover = record.first if index % 2 == 0 else 1 - record.first
            colour = colour_of(ply.piece)
            colours = [COLOUR_NAMES[opponent(colour)]] * 2
            colours[mover] = COLOUR_NAMES[colour]
            return colours[0], colours[1]
        if not ply.is_flip:
            break
    return None, None
