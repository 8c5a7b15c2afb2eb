"""The ``banqi-engine`` executable as a platform runs it: a subprocess started by path."""

import queue
import random
import re
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from game_drivers import play_shown

from banqi_engine.game import Game
from banqi_engine.layout import random_layout
from banqi_engine.pieces import COLOUR_NAMES, PIECE_LETTERS, UNDECIDED
from banqi_engine.players import RandomPlayer
from banqi_engine.rules import PRESETS
from banqi_engine.squares import parse_square
from protocol.messages import Command, Reply, parse_genmove_payload, parse_reply_line

ENGINE = Path(sys.executable).parent / "banqi-engine"
TIMEOUT = 30.0


class EngineProcess:
    """A running engine, its stdout read line by line on a thread, stderr collected."""

    def __init__(self, *args: str) -> None:
        assert ENGINE.exists(), f"{ENGINE} is not installed; run pip install -e ."
        self.process = subprocess.Popen(
            [str(ENGINE), *args],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        self.lines: queue.Queue[bytes | None] = queue.Queue()
        self.stdout_lines: list[bytes] = []
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        assert self.process.stdout is not None
        for line in self.process.stdout:
            self.lines.put(line)
        self.lines.put(None)

    def send(self, data: bytes) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write(data)
        self.process.stdin.flush()

    def read_line(self) -> bytes | None:
        line = self.lines.get(timeout=TIMEOUT)
        if line is not None:
            self.stdout_lines.append(line)
        return line

    def ask(self, command: Command) -> Reply:
        self.send(command.line().encode() + b"\n")
        line = self.read_line()
        assert line is not None, f"engine closed stdout after {command.line()!r}"
        assert line.endswith(b"\n")
        reply = parse_reply_line(line.decode("ascii"))
        assert reply is not None, f"not a reply: {line!r}"
        assert reply.id == command.id, (command, reply)
        return reply

    def finish(self) -> tuple[int, bytes]:
        """Close stdin, wait for the exit; the status and everything left on stderr."""
        assert self.process.stdin is not None and self.process.stderr is not None
        self.process.stdin.close()
        status = self.process.wait(timeout=TIMEOUT)
        while self.read_line() is not None:
            pass
        stderr = self.process.stderr.read()
        self.process.stderr.close()
        assert self.process.stdout is not None
        self.process.stdout.close()
        return status, stderr


CLOCK_MS = 6_000
"""The platform's clock in these games: short, as the engine (at full strength when started
with no arguments) spends it."""


def play_platform_game(seed: int, engine_first: bool) -> None:
    """Replay what the platform sends for one whole game against a fresh engine."""
    rules = PRESETS["olympiad"]
    layout = random_layout(random.Random(seed))
    referee = Game(rules)
    opponent = RandomPlayer(seed)
    clocks = [CLOCK_MS, CLOCK_MS]
    engine = EngineProcess()
    assert engine.ask(Command.reset_board()).ok
    engine.send(f"15 time_setting {CLOCK_MS}\n14 ready\n".encode())
    assert engine.read_line() == b"=15\n"
    assert engine.read_line() == b"=14\n"
    engine_turn = engine_first
    while referee.outcome is None:
        mover = referee.side
        if engine_turn:
            colour = "unknown" if mover == UNDECIDED else COLOUR_NAMES[mover]
            reply = engine.ask(Command.genmove(colour))
            assert reply.ok, reply
            move = parse_genmove_payload(reply.payload).move
            assert move is not None, "the engine resigned"
            assert move in referee.legal_moves(), (reply.payload, referee.position)
        else:
            move = opponent.choose(referee, None)
        echo, mover = play_shown(referee, move, layout)
        assert engine.ask(echo) == Reply(int(echo.id), True)
        clocks[mover] -= 5
        assert engine.ask(Command.time_left(mover, clocks[mover])).ok
        engine_turn = not engine_turn
    assert referee.outcome is not None
    assert engine.ask(Command.game_over(referee.outcome.description)).ok
    assert engine.ask(Command.quit()) == Reply(5, True)
    status, stderr = engine.finish()
    assert status == 0
    assert b"Traceback" not in stderr
    assert all(parse_reply_line(line.decode("ascii")) is not None for line in engine.stdout_lines)


@pytest.mark.parametrize(("seed", "engine_first"), [(1, True), (2, False)])
def test_a_whole_platform_game(seed: int, engine_first: bool) -> None:
    play_platform_game(seed, engine_first)


def test_end_of_input_exits_cleanly() -> None:
    engine = EngineProcess()
    assert engine.ask(Command.name()) == Reply(1, True, "banqi-engine")
    status, stderr = engine.finish()
    assert status == 0
    assert stderr == b""


def test_windows_lines_junk_and_showboard() -> None:
    engine = EngineProcess()
    engine.send(b"\r\n\xff\xfe not utf-8\n1 name\r\n12 genmove unknown\r\n17 showboard\r\n")
    engine.send(b"11 flip b6 X\r\n99 nothing\n")
    assert engine.read_line() == b"=1 banqi-engine\n"
    flip = engine.read_line()
    assert flip is not None and flip.startswith(b"=12 ")
    assert engine.read_line() == b"=17\n"
    refusal = engine.read_line()
    assert refusal is not None and refusal.startswith(b"?11 ")
    assert engine.read_line() == b"?99 unknown command id 99 (known: 0..20)\n"
    status, stderr = engine.finish()
    assert status == 0
    assert b"1 X X X X" in stderr
    assert b"Traceback" not in stderr


def test_options_and_log_file(tmp_path: Path) -> None:
    log = tmp_path / "engine.log"
    engine = EngineProcess("--rules", "hong-kong", "--level", "0", "--seed", "7", "--log", str(log))
    assert engine.ask(Command.genmove("unknown")).ok
    assert engine.ask(Command.quit()).ok
    status, stderr = engine.finish()
    assert status == 0
    assert stderr == b""
    text = log.read_text(encoding="utf-8")
    assert "<- 12 genmove unknown" in text
    assert "-> =5" in text


def test_the_log_says_how_deep_each_move_was_searched(tmp_path: Path) -> None:
    log = tmp_path / "engine.log"
    engine = EngineProcess("--level", "2", "--seed", "7", "--log", str(log))
    assert engine.ask(Command.flip(21, 0)).ok  # b6 shows the red King: black to move
    reply = engine.ask(Command.genmove("black"))
    assert reply.ok
    assert engine.ask(Command.quit()).ok
    status, _ = engine.finish()
    assert status == 0
    found = re.search(
        r"searched (\S+): depth (\d+), (\d+) nodes in \d+ ms, score [+-]\d+\.\d\d \(31 face down\)",
        log.read_text(encoding="utf-8"),
    )
    assert found is not None
    assert int(found[2]) >= 1 and int(found[3]) > 0


def test_bad_option_is_a_usage_error() -> None:
    result = subprocess.run(
        [str(ENGINE), "--level", "9"], capture_output=True, timeout=TIMEOUT, check=False
    )
    assert result.returncode == 2
    assert result.stdout == b""
    assert b"--level" in result.stderr


def genmove_seconds(*args: str) -> float:
    """Seconds the engine started with ``args`` takes for a genmove a few flips into a game
    on a 60-second clock."""
    engine = EngineProcess(*args)
    engine.send(b"7 reset_board\n15 time_setting 60000\n14 ready\n")
    assert [engine.read_line() for _ in range(3)] == [b"=7\n", b"=15\n", b"=14\n"]
    for flip in ("a1 P", "d8 k", "b4 M", "c5 r"):
        assert engine.ask(Command.flip(*parse_flip(flip))).ok
    start = time.perf_counter()
    reply = engine.ask(Command.genmove("red"))
    seconds = time.perf_counter() - start
    assert reply.ok and parse_genmove_payload(reply.payload).move is not None
    assert engine.ask(Command.quit()).ok
    engine.finish()
    return seconds


def parse_flip(text: str) -> tuple[int, int]:
    square, letter = text.split()
    return parse_square(square), PIECE_LETTERS.index(letter)


def test_started_with_no_arguments_it_thinks_on_the_clock_as_the_full_engine() -> None:
    # level 2 stops at 0.1 s a move; the full engine spends a share of a 60 s clock
    assert genmove_seconds() > 0.3
