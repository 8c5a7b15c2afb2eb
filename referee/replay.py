"""Replaying a record: every ply checked against the rules, and the ending compared.

A withheld record (its layout held back until the other game of its deal has ended) is
checked only as far as that allows (``referee.shape_board``): who played each ply, and
each ply's shape; not the pieces its flips revealed, nor its captures, nor its ending.
"""

from dataclasses import dataclass, field

from banqi_engine.errors import RulesInputError
from banqi_engine.game import Game, Outcome
from banqi_engine.layout import parse_layout
from banqi_engine.notation import Ply, format_flip, parse_ply
from banqi_engine.pieces import (
    COLOUR_NAMES,
    PIECE_LETTERS,
    UNDECIDED,
    Colour,
    Piece,
    colour_of,
    seat_colours,
)
from banqi_engine.position import OPENING, Position, parse_position
from banqi_engine.rules import RuleSet
from banqi_engine.squares import Square

from .deals import layout_from_secret
from .reasons import Reason
from .record import GameRecord
from .shape_board import ShapeBoard
from .text_record import TextRecord


@dataclass
class ReplayReport:
    """What a replay found: plies checked, the board's ending, and any problem."""

    plies_checked: int = 0
    outcome: Outcome | None = None
    problems: list[str] = field(default_factory=list)
    final_position: str = ""
    withheld: bool = False
    """The record's layout is withheld: plies were checked in shape only, the ending not."""

    @property
    def ok(self) -> bool:
        """Whether every ply was legal and the record's ending agrees with the board (for a
        withheld record: whether nothing that could be checked is wrong)."""
        return not self.problems


def _wrong_mover(number: int, text: str, player: int | None, mover: int) -> str | None:
    """The problem of a ply recorded for the player who was not to move, if it is."""
    if player is None or player == mover:
        return None
    return f"ply {number} ({text}): recorded for player {player}, but player {mover} was to move"


def _replay(
    rules: RuleSet,
    start: Position,
    first: int,
    moves: list[tuple[int | None, str]],
    layout: list[Piece] | None,
) -> tuple[Game, ReplayReport, list[Colour | None]]:
    """Play the moves; returns the game, the report, and each player's colour."""
    game = Game(rules, start)
    report = ReplayReport()
    colours: list[Colour | None] = [None, None]
    if start.side != UNDECIDED:
        colours = list(seat_colours(first, start.side))
    for index, (player, text) in enumerate(moves):
        number = index + 1
        mover = first if index % 2 == 0 else 1 - first
        wrong = _wrong_mover(number, text, player, mover)
        if wrong is not None:
            report.problems.append(wrong)
            break
        try:
            ply = parse_ply(text)
            piece = ply.piece
            square = game.position.reveal_square(ply.move)
            if square is not None:
                piece = _shown_piece(ply, square, layout)
                if colours[mover] is None:
                    colours = list(seat_colours(mover, colour_of(piece)))
            game.play(ply.move, piece)
        except RulesInputError as error:
            report.problems.append(f"ply {number} ({text}) is illegal: {error}")
            break
        report.plies_checked = number
    report.outcome = game.outcome
    report.final_position = game.position.to_string()
    return game, report, colours


def _shown_piece(ply: Ply, square: Square, layout: list[Piece] | None) -> Piece:
    """The piece a flip, or a move onto a face-down piece, turns up on ``square``: the
    layout's (which the record's, if it gives one, must match), else the record's."""
    piece = ply.piece
    if layout is not None:
        if piece is not None and piece != layout[square]:
            raise RulesInputError(
                f"the ply shows {PIECE_LETTERS[piece]!r} but the layout has "
                f"{format_flip(square, layout[square])}"
            )
        piece = layout[square]
    if piece is None:
        example = "b6(K)" if ply.is_flip else "a2-a3(k)"
        raise RulesInputError(
            f"a ply that turns a piece up must show it in a record, like {example}"
        )
    return piece


def _compare_ending(
    report: ReplayReport,
    colours: list[Colour | None],
    reason: Reason | None,
    winner: int | None,
    total_plies: int,
) -> None:
    if report.problems:
        return
    outcome = report.outcome
    if reason is None:
        return
    if reason.is_board_end:
        if outcome is None:
            report.problems.append(
                f"the record says {reason.value}, but after {total_plies} plies the game "
                "is not over on the board"
            )
        elif Reason.of_board_end(outcome.reason) is not reason:
            report.problems.append(
                f"the record says {reason.value}, but the board ends by {outcome.reason.value}"
            )
        else:
            board_winner = None
            if outcome.winner is not None:
                board_winner = colours.index(outcome.winner) if outcome.winner in colours else None
            if board_winner != winner:
                report.problems.append(
                    f"the record names winner {winner}, the board gives {board_winner}"
                )
    elif outcome is not None:
        report.problems.append(
            f"the record says {reason.value}, but the board ended earlier: {outcome.description}"
        )


def _check_end_ply(report: ReplayReport, record: GameRecord) -> None:
    if report.plies_checked == len(record.plies) and record.end_ply != len(record.plies):
        report.problems.append(
            f"end_ply is {record.end_ply} but {len(record.plies)} plies are recorded"
        )


def _replay_withheld(record: GameRecord, rules: RuleSet) -> ReplayReport:
    """Check a withheld record as far as it can be without its layout: who played each
    ply, each ply's shape (``ShapeBoard``) and ``end_ply``."""
    report = ReplayReport(withheld=True)
    board = ShapeBoard(rules)
    for index, ply in enumerate(record.plies):
        number = index + 1
        mover = record.first if index % 2 == 0 else 1 - record.first
        wrong = _wrong_mover(number, ply.move, ply.player, mover)
        if wrong is not None:
            report.problems.append(wrong)
            break
        try:
            board.play(parse_ply(ply.move))
        except RulesInputError as error:
            report.problems.append(f"ply {number} ({ply.move}) is illegal: {error}")
            break
        report.plies_checked = number
    _check_end_ply(report, record)
    return report


def replay_game_record(record: GameRecord, rules: RuleSet | None = None) -> ReplayReport:
    """Check a JSON record: its layout against its secret (a deal book's entry may have
    none), flips against the layout, every ply, the end (a withheld record:
    ``_replay_withheld``)."""
    if record.withheld:
        return _replay_withheld(record, rules or record.rules)
    assert record.layout is not None  # not withheld
    layout = parse_layout(record.layout)
    report_problems: list[str] = []
    if record.deal_secret is not None and layout_from_secret(record.deal_secret) != layout:
        report_problems.append("the layout is not the shuffle of the recorded deal secret")
    start = parse_position(OPENING)
    moves: list[tuple[int | None, str]] = [(p.player, p.move) for p in record.plies]
    _, report, colours = _replay(rules or record.rules, start, record.first, moves, layout)
    report.problems[:0] = report_problems
    _check_end_ply(report, record)
    for index, name in enumerate(COLOUR_NAMES):
        for seat, player in enumerate(record.players):
            if player.colour == name and colours[seat] is not None and colours[seat] != index:
                report.problems.append(
                    f"player {seat} is recorded as {name} but played the other colour"
                )
    _compare_ending(report, colours, record.reason, record.winner, len(moves))
    return report


def replay_text_record(record: TextRecord, rules: RuleSet) -> ReplayReport:
    """Check a platform text record: every ply, and the result line against the board."""
    moves: list[tuple[int | None, str]] = [(None, m) for m in record.moves]
    _, report, colours = _replay(rules, record.start, record.first, moves, None)
    _compare_ending(report, colours, record.reason, record.winner, len(moves))
    return report
