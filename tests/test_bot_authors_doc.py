"""The bot authors' page (docs/bot-authors.md) checked against the protocol code, the
referee and a game it plays, so that it cannot drift."""

import re
from pathlib import Path

import banqi
from banqi_engine.game import Game
from banqi_engine.moves import flip_move, step_move
from banqi_engine.pieces import PIECE_LETTERS, UNDECIDED
from banqi_engine.rules import preset
from banqi_engine.squares import parse_square
from protocol.command_parser import parse_command_line
from protocol.line_protocol import DEFAULT_MAX_LINE_BYTES
from protocol.messages import COMMAND_NAMES, CommandId, parse_reply_line
from protocol.session import GAME_OVER_TIMEOUT, OPTIONAL_TIMEOUT, genmove_colour
from referee.engine_checklist import DEFAULT_GAME_SECONDS, LOW_CLOCK_MS
from referee.game_setup import DEFAULT_STALL_TIMEOUT
from referee.reasons import Reason
from referee.timecontrol import TimeControl
from tournaments.config import builtin_engine_command

PAGE = (Path(__file__).resolve().parent.parent / "docs" / "bot-authors.md").read_text()
LINE = re.compile(r"^\[(\w+)\] ([<>]) (.*)$")


def section(title: str) -> str:
    start = PAGE.index(f"\n## {title}\n")
    end = PAGE.find("\n## ", start + 1)
    return PAGE[start : end if end >= 0 else len(PAGE)]


def table_rows(text: str) -> list[list[str]]:
    rows = [line for line in text.splitlines() if line.startswith("| ") and "---" not in line]
    return [[cell.strip() for cell in re.split(r"(?<!\\)\|", row)[1:-1]] for row in rows[1:]]


def transcript() -> list[tuple[str, str, str]]:
    block = section("A whole game").split("```text\n", 1)[1].split("```", 1)[0]
    lines = []
    for text in block.splitlines():
        found = LINE.match(text)
        assert found, f"not a transcript line: {text!r}"
        lines.append((found.group(1), found.group(2), found.group(3)))
    return lines


def test_the_command_table_has_every_command_by_its_id() -> None:
    rows = table_rows(section("The commands"))
    assert [int(row[0]) for row in rows] == [int(c) for c in CommandId]
    for row in rows:
        assert row[1] == f"`{COMMAND_NAMES[CommandId(int(row[0]))]}`"


def test_the_faults_say_what_the_referee_says() -> None:
    rows = table_rows(section("Faults"))
    assert len(rows) >= 6
    for code, _, says in rows:
        reason = Reason(code.strip("`"))
        assert says == f"`{reason.result_words('black', 'red')}`"


def test_the_numbers_are_the_referees() -> None:
    clock = section("The clock")
    assert f"grace\n  of {TimeControl().margin_ms} ms" in clock
    assert f"within {DEFAULT_STALL_TIMEOUT:g} seconds" in clock
    assert OPTIONAL_TIMEOUT == GAME_OVER_TIMEOUT == 1.0
    assert clock.count("within 1 second") == 2
    assert f"{DEFAULT_MAX_LINE_BYTES:,} bytes" in section("The loop")
    checking = section("Checking a bot")
    assert f"{LOW_CLOCK_MS} ms left" in checking
    assert f"{DEFAULT_GAME_SECONDS:g} s a side" in checking


def test_the_transcript_is_a_legal_game_in_the_protocol() -> None:
    """Every line parses; each reply answers its command; the echoes are a legal game
    whose plies are the engines' answers; genmove names the side to move."""
    game = Game(preset("olympiad"))
    owed: dict[str, list[int]] = {}
    answers: list[str] = []  # genmove answers not yet echoed
    echoed: set[str] = set()
    resigned = None
    for who, way, text in transcript():
        if way == "<":
            reply = parse_reply_line(text)
            assert reply is not None and reply.ok, text
            assert reply.id == owed[who].pop(0), f"{who}: {text} answers another command"
            if reply.id == CommandId.GENMOVE and reply.payload == RESIGN:
                resigned = who
            elif reply.id == CommandId.GENMOVE:
                answers.append(reply.payload)
            continue
        command = parse_command_line(text)
        owed.setdefault(who, []).append(int(command.id))
        if command.id is CommandId.GENMOVE:
            assert command.args[0] == genmove_colour(game.side)
        if command.id in (CommandId.MOVE, CommandId.FLIP) and text not in echoed:
            echoed.add(text)  # both engines get each echo; the first one plays it
            frm = parse_square(command.args[0])
            if command.id is CommandId.FLIP:
                assert answers.pop(0) == f"{command.args[0]} {command.args[0]}"
                game.play(flip_move(frm), PIECE_LETTERS.index(command.args[1]))
            else:
                assert answers.pop(0) == " ".join(command.args)
                game.play(step_move(frm, parse_square(command.args[1])))
    assert resigned == "black" and not answers
    assert all(not ids for ids in owed.values())
    assert game.side != UNDECIDED and len(game.plies) == 5


def sent_by_engine(log: str) -> dict[str, list[str]]:
    """The command lines each engine was sent, from a ``--log-traffic`` transcript."""
    sent: dict[str, list[str]] = {}
    for line in log.splitlines():
        found = re.match(r"^\s*[0-9.]+ \[(.+?)\] > (.*)$", line)
        if found:
            sent.setdefault(found.group(1), []).append(found.group(2))
    return sent


def opening(lines: list[str]) -> list[str]:
    """The command names up to the first genmove or echo."""
    names = []
    for line in lines:
        name = line.split()[1]
        if name in ("genmove", "move", "flip"):
            break
        names.append(name)
    return names


def test_a_game_the_referee_plays_now_starts_and_ends_as_the_page_says(tmp_path: Path) -> None:
    record = banqi.play_game(
        [*builtin_engine_command("--level", "0")],
        [*builtin_engine_command("--level", "1")],
        time=3,
        seed=3,
        key=b"k" * 32,
        out=tmp_path,
        log_traffic=True,
    )
    (log,) = tmp_path.glob("games/*.dctp.log")
    sent = sent_by_engine(log.read_text())
    assert len(sent) == 2
    shown = {
        who: [text for w, way, text in transcript() if w == who and way == ">"]
        for who in ("red", "black")
    }
    for lines in sent.values():
        assert opening(lines) == opening(shown["red"]) == opening(shown["black"])
        on_the_board = record.reason in BOARD_ENDS
        assert (
            lines[-2:] == ["13 game_over end", "5 quit"] if on_the_board else lines[-1] == "5 quit"
        )
    assert shown["black"][-1] == "5 quit" and "13 game_over end" not in shown["black"]


BOARD_ENDS = {Reason.NO_LEGAL_MOVE, Reason.THREEFOLD_REPETITION, Reason.NO_PROGRESS}
RESIGN = "a0 a0"
