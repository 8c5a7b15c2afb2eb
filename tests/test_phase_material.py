"""``banqi phases``: the material each engine takes and loses while pieces are face down and
after the last flip, from run folders' records; hand-checked games, real games, and the
refusals."""

import json
import math
import statistics
from datetime import UTC, datetime
from pathlib import Path

import pytest
from click.testing import CliRunner, Result
from in_process_engines import in_process
from job_events import Told
from run_helpers import CASUAL, ENGINES, access, edit

from banqi_cli.main import cli
from banqi_engine.layout import parse_layout
from banqi_engine.pieces import FULL_SET, KIND_LETTERS
from banqi_engine.rules import PRESETS, RuleSet
from referee.deals import Deal, DealBookRef
from referee.engine_spec import EngineSpec
from referee.game_setup import GameSetup
from referee.reasons import Reason
from referee.record import GameEnd, GameRecord, PlyRecord, build_record, player_info
from referee.replay import replay_game_record
from referee.storage import GAMES_DIR, make_games_folder, record_path, save_game
from referee.timecontrol import TimeControl
from referee.withheld import withhold
from tournaments.failures import forfeit_record
from tournaments.match_config import MatchConfig
from tournaments.match_job import MatchJob, run_match_job
from tournaments.pairs import ScheduledGame
from tournaments.phase_material import (
    Balance,
    Kings,
    MaterialByPhase,
    Phase,
    game_material,
    phase_report,
)
from tournaments.piece_values import PIECE_VALUES
from tournaments.results import Record
from tournaments.run_records import RunRecordsError

TIME = TimeControl(time=60)

# Olympiad rules, red (player 0) first. Rank 8 first: a1 G, b1 p, c1 M, d1 p / a2 M, b2 m,
# c2 c, d2 r / a3 R, b3 R, c3 g, d3 K ...; c8 p.
LAYOUT = "pppP/rnnc/Gkgm/PPPP/NNCC/RRgK/Mmcr/GpMp"
FLIPPED_LATER = ["a2", "c1", "d1", "d2", "d3", "a3", "b3"] + [
    f"{file}{rank}"
    for rank in range(4, 9)
    for file in "abcd"
    if f"{file}{rank}" not in ("c8", "d8")
]
"""Every square but the first six flipped and the last one, c8."""


def flip(square: str, layout: str) -> str:
    """The flip of ``square`` showing what ``layout`` holds there: ``b6(K)``."""
    rank = layout.split("/")[8 - int(square[1])]
    return f"{square}({rank['abcd'.index(square[0])]})"


MOVES = [
    *["a1(G)", "b1(p)", "a1-b1"],  # red's G takes p (1)
    *["b2(m)", "b1-b2"],  # G takes m (4)
    *["c2(c)", "b2-c2"],  # G takes c (4.5)
    *["c3(g)", "d8(P)", "c3-c2"],  # black's g takes G (5)
    *[flip(square, LAYOUT) for square in FLIPPED_LATER],  # 25 flips, red's last
    "c2-c1",  # black's g takes M (4), c8 still face down
    "c8(p)",  # the last flip
    "c1-b1",
    "d3-d2",  # every piece face up: red's K takes r (3)
    "d1-d2",  # black's p takes K (6)
]
"""A game whose captures are known: face down red takes 9.5 and black 9; face up red 3,
black 6; then red resigns."""
FACE_DOWN_TAKEN = (9.5, 9.0)
FACE_UP_TAKEN = (3.0, 6.0)

# Hong Kong forum rules (moves onto face-down pieces), red first: a1 R, a2 n, a3 k, d7 c, d8 p.
FORUM_LAYOUT = "PPPp/PPgc/GGMM/NNCC/Kmmr/krgn/ncpp/RRpp"
FORUM_MOVES = [
    "a1(R)",
    "d8(p)",
    "a1-a2(n)",  # R steps onto the face-down n and takes it (2)
    "d7(c)",
    "a2-a3(k)",  # R steps onto the face-down k, which it cannot take: nothing taken
]
"""A game whose one capture is a move onto a face-down piece; black resigns while pieces are
still face down."""


LAST_FLIP = MOVES.index("c8(p)")
"""The known game's last flip: three plies are played after it."""


THINK_MS = (100, 200)
"""In the hand-made records seat 0 thinks 100 ms a ply, seat 1 200 ms (seat 0 plays first)."""


def clocks_after(index: int) -> tuple[int, int]:
    """The clocks of the hand-made records after ply ``index`` (counted from 0)."""
    seat0_plies = index // 2 + 1
    seat1_plies = (index + 1) // 2
    return (
        TIME.time_ms - THINK_MS[0] * seat0_plies,
        TIME.time_ms - THINK_MS[1] * seat1_plies,
    )


def hand_record(
    game_id: str,
    names: tuple[str, str],
    moves: list[str],
    layout: str,
    rules: RuleSet,
    winner: int,
) -> GameRecord:
    """The record of ``moves`` on ``layout`` (a deal book's entry), player 0 first and red,
    ended by the resignation of the player to move, the one who is not ``winner``; it
    replays ok."""
    players = (EngineSpec(name=names[0], command=("a",)), EngineSpec(name=names[1], command=("b",)))
    setup = GameSetup(
        game_id=game_id, rules=rules, time_control=TIME, players=players, first=0, seed=1, deal="d1"
    )
    plies = [
        PlyRecord(
            player=index % 2, move=move, ms=THINK_MS[index % 2], clocks_ms=clocks_after(index)
        )
        for index, move in enumerate(moves)
    ]
    colours = ("red", "black")
    result = Reason.RESIGN.result_words(colours[winner], colours[1 - winner])
    end = GameEnd(winner=winner, reason=Reason.RESIGN, result=result)
    deal = Deal(parse_layout(layout), book=DealBookRef(sha256="0" * 64, entry=0))
    now = datetime.now(UTC)
    info = (
        player_info(players[0]).model_copy(update={"colour": "red"}),
        player_info(players[1]).model_copy(update={"colour": "black"}),
    )
    record = build_record(setup, deal, info, plies, end, now, now)
    assert replay_game_record(record).ok, replay_game_record(record).problems
    return record


def known_game(game_id: str = "g0001", names: tuple[str, str] = ("A", "B")) -> GameRecord:
    return hand_record(game_id, names, MOVES, LAYOUT, PRESETS["olympiad"], winner=1)


def forum_game(game_id: str = "g0003") -> GameRecord:
    return hand_record(
        game_id, ("A", "B"), FORUM_MOVES, FORUM_LAYOUT, PRESETS["hong-kong-forum"], winner=0
    )


def run_folder(out: Path, *records: GameRecord) -> Path:
    """A run folder holding ``records``, written by the referee's own writer."""
    make_games_folder(out)
    for record in records:
        save_game(out, record)
    return out


def phases(*args: str) -> Result:
    return CliRunner().invoke(cli, ["phases", *args])


def test_the_pieces_are_valued_as_players_quote_them() -> None:
    assert dict(PIECE_VALUES) == {"K": 6, "G": 5, "M": 4, "R": 3, "N": 2, "C": 4.5, "P": 1}
    assert "".join(PIECE_VALUES) == KIND_LETTERS


def test_a_known_game_splits_its_captures_at_the_last_flip() -> None:
    material = game_material(known_game())
    assert material.taken[Phase.FACE_DOWN] == FACE_DOWN_TAKEN
    assert material.taken[Phase.FACE_UP] == FACE_UP_TAKEN
    assert material.reached_face_up
    assert material.clocks_at_last_flip_ms == clocks_after(LAST_FLIP)
    assert material.face_up_plies == len(MOVES) - 1 - LAST_FLIP == 3


def test_the_face_up_games_by_the_kings_on_the_board_at_the_last_flip(tmp_path: Path) -> None:
    # the known game: red's K (d3) and black's k (b6) are both up at the last flip (red's
    # is taken after it); B wins
    assert game_material(known_game()).kings_at_last_flip == (True, True)
    # red's K takes the r on d2 and black's p takes it before c8 is flipped: at the last
    # flip only black (seat 1) has its King; then black resigns
    moves = [*MOVES[: LAST_FLIP - 1], "c2-c1", "d3-d2", "d1-d2", "c8(p)"]
    kingless = hand_record("g0004", ("A", "B"), moves, LAYOUT, PRESETS["olympiad"], winner=0)
    assert game_material(kingless).kings_at_last_flip == (False, True)
    result = phases(str(run_folder(tmp_path / "run", known_game(), kingless)), "--json")
    assert result.exit_code == 0, result.output
    a, b = MaterialByPhase.model_validate_json(result.output).engines
    assert a.face_up_by_kings == {
        Kings.BOTH: Record(losses=1),
        Kings.OWN: Record(),
        Kings.OPPONENTS: Record(wins=1),
        Kings.NEITHER: Record(),
    }
    assert b.face_up_by_kings[Kings.OWN] == Record(losses=1)
    assert b.face_up_by_kings[Kings.BOTH] == Record(wins=1)
    text = phases(str(tmp_path / "run")).output.splitlines()
    table = text.index("Face-up games by the Kings at the last flip")
    rows = [line.split() for line in text[table:]]
    assert ["A", "both", "1", "0", "0", "1", "0.0%"] in rows
    assert ["opponent's", "only", "1", "1", "0", "0", "100.0%"] in rows


@pytest.mark.parametrize(
    ("own", "opponents", "kings"),
    [
        (True, True, Kings.BOTH),
        (True, False, Kings.OWN),
        (False, True, Kings.OPPONENTS),
        (False, False, Kings.NEITHER),
    ],
)
def test_the_cases_of_the_kings(own: bool, opponents: bool, kings: Kings) -> None:
    assert Kings.of(own, opponents) is kings


def test_a_move_onto_a_face_down_piece_that_takes_it_is_a_capture() -> None:
    material = game_material(forum_game())
    assert material.taken[Phase.FACE_DOWN] == (2.0, 0.0)
    assert material.taken[Phase.FACE_UP] == (0.0, 0.0)
    assert not material.reached_face_up
    assert material.clocks_at_last_flip_ms is None and material.face_up_plies == 0


def test_the_figures_of_a_run_per_engine_by_name(tmp_path: Path) -> None:
    """A plays seat 0 of the known game, seat 1 of it again (the names swapped), and wins
    the forum game by 2 taken face down: per game nets and their standard errors."""
    out = run_folder(tmp_path / "run", known_game(), known_game("g0002", ("B", "A")), forum_game())
    result = phases(str(out), "--json")
    assert result.exit_code == 0, result.output
    report = MaterialByPhase.model_validate_json(result.output)
    assert report.games == 3 and report.folders == [str(out)]
    engines = {engine.name: engine for engine in report.engines}
    assert [engine.name for engine in report.engines] == ["A", "B"]
    a = engines["A"]
    red, black = FACE_DOWN_TAKEN
    down_nets = [red - black, black - red, 2]
    assert a.games == a.face_down.games == 3
    assert a.face_down.taken == red + black + 2 and a.face_down.lost == black + red
    assert a.face_down.net_per_game == pytest.approx(statistics.mean(down_nets))
    assert a.face_down.net_error == pytest.approx(statistics.stdev(down_nets) / math.sqrt(3))
    assert a.face_up.games == 2
    assert (a.face_up.taken, a.face_up.lost) == (3 + 6, 6 + 3)
    assert a.face_up.net_per_game == 0
    assert a.face_up.net_error == pytest.approx(statistics.stdev([3 - 6, 6 - 3]) / math.sqrt(2))
    score = a.face_up_score
    assert (score.wins, score.draws, score.losses, score.void) == (1, 0, 1, 0)
    # A sat in seat 0 of one face-up game and seat 1 of the other: its clock at the last
    # flip is the mean of both seats' clocks there, as is its opponents'.
    seat0, seat1 = clocks_after(LAST_FLIP)
    assert a.clock_at_last_flip == pytest.approx((seat0 + seat1) / 2000)
    assert a.opponent_clock_at_last_flip == pytest.approx((seat1 + seat0) / 2000)
    assert a.face_up_plies == 3 and a.face_up_endings == {"resign": 2}
    # level at both last flips (half a Pawn ahead, then behind): lost one, won the other
    assert a.face_up_by_balance == {
        Balance.AHEAD: Record(),
        Balance.LEVEL: Record(wins=1, losses=1),
        Balance.BEHIND: Record(),
    }
    b = engines["B"]
    assert b.face_down.taken == a.face_down.lost and b.face_down.lost == a.face_down.taken
    assert b.face_down.net_per_game == pytest.approx(-statistics.mean(down_nets))


def test_the_text_report_has_a_row_per_engine_and_phase(tmp_path: Path) -> None:
    out = run_folder(tmp_path / "run", known_game(), forum_game())
    result = phases(str(out))
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert lines[0] == (
        f"material by phase in 2 games of {out}; piece values K 6, G 5, M 4, R 3, N 2, C 4.5, P 1"
    )
    rows = [line.split() for line in lines]
    # A: face down 9.5 + 2 taken, 9 lost (nets 0.5 and 2: SE 0.75); face up (the known game
    # only) 3 taken, 6 lost.
    assert ["A", "face", "down", "2", "11.5", "9.0", "5.75", "4.50", "+1.25", "0.75"] in rows
    assert ["face", "up", "1", "3.0", "6.0", "3.00", "6.00", "-3.00", "-"] in rows
    assert ["B", "face", "down", "2", "9.0", "11.5", "4.50", "5.75", "-1.25", "0.75"] in rows
    # The known game reached the face-up phase and B won it; the forum game did not. A had
    # seat 0's clock at the last flip, B seat 1's.
    seat0, seat1 = (f"{ms / 1000:.2f}" for ms in clocks_after(LAST_FLIP))
    assert ["A", "2", "1", "50%", "0", "0", "1", seat0, seat1, "3", "resign", "1"] in rows
    assert ["B", "2", "1", "50%", "1", "0", "0", seat1, seat0, "3", "resign", "1"] in rows
    assert not any(line.startswith("left out") for line in lines)
    # A entered the known game's endgame level (half a Pawn ahead) and lost it
    assert ["A", "ahead", "0", "0", "0", "0", "-"] in rows
    assert ["level", "1", "0", "0", "1", "0.0%"] in rows
    assert ["B", "ahead", "0", "0", "0", "0", "-"] in rows
    assert ["level", "1", "1", "0", "0", "100.0%"] in rows


def test_withheld_records_and_forfeited_games_are_left_out_and_counted(tmp_path: Path) -> None:
    out = run_folder(tmp_path / "run", known_game())
    withheld = withhold(forum_game("g0002"))
    record_path(out, withheld.game_id).write_text(withheld.model_dump_json(), encoding="utf-8")
    game = ScheduledGame(
        setup=GameSetup(
            game_id="g0003",
            rules=CASUAL,
            time_control=TIME,
            players=(EngineSpec(name="A", command=("a",)), EngineSpec(name="B", command=("b",))),
            first=0,
            seed=1,
            deal="d2",
        ),
        engines=(0, 1),
        pair_id="p2",
    )
    deal = Deal(parse_layout(LAYOUT), book=DealBookRef(sha256="0" * 64, entry=1))
    save_game(out, forfeit_record(game, {"B"}, deal))

    result = phases(str(out))
    assert result.exit_code == 0, result.output
    assert result.output.splitlines()[:2] == [
        f"material by phase in 1 game of {out}; piece values K 6, G 5, M 4, R 3, N 2, C 4.5, P 1",
        "left out: 1 withheld record (a game of its deal has not ended), "
        "1 forfeited game (not played)",
    ]
    report = phase_report([out])
    assert (report.left_out.withheld, report.left_out.forfeited) == (1, 1)
    assert [engine.games for engine in report.engines] == [1, 1]


def test_several_runs_add_up(tmp_path: Path) -> None:
    first = run_folder(tmp_path / "one", known_game())
    second = run_folder(tmp_path / "two", known_game("g0001", ("B", "A")))
    report = phase_report([first, second])
    assert report.games == 2
    a = next(engine for engine in report.engines if engine.name == "A")
    assert a.face_down.net_per_game == 0 and a.face_up.games == 2


def test_real_games_lose_every_capture_to_the_other_side(tmp_path: Path) -> None:
    """Two short games of the built-in engines: what one engine takes the other loses, and
    each game's captures, both phases, are the material missing from its final position."""
    out = tmp_path / "match"
    config = MatchConfig(engines=ENGINES, games=2, rules=CASUAL, seed=5, out=out)
    outcome = run_match_job(
        MatchJob(config=config, access=access(tmp_path)), Told().match_events(), in_process()
    )
    report = phase_report([out])
    assert report.games == 2
    one, other = report.engines
    for phase in ("face_down", "face_up"):
        assert getattr(one, phase).taken == getattr(other, phase).lost
        assert getattr(one, phase).lost == getattr(other, phase).taken
    full = 2 * sum(
        count * PIECE_VALUES[letter] for letter, count in zip(KIND_LETTERS, FULL_SET, strict=True)
    )
    captured = 0.0
    face_up = 0
    for record in outcome.records:
        final = replay_game_record(record).final_position.split()
        board, pool = final[0].replace("/", ""), final[2]
        left = sum(PIECE_VALUES[c.upper()] for c in board if c.isalpha() and c != "X")
        left += sum(int(n) * PIECE_VALUES[KIND_LETTERS[i % 7]] for i, n in enumerate(pool))
        captured += full - left
        face_up += "X" not in board
    assert one.face_down.taken + one.face_down.lost + one.face_up.taken + one.face_up.lost == (
        pytest.approx(captured)
    )
    assert one.face_up.games == other.face_up.games == face_up
    # one's endgames entered ahead are the other's entered behind, the results turned round
    for mine, theirs in ((Balance.AHEAD, Balance.BEHIND), (Balance.LEVEL, Balance.LEVEL)):
        ours, its = one.face_up_by_balance[mine], other.face_up_by_balance[theirs]
        assert (ours.wins, ours.draws, ours.losses) == (its.losses, its.draws, its.wins)
    assert sum(record.games for record in one.face_up_by_balance.values()) == face_up
    for mine, theirs in ((Kings.OWN, Kings.OPPONENTS), (Kings.BOTH, Kings.BOTH)):
        ours, its = one.face_up_by_kings[mine], other.face_up_by_kings[theirs]
        assert (ours.wins, ours.draws, ours.losses) == (its.losses, its.draws, its.wins)
    assert sum(record.games for record in one.face_up_by_kings.values()) == face_up


@pytest.mark.parametrize(
    ("net", "balance"),
    [
        (1.5, Balance.AHEAD),
        (1.0, Balance.LEVEL),
        (0.0, Balance.LEVEL),
        (-1.0, Balance.LEVEL),
        (-1.5, Balance.BEHIND),
    ],
)
def test_level_is_within_a_pawn_at_the_last_flip(net: float, balance: Balance) -> None:
    assert Balance.of(net) is balance


def test_a_missing_folder_a_file_and_a_folder_without_records_are_refused(
    tmp_path: Path,
) -> None:
    (tmp_path / "file").write_text("x")
    (tmp_path / "empty" / GAMES_DIR).mkdir(parents=True)
    expected = {
        "nowhere": f"no run folder {tmp_path / 'nowhere'}: it does not exist",
        "file": f"{tmp_path / 'file'} is not a folder: give a run folder (the --out of a match, "
        "tournament, SPRT or tuning run)",
        "empty": f"{tmp_path / 'empty'} holds no game records (games/*.json): not a run "
        "folder, or no game of it has ended yet",
    }
    for name, words in expected.items():
        result = phases(str(tmp_path / name))
        assert result.exit_code == 1
        assert result.output == f"Error: {words}\n"


def test_a_folder_given_twice_is_refused(tmp_path: Path) -> None:
    out = run_folder(tmp_path / "run", known_game())
    result = phases(str(out), str(tmp_path / "run" / ".." / "run"))
    assert result.exit_code == 1
    assert result.output.startswith(f"Error: the run folder {tmp_path / 'run' / '..' / 'run'}")


def test_records_that_cannot_be_read_or_do_not_replay_are_named(tmp_path: Path) -> None:
    out = run_folder(tmp_path / "run", known_game(), known_game("g0002"), forum_game())
    damaged = record_path(out, "g0001")
    damaged.write_text('{"format": ', encoding="utf-8")
    illegal = record_path(out, "g0002")
    data = json.loads(illegal.read_text(encoding="utf-8"))
    data["plies"][2]["move"] = "a1-a2"  # a2 is face down: olympiad rules do not step onto it
    edit(illegal, {"plies": data["plies"]})

    result = phases(str(out))
    assert result.exit_code == 1
    [line] = result.output.splitlines()
    assert line.startswith(
        f"Error: 2 record(s) cannot be counted: record {damaged} is not a valid banqi-record/1 "
        "record: "
    )
    assert f"; record {illegal} does not replay: ply 3 (a1-a2) is illegal: " in line
    assert line.endswith("Move them out of the run folder to leave them out of the figures")
    with pytest.raises(RunRecordsError):
        phase_report([out])


def test_a_void_face_up_game_has_a_void_column_and_no_score(tmp_path: Path) -> None:
    """Both engines failed in the known game: it counts in Games and Void, in no W-D-L and
    in no score, in the face-up table and by material at the last flip alike."""
    data = known_game().model_dump(mode="json")
    data.update(
        void=True,
        winner=None,
        reason=Reason.CRASH.value,
        result="void: both engines failed (red crashed; black crashed)",
    )
    void = GameRecord.model_validate(data)
    out = run_folder(tmp_path / "run", void, known_game("g0002"))
    result = phases(str(out))
    assert result.exit_code == 0, result.output
    rows = [line.split() for line in result.output.splitlines()]
    assert ["Engine", "At", "the", "last", "flip", "Games", "W", "D", "L", "Void", "Score"] in rows
    # A was level at both last flips (half a Pawn ahead), lost the scored game
    assert ["A", "ahead", "0", "0", "0", "0", "0", "-"] in rows
    assert ["level", "2", "0", "0", "1", "1", "0.0%"] in rows
    assert ["level", "2", "1", "0", "0", "1", "100.0%"] in rows
