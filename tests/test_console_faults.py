"""What ``banqi match``, ``tournament`` and ``sprt`` print of an engine's fault: the
record's detail on the game's line, what a silent engine printed meanwhile, the flush hint,
and each engine's faults by kind in the summary."""

import re
import sys
from pathlib import Path

import pytest
from processes import run_banqi
from referee_fakes import Fake, write_fake

from protocol.errors import FLUSH_HINT
from referee.sandbox import Isolation, working_isolations

UNREADABLE = """
def on_genmove(i, words):
    reply(i, 'd7-d7')
"""
ILLEGAL = """
def on_genmove(i, words):
    reply(i, 'a1 d8')
"""
CRASH = """
def on_genmove(i, words):
    raise RuntimeError('the search blew up')
"""
HELLO = """
def on_genmove(i, words):
    out(b'hello world\\n')
"""
SILENT_HANDSHAKE = """
plain_answer = answer


def answer(i, words):
    if i != 7:
        plain_answer(i, words)
"""


def command(fake: Fake) -> str:
    return f"{fake.name}={sys.executable} {fake.script}"


def match(
    tmp_path: Path, custom: str, stall: str = "3", sandbox: str = "off"
) -> tuple[int, str, str]:
    """One game of ``bot`` (misbehaving by ``custom``, moving first) against a fake that
    plays, ``stall`` seconds allowed for each reply but a move; its status, stdout and
    stderr."""
    bot = write_fake(tmp_path / "engines", "bot", custom)
    other = write_fake(tmp_path / "engines", "other", legal=True)
    args = ["match", command(bot), command(other), "--games", "1", "--rules", "casual"]
    args += ["--seed", "1", "--time", "2", "--stall-timeout", stall, "--sandbox", sandbox]
    result = run_banqi([*args, "--out", str(tmp_path / "run")], tmp_path, tmp_path)
    return result.returncode, result.stdout, result.stderr


def game_line(out: str) -> str:
    return next(line for line in out.splitlines() if line.startswith("[1/1] "))


@pytest.mark.parametrize(
    ("custom", "reason", "words"),
    [
        (UNREADABLE, "unreadable-reply", "FAULT bot: genmove answer 'd7-d7': expected two squares"),
        (
            ILLEGAL,
            "illegal-move",
            "FAULT bot: a1 d8: illegal move a1-d8: colours are not decided yet",
        ),
        (CRASH, "crash", "RuntimeError: the search blew up"),
        (
            HELLO,
            "time-forfeit",
            "3s after; meanwhile 1 line that is not a reply, the first 'hello world'",
        ),
    ],
    ids=["unreadable", "illegal", "crash", "time-loss-garbage"],
)
def test_the_game_line_says_what_the_engine_did(
    tmp_path: Path, custom: str, reason: str, words: str
) -> None:
    status, out, err = match(tmp_path, custom)
    assert status == 0, err
    line = game_line(out)
    assert f"  {reason}: " in line
    assert words in line
    assert f"  engine faults: bot 1 ({reason} 1); details in the records" in out.splitlines()


def test_a_sandboxed_engine_that_times_out_leaves_no_stray_error(tmp_path: Path) -> None:
    """Its limits watched while it thinks, the timed-out command is let go: the engine's
    end is not reported again, as an error nobody retrieved, when the referee exits."""
    if working_isolations() == (Isolation.NONE,):
        pytest.skip("no sandbox works here")
    status, out, err = match(tmp_path, HELLO, sandbox="required")
    assert status == 0, err
    assert "  time-forfeit: " in game_line(out)
    assert "never retrieved" not in err and "Traceback" not in err, err


ESCAPING = """
def on_genmove(i, words):
    sys.stderr.write('\\x1b[2J\\x1b[Hscreen wiped\\x07\\n')
    sys.stderr.flush()
    os._exit(3)
"""


def test_what_an_engine_wrote_reaches_the_console_with_its_control_characters_escaped(
    tmp_path: Path,
) -> None:
    status, out, err = match(tmp_path, ESCAPING)
    assert status == 0, err
    line = game_line(out)
    assert "  crash: " in line and "\\x1b[2J\\x1b[Hscreen wiped\\x07" in line, line
    assert "\x1b" not in out + err and "\x07" not in out + err


LATE = """
plain_on_genmove = on_genmove


def on_genmove(i, words):
    time.sleep(2.5)
    plain_on_genmove(i, words)
"""


def test_a_move_that_came_late_is_told_on_the_line_but_is_no_fault(tmp_path: Path) -> None:
    bot = write_fake(tmp_path / "engines", "bot", LATE, legal=True)
    other = write_fake(tmp_path / "engines", "other", legal=True)
    args = ["match", command(bot), command(other), "--games", "1", "--rules", "casual"]
    args += ["--seed", "1", "--time", "2", "--sandbox", "off", "--out", str(tmp_path / "run")]
    result = run_banqi(args, tmp_path, tmp_path)
    assert result.returncode == 0, result.stderr
    line = game_line(result.stdout)
    assert "  time-forfeit: " in line and "FAULT" not in line
    assert re.search(
        r"  bot( \(\w+\))?: moved after 2\.\d+s with 2\.000s left on its clock", line
    ), line
    assert "engine faults" not in result.stdout


def test_a_handshake_timeout_hints_at_unflushed_output(tmp_path: Path) -> None:
    status, _, err = match(tmp_path, SILENT_HANDSHAKE, stall="2")
    assert status == 1
    assert err.splitlines()[-1].endswith(
        f"failed the handshake: no reply to '7 reset_board' within 2 s; {FLUSH_HINT}"
    )


def fakes(tmp_path: Path) -> tuple[Fake, Fake]:
    folder = tmp_path / "engines"
    return write_fake(folder, "bot", UNREADABLE), write_fake(folder, "other", legal=True)


CLOCK = ["--rules", "casual", "--seed", "1", "--time", "2", "--sandbox", "off"]


def lines_of_a_faulty_run(
    tmp_path: Path, args: list[str], head: str, prefix: str, *told: str
) -> list[str]:
    """The output lines of ``banqi ARGS`` on the fast clock, once checked: it succeeded,
    its first line holds ``head``, and two lines (one a game) start with ``prefix`` and
    match each pattern of ``told``."""
    result = run_banqi([*args, *CLOCK, "--out", str(tmp_path / "run")], tmp_path, tmp_path)
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert head in lines[0]
    games = [line for line in lines if line.startswith(prefix)]
    assert len(games) == 2
    for line in games:
        for pattern in told:
            assert re.search(pattern, line), (pattern, line)
    return lines


def test_a_tournament_line_and_summary_tell_the_faults(tmp_path: Path) -> None:
    bot, other = fakes(tmp_path)
    args = ["tournament", "--engine", command(bot), "--engine", command(other), "--rounds", "1"]
    lines = lines_of_a_faulty_run(
        tmp_path,
        args,
        "; 2 games (1 round), rules casual",
        "[",
        r"unreadable-reply \(\d+ pl(y|ies)\) \| elapsed ",
        r"  FAULT bot( \((red|black)\))?: genmove answer 'd7-d7': expected two",
    )
    assert "  engine faults: bot 2 (unreadable-reply 2); details in the records" in lines


def test_an_sprt_prints_a_line_per_failed_game(tmp_path: Path) -> None:
    bot, other = fakes(tmp_path)
    args = ["sprt", command(bot), command(other), "--max-games", "2"]
    lines = lines_of_a_faulty_run(
        tmp_path,
        args,
        "at most 2 games",
        "g0",
        r"unreadable-reply  FAULT bot( \((red|black)\))?: genmove answer 'd7-d7'",
    )
    assert any(line.startswith("pair 1 (2 games): ") for line in lines)
