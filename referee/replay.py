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
from .platform_record import ply_time_problems, reply_problems
from .reasons import Reason
from .record import GameRecord
from .record_checks import (
    clock_problems,
    loser_problem,
    names_problem,
    no_winner_problem,
    result_problem,
    times_problem,
)
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
    incomplete: str | None = None
    """Why the record does not tell a whole game (no result, cut short), if it does not."""

    @property
    def ok(self) -> bool:
        """Whether the record is complete, every ply was legal and every field agrees with
        the plies (for a withheld record: whether nothing that could be checked is wrong)."""
        return not self.problems and self.incomplete is None


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
            if square is not None and layout is not None:
                piece = _shown_piece(ply, square, layout)
            game.play(ply.move, piece)  # the rules' own words for what is wrong
            if square is not None and piece is not None and colours[mover] is None:
                colours = list(seat_colours(mover, colour_of(piece)))
        except RulesInputError as error:
            report.problems.append(f"ply {number} ({text}) is illegal: {error}")
            break
        report.plies_checked = number
    report.outcome = game.outcome
    report.final_position = game.position.to_string()
    return game, report, colours


def _shown_piece(ply: Ply, square: Square, layout: list[Piece]) -> Piece:
    """The piece a flip, or a move onto a face-down piece, turns up on ``square``: the
    layout's, which the record's, if it gives one, must match."""
    if ply.piece is not None and ply.piece != layout[square]:
        raise RulesInputError(
            f"the ply shows {PIECE_LETTERS[ply.piece]!r} but the layout has "
            f"{format_flip(square, layout[square])}"
        )
    return layout[square]


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
    colours: list[Colour | None] = [None, None]
    for seat, player in enumerate(record.players):
        if player.colour is not None:
            colours[seat] = COLOUR_NAMES.index(player.colour)
    _check_fields(report, record, colours)
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
    _check_fields(report, record, colours)
    return report


def _check_fields(report: ReplayReport, record: GameRecord, colours: list[Colour | None]) -> None:
    """The fields beyond the plies (``referee.record_checks``), once the plies are legal."""
    if report.problems:
        return
    names = (record.players[0].name, record.players[1].name)
    outcome = None if record.withheld else report.outcome
    found = [
        names_problem(names),
        None
        if record.withheld and record.reason.is_board_end
        else result_problem(record, colours, outcome),
        None
        if record.void
        else loser_problem(record.reason, record.winner, record.first, len(record.plies)),
        times_problem(record),
    ]
    report.problems.extend(problem for problem in found if problem is not None)
    report.problems.extend(clock_problems(record))


def replay_text_record(record: TextRecord, rules: RuleSet) -> ReplayReport:
    """Check a text record: every ply, the players, the result line against the board, and
    a platform record's ply times and reply log; one without a result, or cut short, is
    incomplete."""
    moves: list[tuple[int | None, str]] = [(None, m) for m in record.moves]
    _, report, colours = _replay(rules, record.start, record.first, moves, None)
    same_names = names_problem(record.names)
    if same_names is not None:
        report.problems.insert(0, same_names)
    if record.incomplete is not None:
        report.incomplete = record.incomplete
        return report
    _compare_ending(report, colours, record.reason, record.winner, len(moves))
    if record.reason is not None and not report.problems:
        found = (
            no_winner_problem(record.reason, record.winner),
            loser_problem(record.reason, record.winner, record.first, len(moves)),
        )
        report.problems.extend(problem for problem in found if problem is not None)
    if record.trailer is not None and not report.problems:
        report.problems.extend(
            ply_time_problems(record.trailer, len(moves), record.first, record.time_seconds)
        )
        report.problems.extend(reply_problems(record.trailer, record.moves, record.first))
    return report
