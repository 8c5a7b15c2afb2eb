"""``banqi new-engine`` writes bots that pass ``banqi check``; ``banqi check`` catches each
fault a bot author makes, naming the check, the line sent and the line received."""

import json
import shutil
import subprocess
from pathlib import Path

import pytest
from processes import run_banqi, script

STARTER_REPLY = 'print(f"={ident} {payload}".rstrip(), flush=True)'
STARTER_CHOICE = "frm, to = choose_move(board, colour, moves, clock.get(colour, 0))"
STARTER_RANDOM = "import random\n"
STARTER_QUIT = "        if ident == 5:  # quit: answered, then exit\n            return\n"
STARTER_ECHO = '            board[args[1]], board[args[0]] = board[args[0]], "-"\n'
ALWAYS_A_MOVE = ("return random.choice(moves)", "return moves[-1]")
"""A change that has the starter move a piece whenever it can (no flip)."""


def starter(tmp_path: Path, name: str = "bot") -> Path:
    """A fresh Python starter written by ``banqi new-engine``."""
    result = run_banqi(["new-engine", name], tmp_path, tmp_path)
    assert result.returncode == 0, result.stderr
    return tmp_path / name / "bot.py"


def faulty(tmp_path: Path, *changes: tuple[str, str]) -> Path:
    """The starter with a fault put in (each ``(old, new)`` of ``changes``), its random
    choices seeded so that it fails the same way each time."""
    bot = starter(tmp_path)
    text = bot.read_text()
    for old, new in ((STARTER_RANDOM, f"{STARTER_RANDOM}random.seed(7)\n"), *changes):
        assert old in text
        text = text.replace(old, new)
    bot.write_text(text)
    return bot


def check(tmp_path: Path, bot: Path, *args: str) -> tuple[int, list[dict[str, str]]]:
    result = run_banqi(["check", str(bot), "--json", *args], tmp_path, tmp_path, timeout=180)
    return result.returncode, [json.loads(line) for line in result.stdout.splitlines()]


def failed(results: list[dict[str, str]]) -> list[dict[str, str]]:
    return [r for r in results if r["status"] == "FAIL"]


def test_the_python_starter_passes_every_check_and_plays_a_match(tmp_path: Path) -> None:
    bot = starter(tmp_path)
    readme = (bot.parent / "README.md").read_text()
    assert "banqi check ./bot.py" in readme
    code, results = check(tmp_path, bot)
    assert code == 0, failed(results)
    titles = [r["title"] for r in results]
    assert len(titles) == 13
    assert any("whole game" in t for t in titles)
    assert {r["status"] for r in results} <= {"ok", "note"}
    match = run_banqi(
        ["match", "./bot.py", f"{script('banqi-engine')} --level 0", "--games", "2", "--time", "3"],
        bot.parent,
        tmp_path,
    )
    assert match.returncode == 0, match.stderr
    assert "2 games" in match.stdout


@pytest.mark.skipif(shutil.which("g++") is None, reason="no C++ compiler here")
def test_the_cpp_starter_builds_and_passes_every_check(tmp_path: Path) -> None:
    result = run_banqi(["new-engine", "cbot", "--lang", "cpp"], tmp_path, tmp_path)
    assert result.returncode == 0, result.stderr
    folder = tmp_path / "cbot"
    build = subprocess.run(
        ["g++", "-O2", "-std=c++17", "-Wall", "-Werror", "-o", "bot", "bot.cpp"],
        cwd=folder,
        capture_output=True,
        text=True,
        check=False,
    )
    assert build.returncode == 0, build.stderr
    code, results = check(tmp_path, folder / "bot")
    assert code == 0, failed(results)


def test_new_engine_refuses_to_overwrite(tmp_path: Path) -> None:
    bot = starter(tmp_path)
    bot.write_text("# mine\n")
    again = run_banqi(["new-engine", "bot"], tmp_path, tmp_path)
    assert again.returncode == 1
    assert "exists already" in again.stderr
    assert bot.read_text() == "# mine\n"


@pytest.mark.parametrize(
    ("old", "new", "check_words", "why_words", "also"),
    [
        (  # a piece moved two squares
            STARTER_CHOICE,
            'frm, to = ("a1", "a3") if colour != "unknown" else moves[0]',
            "moves first",
            "illegal",
            None,
        ),
        (STARTER_CHOICE, 'frm, to = "hello", "there"', "moves first", "genmove answer", None),
        (  # dies at its first move after the first flip
            STARTER_CHOICE,
            'frm, to = moves[0] if colour == "unknown" else sys.exit(3)',
            "moves first",
            "exited (status 3)",
            None,
        ),
        (
            STARTER_REPLY,
            STARTER_REPLY.replace("flush=True", "flush=False"),
            "starts",
            "flushed",
            None,
        ),
        (  # thinks a second whatever its clock
            STARTER_CHOICE,
            "__import__('time').sleep(0.7 if clock.get(colour, 0) < 400 else 0)\n"
            f"            {STARTER_CHOICE}",
            "low time_left",
            "lost on time",
            None,
        ),
        (
            STARTER_QUIT,
            STARTER_QUIT.replace("return", 'print("bye", flush=True)\n            return'),
            "quits",
            "more line",
            None,
        ),
        (  # a board kept from its own answer as well as from the echo; it moves a piece
            # whenever it can, so that its board goes stale at once
            STARTER_ECHO,
            "            pass\n",
            "moves",
            "illegal",
            ALWAYS_A_MOVE,
        ),
    ],
    ids=["illegal", "garbage", "crash", "no-flush", "too-slow", "output-after-quit", "no-echo"],
)
def test_check_catches_each_fault(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    old: str,
    new: str,
    check_words: str,
    why_words: str,
    also: tuple[str, str] | None,
) -> None:
    monkeypatch.delenv("PYTHONUNBUFFERED", raising=False)  # else Python flushes every line
    bot = faulty(tmp_path, (old, new), *([also] if also else []))
    code, results = check(tmp_path, bot, "--seed", "7")
    assert code == 1
    bad = failed(results)
    assert bad, results
    first = bad[0]
    assert check_words in first["title"], bad
    assert why_words in first["why"], first
    assert first["fix"]
    if check_words != "quits":
        assert first["sent"] and first["received"], first
    assert results[-1]["status"] == "skip"  # no whole game after a failure


def test_a_check_names_its_seed_and_that_seed_repeats_it(tmp_path: Path) -> None:
    bot = faulty(tmp_path, (STARTER_ECHO, "            pass\n"), ALWAYS_A_MOVE)
    first = run_banqi(["check", str(bot)], tmp_path, tmp_path, timeout=180)
    words = first.stderr.split("seed ", 1)[1].split()
    seed = words[0].rstrip(";")
    assert words[1:3] == ["(--seed", f"{seed}"], first.stderr
    again = run_banqi(["check", str(bot), "--seed", seed], tmp_path, tmp_path, timeout=180)
    assert first.returncode == again.returncode == 1
    assert "sent:" in first.stdout
    assert again.stdout == first.stdout
