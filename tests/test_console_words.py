"""The words of the console: counts, shortened engine output, what a silent engine printed."""

import pickle

from banqi_cli.fault_words import FAULT_WIDTH, shortened_detail
from banqi_cli.match_lines import duration_words, longest_words
from banqi_cli.words import counted
from banqi_common.short_text import ELLIPSIS, end_kept, shortened
from protocol.errors import FLUSH_HINT, EngineTimeoutError, Noise
from referee.timecontrol import TimeControl


def test_counts_are_singular_for_one() -> None:
    assert counted(1, "game") == "1 game"
    assert counted(0, "game") == "0 games"
    assert counted(2, "round") == "2 rounds"
    assert counted(1, "ply", "plies") == "1 ply"
    assert counted(3, "ply", "plies") == "3 plies"


def test_shortened_text_keeps_its_start_and_its_end_on_one_line() -> None:
    assert shortened("exited\n  with code 1", 40) == "exited with code 1"
    text = "the process exited with return code 1 (stderr ends: " + "x" * 200 + " | KeyError: 3)"
    short = shortened(text, 80)
    assert len(short) <= 80
    assert short.startswith("the process exited")
    assert short.endswith("KeyError: 3)")
    assert ELLIPSIS in short


def test_a_timeout_says_what_the_engine_printed_or_hints_at_flushing() -> None:
    silent = EngineTimeoutError("bot", "7 reset_board", 5)
    assert str(silent) == f"engine 'bot': no reply to '7 reset_board' within 5 s; {FLUSH_HINT}"
    chatty = EngineTimeoutError("bot", "12 genmove red", 5, Noise(3, "hello world"))
    assert str(chatty).endswith(
        "within 5 s; meanwhile 3 lines that are not replies, the first 'hello world'"
    )
    assert Noise(1, "y" * 100).words().endswith(f"{ELLIPSIS}{'y' * 24}'")
    again = pickle.loads(pickle.dumps(chatty))
    assert (str(again), again.noise) == (str(chatty), chatty.noise)


def test_a_match_header_says_how_long_it_may_take_at_most() -> None:
    clock = TimeControl(time=900, increment=1)
    words = longest_words(10, 4, clock)  # three rounds of games
    assert words.startswith("at most 1 h 30 min, plus 1 s a move of increments")
    assert longest_words(1, 1, TimeControl(time=60, margin_ms=0)) == (
        "at most 2 min, if both clocks of 60 s ran out in every game, 1 at once"
    )
    assert duration_words(45) == "45 s" and duration_words(7 * 60) == "7 min"


def test_a_crash_keeps_the_end_of_its_stderr_whole() -> None:
    trace = " | ".join(f'File "bot.py", line {n}, in step' for n in range(30))
    detail = f"the process exited with return code 1 (stderr ends: {trace} | KeyError: 'a9')"
    words = shortened_detail(detail)
    assert len(words) <= FAULT_WIDTH
    assert words.startswith("the process exited with return code 1 (stderr ends: …")
    assert words.endswith("line 29, in step | KeyError: 'a9')")
    assert end_kept("abcdef", 4) == "…def" and end_kept("abc", 4) == "abc"
    other = "genmove answer " + "x" * 300
    assert ELLIPSIS in shortened_detail(other) and shortened_detail(other).startswith("genmove")
