"""The checks of a record beyond its plies: distinct players, the result's words, who lost
a fault, the clocks, the times. ``referee.replay`` runs them; each returns its problems."""

from banqi_engine.game import Outcome
from banqi_engine.pieces import COLOUR_NAMES, Colour

from .reasons import Reason
from .record import GameRecord
from .timecontrol import Clock

VOID_PREFIX = "void: "
"""How the result of a void game begins (``referee.game_loop``, ``tournaments.failures``)."""
_TO_MOVE_FAULTS = (
    Reason.TIME_FORFEIT,
    Reason.ILLEGAL_MOVE,
    Reason.UNREADABLE_REPLY,
    Reason.RESIGN,
)
"""Reasons only the player to move can lose by: they end a genmove."""


def names_problem(names: tuple[str, str]) -> str | None:
    """The problem of two players with one name, if they have."""
    if names[0] == names[1]:
        return f"both players are named {names[0]!r}: a record's players have distinct names"
    return None


def label(record: GameRecord, colours: list[Colour | None], player: int) -> str:
    """How a result names a player: its colour once known, else its name."""
    colour = colours[player]
    return COLOUR_NAMES[colour] if colour is not None else record.players[player].name


def result_problem(
    record: GameRecord, colours: list[Colour | None], outcome: Outcome | None
) -> str | None:
    """The problem of a ``result`` whose words are not the ones its winner, reason and the
    board give (an end on the board whose board is unknown, withheld, is not checked)."""
    no_winner = no_winner_problem(record.reason, record.winner)
    if no_winner is not None:
        return no_winner
    if record.void or (record.winner is None and not record.reason.is_board_end):
        expected_start = VOID_PREFIX
        if not record.result.startswith(expected_start):
            return (
                f"the result {record.result!r} is not a void game's ('{expected_start}...'), "
                f"but the record has no winner and ends by {record.reason.value}"
            )
        return None
    accepted: tuple[str, ...] = ()
    if record.reason.is_board_end:
        if outcome is None or Reason.of_board_end(outcome.reason) is not record.reason:
            return None  # the ending's own check says what is wrong
        expected = outcome.description
        accepted = outcome.also_said  # the words records used for it before
    else:
        assert record.winner is not None  # not void, not a board end
        loser = 1 - record.winner
        expected = record.reason.result_words(
            label(record, colours, record.winner), label(record, colours, loser)
        )
    if record.result != expected and record.result not in accepted:
        return f"the result {record.result!r} is not what the record's ending says: {expected!r}"
    return None


def no_winner_problem(reason: Reason, winner: int | None) -> str | None:
    """The problem of a game without a winner ended by a reason that gives one: only a
    draw on the board, or a void game (both engines failed: a fault's reason, or both
    forfeited), has none."""
    if winner is not None or reason.is_board_end or reason.is_fault or reason is Reason.FORFEIT:
        return None
    return f"a game ended by {reason.value} has a winner, but the record names none"


def loser_problem(reason: Reason, winner: int | None, first: int, plies: int) -> str | None:
    """The problem of a genmove's fault (time, illegal or unreadable move, resignation)
    charged to the player who was not to move after the record's ``plies``."""
    if winner is None or reason not in _TO_MOVE_FAULTS:
        return None
    to_move = first if plies % 2 == 0 else 1 - first
    loser = 1 - winner
    if loser != to_move:
        return (
            f"the record says player {loser} lost by {reason.value} after {plies} plies, "
            f"but player {to_move} was to move"
        )
    return None


CLOCK_SLACK_MS = 2
"""How far a recorded clock may be from the one its ply gives: both are rounded to a ms."""


def clock_problems(record: GameRecord) -> list[str]:
    """What is wrong with the plies' times and clocks: each ply within what its mover had
    (its clock or move limit, with the margin), and the clocks after it the ones the time
    controls, the clocks before it and its time give (each ply is checked from the clocks
    recorded before it, so rounding never adds up)."""
    controls = tuple(p.time_control or record.time_control for p in record.players)
    clock = Clock((controls[0], controls[1]))
    for number, ply in enumerate(record.plies, start=1):
        allowed = round(clock.allowance(ply.player) * 1000)
        if ply.ms > allowed + CLOCK_SLACK_MS:
            return [
                f"ply {number} took {ply.ms} ms, but player {ply.player} had {allowed} ms "
                f"({clock.left_words(ply.player)}, with the margin): it lost on time, "
                "yet the record goes on"
            ]
        clock.charge(ply.player, ply.ms / 1000)
        expected = (clock.remaining_ms(0), clock.remaining_ms(1))
        if any(abs(a - b) > CLOCK_SLACK_MS for a, b in zip(ply.clocks_ms, expected, strict=True)):
            return [
                f"ply {number}: clocks_ms {list(ply.clocks_ms)} do not follow from the time "
                f"control ({controls[0].describe()} and {controls[1].describe()}), the clocks "
                f"before and the ply's {ply.ms} ms, which give {list(expected)}"
            ]
        clock.remaining = [ms / 1000 for ms in ply.clocks_ms]
    return []


def times_problem(record: GameRecord) -> str | None:
    """The problem of a game that finished before it started."""
    if record.finished_at < record.started_at:
        return f"finished_at {record.finished_at} is before started_at {record.started_at}"
    return None
