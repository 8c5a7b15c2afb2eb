"""``banqi bench face-up``: the face-up moves of an engine in run records searched again, short
and deep; on a hand-made game whose face-up plies are known."""

from pathlib import Path

from click.testing import CliRunner
from test_phase_material import LAST_FLIP, LAYOUT, MOVES, TIME, forum_game, known_game, run_folder

from banqi_cli.main import cli
from banqi_engine.layout import parse_layout
from banqi_engine.rules import PRESETS
from referee.deals import Deal, DealBookRef
from referee.engine_spec import EngineSpec
from referee.game_setup import GameSetup
from referee.record import GameRecord
from tournaments.face_up_review import band_figures, engine_seat, review_record
from tournaments.failures import forfeit_record
from tournaments.pairs import ScheduledGame


def forfeited_game(game_id: str) -> GameRecord:
    """The record of a game A and B never played: B forfeited it."""
    players = (EngineSpec(name="A", command=("a",)), EngineSpec(name="B", command=("b",)))
    setup = GameSetup(
        game_id=game_id,
        rules=PRESETS["olympiad"],
        time_control=TIME,
        players=players,
        first=0,
        seed=1,
        deal="d2",
    )
    game = ScheduledGame(setup=setup, engines=(0, 1), pair_id="p2")
    deal = Deal(parse_layout(LAYOUT), book=DealBookRef(sha256="0" * 64, entry=1))
    return forfeit_record(game, {"B"}, deal)


def test_only_the_engines_face_up_moves_are_reviewed() -> None:
    record = known_game()
    seat = engine_seat(record, "A")
    assert seat == 0 and engine_seat(record, "B") == 1 and engine_seat(record, "C") is None
    face_up = range(LAST_FLIP + 1, len(MOVES))
    for name, seat in (("A", 0), ("B", 1)):
        reviewed = list(review_record(record, seat, 0.1, 2, stride=1))
        ours = [ply for ply in face_up if ply % 2 == seat]
        assert [move.ply for move in reviewed] == [ply + 1 for ply in ours], name
        for move in reviewed:
            assert move.played == MOVES[move.ply - 1]
            assert move.short_depth >= 1 and move.deep_depth >= 1
            assert move.agrees == (move.short_move == move.deep_move)
        # a game that never reached the face-up phase has nothing to review
        assert list(review_record(forum_game(), seat, 0.01, 2, stride=1)) == []


def test_the_figures_are_by_pieces_left() -> None:
    reviewed = list(review_record(known_game(), 0, 0.01, 2, stride=1))
    assert reviewed
    bands = band_figures(reviewed)
    assert sum(band.positions for band in bands) == len(reviewed)
    for band in bands:
        inside = [m for m in reviewed if band.low <= m.pieces <= band.high]
        assert band.positions == len(inside)
        assert band.agreement == sum(m.agrees for m in inside) / len(inside)


def test_the_command_prints_a_row_per_band_and_refuses_an_unknown_engine(tmp_path: Path) -> None:
    out = run_folder(tmp_path / "run", known_game(), forum_game(), forfeited_game("g0004"))
    runner = CliRunner()
    args = ["bench", "face-up", str(out), "--seconds", "0.01", "--deep", "2", "--stride", "1"]
    result = runner.invoke(cli, [*args, "--engine", "A", "--moves"])
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert any(line.startswith("g0001 ply") for line in lines)
    # the forfeited game, never played, is not counted
    assert "face-up moves of A in 2 games, every 1: 0.01s against 0.02s" in lines
    header = lines.index("pieces  positions  depth  deep depth  same move  played = deep")
    assert len(lines) > header + 1
    missing = runner.invoke(cli, [*args, "--engine", "nobody"])
    assert missing.exit_code == 1
    assert "has a player named 'nobody'; the players are A, B" in missing.output
    # the forum game never reached the face-up phase: nothing to review is an error, not a
    # table of nothing
    down = run_folder(tmp_path / "down", forum_game())
    empty = runner.invoke(cli, ["bench", "face-up", str(down), "--engine", "A"])
    assert empty.exit_code == 1
    assert "A has no face-up move to review" in empty.output
