"""Statistics from game records: seats, void games (also both engines forfeited), a match's
head to head."""

from datetime import UTC, datetime

import pytest

from banqi_engine.rules import PRESETS
from referee.reasons import Reason
from referee.record import GameRecord, PlayerInfo
from referee.timecontrol import TimeControl
from tournaments.from_records import game_result, head_to_head_from_records, standings_from_records
from tournaments.reports import format_head_to_head

NOW = datetime(2024, 5, 1, 12, 0, tzinfo=UTC)


def record(
    number: int,
    deal: str,
    first: int,
    winner: int | None,
    reason: Reason = Reason.NO_LEGAL_MOVE,
    void: bool = False,
    names: tuple[str, str] = ("alpha", "beta"),
) -> GameRecord:
    """A withheld record (no layout needed) of ``names[0]`` against ``names[1]``."""
    return GameRecord(
        game_id=f"g{number:04d}",
        rules=PRESETS["casual"],
        time_control=TimeControl(),
        players=(
            PlayerInfo(name=names[0], command=["a"]),
            PlayerInfo(name=names[1], command=["b"]),
        ),
        first=first,
        seed=1,
        deal=deal,
        withheld=True,
        started_at=NOW,
        finished_at=NOW,
        plies=[],
        winner=winner,
        reason=reason,
        result="",
        end_ply=0,
        void=void,
    )


def test_seats_in_move_order() -> None:
    result = game_result(record(1, "7", first=1, winner=1), {"7": 3})
    assert (result.first, result.second, result.winner, result.pair, result.void) == (
        "beta",
        "alpha",
        0,
        3,
        False,
    )


@pytest.mark.parametrize(
    ("reason", "void", "expected"),
    [
        (Reason.CRASH, True, True),
        (Reason.FORFEIT, True, True),
        (Reason.FORFEIT, False, True),  # both forfeited, written before records had void
        (Reason.NO_PROGRESS, False, False),  # a draw
    ],
)
def test_void_records(reason: Reason, void: bool, expected: bool) -> None:
    result = game_result(record(1, "0", 0, None, reason, void), {"0": 0})
    assert (result.winner, result.void) == (None, expected)


def test_a_forfeit_with_a_winner_is_not_void() -> None:
    assert not game_result(record(1, "0", 0, 0, Reason.FORFEIT), {"0": 0}).void


def test_standings_count_void_records() -> None:
    records = [
        record(1, "0", 0, None, Reason.CRASH, void=True),
        record(2, "0", 1, 0),
        record(3, "1", 0, None, Reason.FORFEIT),
        record(4, "1", 1, None, Reason.FORFEIT),
    ]
    standings = standings_from_records(records, ["alpha", "beta"], ["0", "0", "1", "1"])
    alpha, beta = standings.rows
    assert (alpha.name, alpha.games, alpha.wins, alpha.void, alpha.points) == ("alpha", 4, 1, 3, 1)
    assert (beta.games, beta.losses, beta.void, beta.points) == (4, 1, 3, 0)
    assert standings.pairs[0].pairs == 0


def test_match_head_to_head() -> None:
    # Deal 0: alpha wins both; deal 1: a draw, then beta wins; deal 2: one game, alpha wins.
    records = [
        record(1, "0", 0, 0),
        record(2, "0", 1, 0),
        record(3, "1", 0, None, Reason.NO_PROGRESS),
        record(4, "1", 1, 1),
        record(5, "2", 0, 0),
    ]
    stats = head_to_head_from_records(records, "alpha", "beta")
    assert (stats.games, stats.wins, stats.draws, stats.losses, stats.void) == (5, 3, 1, 1, 0)
    assert (stats.pairs, stats.pentanomial) == (2, (0, 1, 0, 0, 1))
    assert format_head_to_head(stats).startswith("alpha vs beta: 5 games, W-D-L 3-1-1, Elo +")
    mirrored = head_to_head_from_records(records, "beta", "alpha")
    assert (mirrored.wins, mirrored.losses, mirrored.pentanomial) == (1, 3, (1, 0, 0, 1, 0))
    with pytest.raises(ValueError, match="'gamma' is not in the tournament"):
        head_to_head_from_records(
            [*records, record(6, "3", 0, 0, names=("alpha", "gamma"))], "alpha", "beta"
        )
