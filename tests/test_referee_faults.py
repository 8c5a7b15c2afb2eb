"""The referee against misbehaving fake engines: the right loser, reason code, and no leftovers."""

import time
from dataclasses import dataclass
from pathlib import Path

import pytest
from referee_fakes import Fake, play, survivors, write_fake

from referee.reasons import Reason
from referee.record import GameRecord, read_record
from referee.replay import replay_game_record
from referee.storage import record_path, traffic_path
from referee.timecontrol import TimeControl
from referee.transcript import STDERR_TAIL_CHARS

BOARD_REASONS = {Reason.NO_LEGAL_MOVE, Reason.THREEFOLD_REPETITION, Reason.NO_PROGRESS}


def genmove_fault(code: str) -> str:
    """Custom code that, at the fake's second genmove, runs ``code`` before answering."""
    return f"""
def on_genmove(i, words):
    if genmoves == 2 and FAULTY:
        {code}
    reply(i, choose(words[2]))
"""


def echo_fault(code: str) -> str:
    """Custom code that, at the fake's first echo, runs ``code`` before answering."""
    return f"""
def on_echo(i, words):
    if genmoves == 1 and FAULTY:
        {code}
    track(i, words)
    reply(i)
"""


def genmove_answer(code: str) -> str:
    """Custom code that, at the fake's second genmove, runs ``code`` instead of answering."""
    return genmove_fault(f"{code}\n        return")


CRASH_ON_GENMOVE = genmove_fault("os._exit(3)")
EXIT_ON_ECHO = echo_fault("sys.exit(0)")
HANG_ON_GENMOVE = genmove_fault("time.sleep(60)")
HANG_ON_ECHO = echo_fault("time.sleep(60)")
ENDLESS_LINE = genmove_answer("while True: out(b'x' * 4096)")

SPIN_ON_GENMOVE = genmove_answer("while True: pass")


DEFAULT_CLOCK = TimeControl()
SHORT_CLOCK = TimeControl(time=0.5, margin_ms=100)
SHORT_MOVE = TimeControl(time=60, move_time=0.3, margin_ms=100)
THINKING_TIME = TimeControl(time=60, move_time=1.0, margin_ms=100, idle_limit=0.5)
"""Longer than the idle limit: busy is thinking, not stuck."""
IDLE_LIMIT = TimeControl(idle_limit=0.8)
"""With 900 s on the clock, only the (opt-in) idle limit ends a move owed by a stuck engine."""


@dataclass(frozen=True)
class Case:
    custom: str
    reason: Reason
    end_ply: int
    detail: str = ""
    seat: int = 0
    time_control: TimeControl = DEFAULT_CLOCK
    stall_timeout: float = 2.0


CASES = {
    "crash": Case(CRASH_ON_GENMOVE, Reason.CRASH, 2, "return code 3"),
    "crash-second-seat": Case(CRASH_ON_GENMOVE, Reason.CRASH, 3, "return code 3", seat=1),
    "clean-exit": Case(EXIT_ON_ECHO, Reason.CRASH, 1, "return code 0"),
    "hang-genmove-clock": Case(
        HANG_ON_GENMOVE,
        Reason.TIME_FORFEIT,
        2,
        "s left on its clock, and the margin), nor in the 0.8s after",
        time_control=SHORT_CLOCK,
        stall_timeout=0.8,
    ),
    "hang-genmove-move-time": Case(
        HANG_ON_GENMOVE,
        Reason.TIME_FORFEIT,
        2,
        "no move within the 0.400s allowed (a 0.300s limit a move, ",
        time_control=SHORT_MOVE,
        stall_timeout=0.8,
    ),
    "hang-echo": Case(HANG_ON_ECHO, Reason.STALL, 1, "flip", stall_timeout=0.8),
    "hang-genmove-idle": Case(
        HANG_ON_GENMOVE,
        Reason.STALL,
        2,
        "no CPU used for 0.8s while thinking (the idle limit",
        time_control=IDLE_LIMIT,
    ),
    "spin-genmove-clock": Case(
        SPIN_ON_GENMOVE, Reason.TIME_FORFEIT, 2, time_control=THINKING_TIME, stall_timeout=0.5
    ),
    "illegal-move": Case(genmove_answer("reply(i, 'd8 d7')"), Reason.ILLEGAL_MOVE, 2, "d8 d7"),
    "illegal-reflip": Case(genmove_answer("reply(i, 'a1 a1')"), Reason.ILLEGAL_MOVE, 2, "a1 a1"),
    "garbage": Case(genmove_answer("reply(i, 'hello there')"), Reason.UNREADABLE_REPLY, 2),
    "wrong-id": Case(genmove_answer("out(b'=13 a8 a8\\n')"), Reason.UNREADABLE_REPLY, 2),
    "failure-reply": Case(
        genmove_answer("out(b'?12 cannot think\\n')"), Reason.UNREADABLE_REPLY, 2, "?12"
    ),
    "endless-line": Case(ENDLESS_LINE, Reason.UNREADABLE_REPLY, 2, "bytes"),
    "resign": Case(genmove_answer("reply(i, 'a0 a0')"), Reason.RESIGN, 2),
    "resign-second-seat": Case(genmove_answer("reply(i, 'a0 a0')"), Reason.RESIGN, 3, seat=1),
}


def all_pids(fakes: list[Fake]) -> list[int]:
    return [pid for fake in fakes for pid in [*fake.pids(), *fake.children()]]


def check_saved(out: Path, record: GameRecord) -> None:
    """The record on disk is the returned one, and it replays cleanly."""
    assert read_record(record_path(out, record.game_id)) == record
    assert record_path(out, record.game_id).with_suffix(".txt").is_file()
    report = replay_game_record(record)
    assert report.ok, report.problems


@pytest.mark.parametrize("case", CASES.values(), ids=CASES.keys())
def test_fault_loses_with_its_reason(tmp_path: Path, fakes: list[Fake], case: Case) -> None:
    bad = write_fake(tmp_path / "engines", "bad", "FAULTY = True\n" + case.custom)
    good = write_fake(tmp_path / "engines", "good")
    fakes += [bad, good]
    engines = (bad.spec(), good.spec()) if case.seat == 0 else (good.spec(), bad.spec())
    out = tmp_path / "run"
    started = time.monotonic()
    [record] = play(out, engines, time_control=case.time_control, stall_timeout=case.stall_timeout)
    elapsed = time.monotonic() - started

    assert record.reason == case.reason, record.detail
    assert record.winner == 1 - case.seat
    assert record.players[case.seat].name == "bad"
    assert record.end_ply == case.end_ply == len(record.plies)
    assert case.detail in record.detail
    if case.reason.is_fault:
        assert record.detail
    assert record.result.startswith(f"{record.players[1 - case.seat].colour} wins: ")
    assert elapsed < 6.0
    check_saved(out, record)
    assert len(bad.pids()) == 1
    assert len(good.pids()) == 1
    assert survivors(all_pids(fakes)) == []


NOISE = r"""
sys.stderr.write("debug output " * 100_000 + "\n")
sys.stderr.flush()
NOISE_LINES = (
    b"    a   b   c   d\n"
    b"8   X   X   X   X\n"
    b"\xff\xfe\x80 not utf-8 \xc3\x28\n"
    b"=12abc\n"
    b"? 12 almost a reply\n"
    b"==\n"
    b"\r\n"
    b"\n"
)
plain_reply = reply


def reply(i, payload=""):
    out(NOISE_LINES)
    sys.stderr.buffer.write(b"\xff thinking hard " * 1000 + b"\n")
    sys.stderr.flush()
    plain_reply(i, payload)
"""


def play_beside_a_legal_fake(
    tmp_path: Path,
    fakes: list[Fake],
    custom: tuple[str, str],
    other: str,
    log_traffic: bool = False,
) -> tuple[Path, GameRecord]:
    """The run folder and record of a game (casual rules) of a legal fake with custom code
    (``custom``: its name and code) against a plain legal fake ``other``, checked to have
    ended on the board."""
    name, code = custom
    first = write_fake(tmp_path / "engines", name, code, legal=True)
    second = write_fake(tmp_path / "engines", other, legal=True)
    fakes += [first, second]
    out = tmp_path / "run"
    [record] = play(out, (first.spec(), second.spec()), log_traffic=log_traffic)
    assert record.reason in BOARD_REASONS, record.detail
    return out, record


def test_noise_on_stdout_and_a_stderr_flood_do_not_disturb_a_legal_game(
    tmp_path: Path, fakes: list[Fake]
) -> None:
    out, record = play_beside_a_legal_fake(tmp_path, fakes, ("noisy", NOISE), "quiet", True)
    assert record.detail == ""
    assert record.end_ply > 32
    check_saved(out, record)
    log = traffic_path(out, record.game_id).read_text(encoding="utf-8")
    assert "[noisy] < \ufffd\ufffd\ufffd not utf-8" in log
    assert "[noisy] < =12abc" in log
    assert "[noisy] ! \ufffd thinking hard" in log
    assert "characters of earlier stderr not kept]" in log  # the 1.3 MB line and more
    stderr = sum(len(line) + 1 for line in log.splitlines() if "[noisy] ! " in line)
    assert stderr <= STDERR_TAIL_CHARS + 200
    assert survivors(all_pids(fakes)) == []


CHILD = """
import signal
signal.signal(signal.SIGTERM, signal.SIG_IGN)
IGNORE_TERM = "import signal, time; signal.signal(signal.SIGTERM, signal.SIG_IGN); time.sleep(60)"
helper = subprocess.Popen([sys.executable, "-c", IGNORE_TERM])
note("children", helper.pid)
"""


@pytest.mark.parametrize(
    ("custom", "reason"),
    [
        (genmove_answer("reply(i, 'a0 a0')"), Reason.RESIGN),
        (HANG_ON_GENMOVE, Reason.TIME_FORFEIT),
    ],
    ids=["exits-on-quit", "hangs-and-ignores-sigterm"],
)
def test_a_child_that_ignores_sigterm_does_not_survive_the_game(
    tmp_path: Path, fakes: list[Fake], custom: str, reason: Reason
) -> None:
    parent = write_fake(tmp_path / "engines", "parent", CHILD + "FAULTY = True\n" + custom)
    other = write_fake(tmp_path / "engines", "other")
    fakes += [parent, other]
    started = time.monotonic()
    [record] = play(
        tmp_path / "run", (parent.spec(), other.spec()), time_control=SHORT_CLOCK, stall_timeout=1.0
    )
    assert time.monotonic() - started < 6.0
    assert record.reason == reason
    assert record.winner == 1
    assert len(parent.children()) == 1
    assert survivors(all_pids(fakes)) == []


@pytest.mark.parametrize(
    ("custom", "reason"),
    [
        (CRASH_ON_GENMOVE, Reason.CRASH),
        (HANG_ON_GENMOVE, Reason.TIME_FORFEIT),
        (genmove_answer("reply(i, 'd8 d7')"), Reason.ILLEGAL_MOVE),
    ],
    ids=["crash", "hang", "illegal"],
)
def test_a_faulty_engine_is_replaced_by_a_fresh_process_for_the_next_game(
    tmp_path: Path, fakes: list[Fake], custom: str, reason: Reason
) -> None:
    flaky = write_fake(tmp_path / "engines", "flaky", "FAULTY = first_process()\n" + custom, True)
    steady = write_fake(tmp_path / "engines", "steady", legal=True)
    fakes += [flaky, steady]
    out = tmp_path / "run"
    first, second = play(
        # the second game's fresh processes must answer within the stall timeout: 1 s is
        # too short for a Python fake started in a sandbox on a loaded machine
        out,
        (flaky.spec(), steady.spec()),
        games=2,
        time_control=SHORT_MOVE,
        stall_timeout=3.0,
    )

    assert (first.reason, first.winner) == (reason, 1)
    assert second.reason in BOARD_REASONS, second.detail
    assert second.detail == ""
    assert second.first == 1
    assert second.layout == first.layout
    for record in (first, second):
        check_saved(out, record)
    assert len(set(flaky.pids())) == 2
    assert len(set(steady.pids())) == 2
    assert survivors(all_pids(fakes)) == []


EXIT_AFTER_THE_END = """
def on_echo(i, words):
    track(i, words)
    if game.outcome is not None:
        os._exit(1)
    reply(i)
"""


def test_a_crash_after_the_last_ply_does_not_change_the_result(
    tmp_path: Path, fakes: list[Fake]
) -> None:
    quitter = write_fake(tmp_path / "engines", "quitter", EXIT_AFTER_THE_END, legal=True)
    other = write_fake(tmp_path / "engines", "other", legal=True)
    fakes += [quitter, other]
    out = tmp_path / "run"
    [record] = play(out, (quitter.spec(), other.spec()))
    assert record.reason in BOARD_REASONS, record.detail
    assert record.detail == ""
    check_saved(out, record)
    assert survivors(all_pids(fakes)) == []


PLATFORM_ONLY = """
platform_answer = answer


def answer(i, words):
    if i in (1, 2, 9):
        return
    platform_answer(i, words)
"""


def test_an_engine_that_answers_only_what_the_platform_sends_plays_normally(
    tmp_path: Path, fakes: list[Fake]
) -> None:
    out, record = play_beside_a_legal_fake(tmp_path, fakes, ("terse", PLATFORM_ONLY), "other")
    assert record.players[0].engine_name is None
    assert record.players[1].engine_name == "other"
    check_saved(out, record)
    assert survivors(all_pids(fakes)) == []
