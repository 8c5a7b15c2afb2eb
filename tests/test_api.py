"""The Python API (``banqi``): Engine.popen/builtin and play, play_game, and their errors."""

import subprocess
import sys
import textwrap
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from in_process_engines import ENGINE
from referee_fakes import Fake, is_running, is_unreaped_child, write_fake

import banqi
from banqi.errors import (
    ArgumentError,
    EngineClosedError,
    PositionNotSupportedError,
    UnreadableMoveError,
)
from banqi_engine.layout import format_layout
from banqi_engine.pieces import COLOUR_NAMES
from protocol.errors import EngineStartError, EngineTerminatedError, EngineTimeoutError
from referee.record import GameRecord
from tournaments.match_job import MatchOutcome

RECORDING = """
def received(line):
    note("lines", line.decode().strip())
"""
"""Custom code for a fake that writes every line it hears to ``<name>.lines``."""
MIDGAME = "CXKg/RXPG/XXXX/XXXX/XnPX/NrXN/cXXX/XXpk b 01210130121114 0 14"


def played(game: banqi.Game, seed: int, plies: int) -> banqi.Game:
    """``game`` with its first legal move played ``plies`` times on the layout of ``seed``."""
    layout = banqi.deal(seed)
    for _ in range(plies):
        move = game.legal_moves()[0]
        game.play(move, game.piece_shown(move, layout))
    return game


def heard(fake: Fake) -> list[str]:
    """Every line the fake's processes heard, in order."""
    path = fake.folder / f"{fake.name}.lines"
    return path.read_text().splitlines() if path.exists() else []


def gone(pid: int, wait: float = 5.0) -> bool:
    """Whether ``pid`` ended and was reaped within ``wait`` seconds."""
    deadline = time.monotonic() + wait
    while is_running(pid) or is_unreaped_child(pid):
        if time.monotonic() > deadline:
            return False
        time.sleep(0.05)
    return True


def test_a_process_plays_a_legal_move() -> None:
    with banqi.Engine.popen([ENGINE, "--level", "1"]) as engine:
        game = played(banqi.Game(engine.rules), seed=5, plies=6)
        result = engine.play(game, time=0.5)
        pid = engine.pid
        assert engine.identity.name == "banqi-engine"
    assert result.move in game.legal_moves()
    assert not result.resigned
    assert result.notation is not None and str(result) == result.notation
    assert pid is not None and gone(pid)


def test_the_builtin_engine_plays_a_legal_move_in_a_position_string() -> None:
    with banqi.Engine.builtin(2) as engine:
        result = engine.play(MIDGAME, time=0.3)
        assert engine.pid is None
    assert result.move in banqi.Game(engine.rules, banqi.parse_position(MIDGAME)).legal_moves()
    assert engine.closed


def shown_from_the_pool(game: banqi.Game, move: int, layout: list[int]) -> int | None:
    """The piece a flip turns up: the layout's, or, where the midgame's pool has none of
    that kind left (the layout is a whole deal's), the first kind the pool still has."""
    shown = game.piece_shown(move, layout)
    pool = game.position.pool
    if shown is None or pool[shown]:
        return shown
    return next(piece for piece, count in enumerate(pool) if count)


def test_the_time_used_is_bounded_by_the_time_asked() -> None:
    with banqi.Engine.builtin(3) as engine:
        game = banqi.Game(engine.rules, banqi.parse_position(MIDGAME))
        layout = banqi.deal(11)
        used = []
        for _ in range(8):  # a per-move limit shows once the moves used 2 ms in all
            started = time.monotonic()
            result = engine.play(game, time=0.3)
            assert result.seconds <= 0.3 + 0.2  # the search stops itself well within it
            assert time.monotonic() - started <= 0.3 + 1.0
            assert result.move is not None
            used.append(result.seconds)
            game.play(result.move, shown_from_the_pool(game, result.move, layout))
    assert max(used) >= 0.05  # it thinks: once it sees the limit repeat, most of it


def test_a_game_is_told_by_echoes_and_a_continued_game_by_its_new_plies(
    tmp_path: Path, fakes: list[Fake]
) -> None:
    fake = write_fake(tmp_path, "recorder", RECORDING)
    fakes.append(fake)
    game = played(banqi.Game(banqi.rule_set("olympiad")), seed=3, plies=3)
    side = COLOUR_NAMES[game.side]
    with banqi.Engine.popen(fake.command, timeout=2.0) as engine:
        first = heard(fake)
        result = engine.play(game, time=0.25)
        asked = heard(fake)[len(first) :]
        played(game, seed=3, plies=1)
        engine.play(game, time=5.0, clock=0.3)  # the less of the two is told
        again = heard(fake)[len(first) + len(asked) :]
    words = [line.split()[1] for line in asked]
    assert words[:3] == ["reset_board", "time_settings", "ready"]
    assert asked[1] == "15 time_settings 250"
    echoes = [line for line in asked if line.split()[1] in ("flip", "move")]
    assert len(echoes) == 3 and echoes[0].startswith("11 flip ")
    assert asked[-2:] == [f"16 time_left {side} 250", f"12 genmove {side}"]
    assert result.is_flip and result.notation is not None and len(result.notation) == 2
    assert len(again) == 3 and again[0].split()[1] in ("flip", "move")
    assert again[1].startswith("16 time_left ") and again[1].endswith(" 300")
    assert again[2].startswith("12 genmove ")


def test_a_position_needs_an_engine_that_lists_init_board(
    tmp_path: Path, fakes: list[Fake]
) -> None:
    fake = write_fake(tmp_path, "plain")
    fakes.append(fake)
    with banqi.Engine.popen(fake.command) as engine, pytest.raises(PositionNotSupportedError):
        engine.play(MIDGAME, time=0.2)


def test_an_engine_that_dies_raises_and_is_reaped(tmp_path: Path, fakes: list[Fake]) -> None:
    fake = write_fake(tmp_path, "dying", "def on_genmove(i, words):\n    sys.exit(3)\n")
    fakes.append(fake)
    engine = banqi.Engine.popen(fake.command)
    with pytest.raises(EngineTerminatedError) as raised:
        engine.play(banqi.Game(engine.rules), time=0.2)
    assert raised.value.returncode == 3
    engine.close()
    assert gone(fake.pids()[0])
    with pytest.raises(EngineClosedError):
        engine.play(banqi.Game(engine.rules))


def test_an_engine_that_stops_answering_times_out_and_is_killed(
    tmp_path: Path, fakes: list[Fake]
) -> None:
    fake = write_fake(tmp_path, "silent", "def on_genmove(i, words):\n    pass\n")
    fakes.append(fake)
    with banqi.Engine.popen(fake.command, timeout=0.5) as engine:
        started = time.monotonic()
        with pytest.raises(EngineTimeoutError):
            engine.play(banqi.Game(engine.rules), time=0.2)
        assert time.monotonic() - started < 0.2 + 0.5 + 1.0
    assert gone(fake.pids()[0])


def test_an_exception_in_the_with_block_still_quits_the_engine() -> None:
    pid = None
    with pytest.raises(KeyError), banqi.Engine.popen([ENGINE, "--level", "0"]) as engine:
        pid = engine.pid
        raise KeyError("the script's own error")
    assert pid is not None and gone(pid)


def test_an_unreadable_answer_is_a_clear_error(tmp_path: Path, fakes: list[Fake]) -> None:
    fake = write_fake(tmp_path, "garbled", "def on_genmove(i, words):\n    reply(i, 'z9 q')\n")
    fakes.append(fake)
    with banqi.Engine.popen(fake.command) as engine:
        with pytest.raises(UnreadableMoveError) as raised:
            engine.play(banqi.Game(engine.rules), time=0.2)
        assert raised.value.payload == "z9 q"


def test_a_resignation_is_returned_as_it_is(tmp_path: Path, fakes: list[Fake]) -> None:
    fake = write_fake(tmp_path, "resigner", "def choose(colour):\n    return 'a0 a0'\n")
    fakes.append(fake)
    with banqi.Engine.popen(fake.command) as engine:
        result = engine.play(banqi.Game(engine.rules), time=0.2)
    assert result.resigned and result.move is None and str(result) == "resign"


def test_a_forgotten_engine_is_quit_at_exit(tmp_path: Path) -> None:
    script = textwrap.dedent(
        f"""
        import banqi
        engine = banqi.Engine.popen([{str(ENGINE)!r}, "--level", "0"])
        print(engine.pid, flush=True)
        """
    )
    started = time.monotonic()
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=30, check=True
    )
    assert time.monotonic() - started < 20
    pid = int(done.stdout.split()[0])
    assert gone(pid)


def test_a_dropped_engine_is_quit() -> None:
    engine = banqi.Engine.popen([ENGINE, "--level", "0"])
    pid = engine.pid
    assert pid is not None and is_running(pid)
    del engine
    assert gone(pid)


def test_bad_arguments_are_clear_errors() -> None:
    with pytest.raises(ArgumentError, match="unknown rule set 'chess'"):
        banqi.Engine.popen([ENGINE], rules="chess")
    with pytest.raises(ArgumentError, match="player level 7"):
        banqi.Engine.builtin(7)
    with pytest.raises(EngineStartError):
        banqi.Engine.popen(["/no/such/engine"])
    with banqi.Engine.builtin(0) as engine:
        with pytest.raises(ArgumentError, match="time must be"):
            engine.play(banqi.Game(engine.rules), time=-1)
        with pytest.raises(ArgumentError, match="clock must be"):
            engine.play(banqi.Game(engine.rules), clock=float("nan"))
        with pytest.raises(ArgumentError, match="rules 'casual'"):
            engine.play(banqi.Game(banqi.rule_set("casual")))
        with pytest.raises(banqi.BanqiError):
            engine.play("not a position")
    with pytest.raises(ArgumentError, match="unknown rule set"):
        banqi.play_game([ENGINE], [ENGINE], rules="nope")
    with pytest.raises(ArgumentError, match="time"):
        banqi.play_game([ENGINE], [ENGINE], time=-5)
    with pytest.raises(ArgumentError, match="first"):
        banqi.play_game([ENGINE], [ENGINE], first=2)
    with pytest.raises(ArgumentError, match="key must be 16 bytes or more, not 5 bytes"):
        banqi.deal(1, key=b"short")
    with pytest.raises(ArgumentError, match="sandbox"):
        banqi.play_game([ENGINE], [ENGINE], sandbox="maybe")


def test_play_game_with_a_seed_is_reproducible_and_complete(tmp_path: Path) -> None:
    greedy = [ENGINE, "--level", "1", "--seed", "1"]
    records = [
        banqi.play_game(greedy, greedy, time=20, seed=42, sandbox="off", out=tmp_path / str(n))
        for n in range(2)
    ]
    first, second = records
    assert first.layout == second.layout == format_layout(banqi.deal(42))
    assert [p.move for p in first.plies] == [p.move for p in second.plies]
    assert first.end_ply == len(first.plies) > 0 and first.deal_secret is not None
    assert first.players[0].name != first.players[1].name
    assert (tmp_path / "0" / "games" / "game-42.json").is_file()
    assert (tmp_path / "0" / "games" / "game-42.txt").is_file()
    assert banqi.deal(43) != banqi.deal(42)
    kept = (tmp_path / "0" / "games" / "game-42.json").read_bytes()
    with pytest.raises(ArgumentError, match=r"game-42\.json exists already"):
        banqi.play_game(greedy, greedy, time=20, seed=42, sandbox="off", out=tmp_path / "0")
    assert (tmp_path / "0" / "games" / "game-42.json").read_bytes() == kept


def test_run_match_plays_paired_games_saves_them_and_resumes(tmp_path: Path) -> None:
    key = tmp_path / "referee.key"
    key.write_bytes(b"k" * 32)
    seen: list[str] = []
    args = ([ENGINE, "--level", "0", "--seed", "1"], [ENGINE, "--level", "1"])

    def match(on_game: Callable[[GameRecord], None]) -> MatchOutcome:
        return banqi.run_match(
            *args,
            out=tmp_path / "m",
            games=2,
            time=10.0,
            rules="casual",
            seed=5,
            key_file=key,
            on_game=on_game,
        )

    outcome = match(lambda record: seen.append(record.game_id))
    assert [r.game_id for r in outcome.records] == ["g0001", "g0002"] == sorted(seen)
    first, second = outcome.records
    assert first.layout == second.layout and (first.first, second.first) == (0, 1)
    assert sorted(p.name for p in (tmp_path / "m" / "games").glob("*.json")) == [
        "g0001.json",
        "g0002.json",
    ]
    again = match(lambda record: seen.append("again"))
    assert again.records == outcome.records and "again" not in seen
    with pytest.raises(banqi.ArgumentError, match="games"):
        banqi.run_match(*args, out=tmp_path / "n", games=0)
