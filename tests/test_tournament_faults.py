"""An engine that keeps crashing: its games are lost, then forfeited; the run goes on."""

import contextlib
import json
import shlex
import shutil
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from banqi_cli.tournament_command import tournament_command
from referee.engine_spec import EngineSpec
from referee.game_setup import deal_secret_of
from referee.reasons import Reason
from referee.record import GameRecord, read_record
from referee.replay import replay_game_record
from tournaments.config import TournamentConfig
from tournaments.failures import FailureTracker, forfeit_record
from tournaments.schedule import schedule

CRASHER = """
import sys
with open(sys.argv[1], "a") as starts:
    starts.write("start\\n")
for line in sys.stdin:
    words = line.split()
    if not words:
        continue
    if words[0] == "12":
        sys.stderr.write("segmentation fault (pretend)\\n")
        sys.exit(3)
    print(f"={words[0]}", flush=True)
"""

CRASHER_GAMES = ["r1-1-2-1", "r1-1-2-2", "r1-1-3-1"]
FORFEITED = ["r1-1-3-2", "r2-1-2-1", "r2-1-2-2", "r2-1-3-1", "r2-1-3-2"]
UNAFFECTED = ["r1-2-3-1", "r1-2-3-2", "r2-2-3-1", "r2-2-3-2"]
BOARD_ENDINGS = {Reason.NO_LEGAL_MOVE, Reason.THREEFOLD_REPETITION, Reason.NO_PROGRESS}


def banqi_engine() -> str:
    beside = Path(sys.executable).with_name("banqi-engine")
    found = str(beside) if beside.exists() else shutil.which("banqi-engine")
    if found is None:
        pytest.fail("the banqi-engine script is not installed")
    return shlex.quote(found)


@pytest.fixture(scope="module")
def engines(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The folder of the crasher script and of its start log."""
    folder = tmp_path_factory.mktemp("engines")
    (folder / "crasher.py").write_text(CRASHER)
    return folder


def tournament_args(engines: Path, tmp_path: Path) -> list[str]:
    program, starts = engines / "crasher.py", engines / "starts.txt"
    crasher = shlex.join([sys.executable, str(program), str(starts)])
    return [
        "--engine",
        f"crasher={crasher}",
        f"--cwd=crasher={engines}",  # the crasher writes its start log there
        "--engine",
        f"alpha={banqi_engine()} --level 0 --seed 1",
        "--engine",
        f"beta={banqi_engine()} --level 1 --seed 2",
        "--rounds",
        "2",
        "--rules",
        "casual",
        "--stall-timeout",
        "30",
        "--seed",
        "3",
        "--out",
        str(tmp_path / "run"),
        "--key-file",
        str(tmp_path / "referee.key"),
    ]


def load(tmp_path: Path, game_id: str) -> GameRecord:
    return read_record(tmp_path / "run" / "games" / f"{game_id}.json")


def loser(record: GameRecord) -> str | None:
    return None if record.winner is None else record.players[1 - record.winner].name


@pytest.fixture(scope="module")
def faulty_run(engines: Path, tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str, str]:
    """A finished run with the crasher: its folder, its stdout and its stderr."""
    tmp_path = tmp_path_factory.mktemp("faults")
    result = CliRunner().invoke(tournament_command, tournament_args(engines, tmp_path))
    assert result.exit_code == 0, result.output
    return tmp_path, result.stdout, result.stderr


def test_crashes_are_lost_games(faulty_run: tuple[Path, str, str], engines: Path) -> None:
    tmp_path, stdout, _ = faulty_run
    for game_id in CRASHER_GAMES:
        record = load(tmp_path, game_id)
        assert record.reason == Reason.CRASH
        assert loser(record) == "crasher"
        assert "return code 3" in record.detail
        assert record.end_ply == (0 if record.first == 0 else 1)
        assert replay_game_record(record).ok
        assert f"{game_id} " in stdout
    assert stdout.count("FAULT") == len(CRASHER_GAMES)
    checked_once = 1  # started and handshaken before the first game
    assert (engines / "starts.txt").read_text().count("start") == checked_once + len(CRASHER_GAMES)


def test_remaining_games_are_forfeited(faulty_run: tuple[Path, str, str]) -> None:
    tmp_path, _, stderr = faulty_run
    for game_id in FORFEITED:
        record = load(tmp_path, game_id)
        assert record.reason == Reason.FORFEIT
        assert loser(record) == "crasher"
        assert record.plies == []
        assert record.end_ply == 0
        assert replay_game_record(record).ok
        assert (tmp_path / "run" / "games" / f"{game_id}.txt").is_file()
    assert "ENGINE FAILING: crasher" in stderr
    assert "its 5 remaining games are forfeited" in stderr
    assert "return code 3" in stderr


def test_other_games_are_unaffected(faulty_run: tuple[Path, str, str]) -> None:
    tmp_path, _, stderr = faulty_run
    for game_id in UNAFFECTED:
        record = load(tmp_path, game_id)
        assert [p.name for p in record.players] == ["alpha", "beta"]
        assert record.reason in BOARD_ENDINGS
        assert record.end_ply == len(record.plies) > 0
        assert replay_game_record(record).ok
    assert "alpha" not in stderr
    assert "beta" not in stderr


def test_standings_count_forfeits_as_losses(faulty_run: tuple[Path, str, str]) -> None:
    tmp_path, stdout, _ = faulty_run
    rows = {row["name"]: row for row in json.loads((tmp_path / "run/standings.json").read_text())}
    assert rows["crasher"]["games"] == 8
    assert rows["crasher"]["losses"] == 8
    assert rows["crasher"]["points"] == 0
    assert rows["crasher"]["rank"] == 3
    records = [read_record(p) for p in (tmp_path / "run" / "games").glob("*.json")]
    assert len(records) == 12
    for name in ("alpha", "beta"):
        mine = [(r, seat) for r in records for seat in (0, 1) if r.players[seat].name == name]
        assert rows[name]["games"] == len(mine) == 8
        assert rows[name]["points"] == sum(r.points(seat) for r, seat in mine)
    assert "Standings" in stdout


def test_resumed_run_keeps_the_engine_out(
    faulty_run: tuple[Path, str, str], engines: Path, tmp_path: Path
) -> None:
    source, _, _ = faulty_run
    shutil.copytree(source / "run", tmp_path / "run")
    shutil.copy(source / "referee.key", tmp_path / "referee.key")
    starts = (engines / "starts.txt").read_text()
    for game_id in FORFEITED[-2:]:
        (tmp_path / "run" / "games" / f"{game_id}.json").unlink()
    with contextlib.chdir(engines):
        result = CliRunner().invoke(tournament_command, tournament_args(engines, tmp_path))
    assert result.exit_code == 0, result.output
    assert "ENGINE FAILING: crasher" in result.stderr
    assert "its 2 remaining games are forfeited" in result.stderr
    assert (engines / "starts.txt").read_text() == starts + "start\n"  # the check only
    for game_id in FORFEITED[-2:]:
        assert load(tmp_path, game_id).reason == Reason.FORFEIT


def tracker_records() -> tuple[GameRecord, GameRecord]:
    """A won and a lost record template for engine ``x`` against ``y``."""
    engines = (
        EngineSpec(name="x", command=("x",)),
        EngineSpec(name="y", command=("y",)),
    )
    game = next(schedule(TournamentConfig(engines=engines), 1))
    lost = forfeit_record(game, {"x"}, deal_secret_of(game.setup, b"k" * 32))
    return lost.model_copy(update={"winner": 0}), lost


@pytest.mark.parametrize(
    ("outcomes", "out"),
    [
        ("CCC", True),
        ("CCWCC", False),
        ("CCDCC", False),
        ("CCLCC", False),
        ("CCFC", True),
        ("CCyC", False),
        ("CTU", True),
        ("CtU", False),
        ("ttt", False),
        ("CSI", True),
        ("CVC", True),
        ("VVV", True),
    ],
)
def test_failures_must_come_in_a_row(outcomes: str, out: bool) -> None:
    """C crash, T time (no answer at all), U unreadable, S stall, I illegal; W win, D draw,
    L board loss, t time (answered, too late); F forfeit (not counted); y: the opponent
    crashed; V void (both engines failed: a failure of each)."""
    won, lost = tracker_records()
    faults = {
        "C": Reason.CRASH,
        "T": Reason.TIME_FORFEIT,
        "U": Reason.UNREADABLE_REPLY,
        "S": Reason.STALL,
        "I": Reason.ILLEGAL_MOVE,
    }
    tracker = FailureTracker(limit=3)
    newly_out: list[str] = []
    for letter in outcomes:
        if letter in faults:
            silent = letter in "TS"
            record = lost.model_copy(update={"reason": faults[letter], "stopped_answering": silent})
        elif letter == "t":
            record = lost.model_copy(update={"reason": Reason.TIME_FORFEIT})
        elif letter == "W":
            record = won.model_copy(update={"reason": Reason.NO_LEGAL_MOVE})
        elif letter == "D":
            record = won.model_copy(update={"reason": Reason.NO_PROGRESS, "winner": None})
        elif letter == "L":
            record = lost.model_copy(update={"reason": Reason.NO_LEGAL_MOVE})
        elif letter == "y":
            record = won.model_copy(update={"reason": Reason.CRASH})
        elif letter == "V":
            record = lost.model_copy(update={"reason": Reason.CRASH, "winner": None, "void": True})
        else:
            record = lost
        newly_out += tracker.add(record)
    assert ("x" in tracker.out) == out
    both_void = outcomes == "VVV"
    assert newly_out == (["x", "y"] if both_void else ["x"] if out else [])
    assert ("y" in tracker.out) == both_void


def test_a_game_whose_engines_are_both_out_is_void() -> None:
    engines = (EngineSpec(name="x", command=("x",)), EngineSpec(name="y", command=("y",)))
    game = next(schedule(TournamentConfig(engines=engines), 1))
    record = forfeit_record(game, {"x", "y"}, deal_secret_of(game.setup, b"k" * 32))
    assert record.void and record.winner is None
    assert (record.score, record.points(0), record.points(1)) == ("void", 0.0, 0.0)
    assert record.result == "void: both engines forfeited"
