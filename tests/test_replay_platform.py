"""``banqi replay`` reads the records the NTU 2019 platform writes (``tests/data``: one it
wrote itself for a game between two engines) and refuses them changed; a text record's
faults are named in the legality check's own words, the same as for a JSON record."""

import json
import tempfile
from pathlib import Path

import pytest
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st
from in_process_engines import engine_spec, in_process
from referee_fakes import play

from banqi_cli.main import cli
from banqi_engine.game import Game
from banqi_engine.notation import parse_ply
from banqi_engine.pieces import HIDDEN
from banqi_engine.position import Position
from banqi_engine.squares import square_name
from referee.deals import KEY_ENV
from referee.record import GameRecord
from referee.record_input import MAX_RECORD_BYTES, MAX_RECORD_LINES
from referee.text_record import format_text_record, parse_text_record

PLATFORM = (Path(__file__).parent / "data" / "ntu-2019-platform-record.txt").read_text()
LINES = PLATFORM.split("\n")


def replay(tmp_path: Path, text: str, *args: str, name: str = "game.txt") -> tuple[int, str]:
    path = tmp_path / name
    path.write_bytes(text.encode())
    result = CliRunner().invoke(cli, ["replay", str(path), *args])
    assert "Traceback" not in result.output, result.output
    assert result.exception is None or isinstance(result.exception, SystemExit)
    return result.exit_code, result.output


def changed(old: str, new: str) -> str:
    """The platform record with its one line ``old`` replaced by ``new``."""
    assert LINES.count(old) == 1, old
    return "\n".join(new if line == old else line for line in LINES)


def test_the_platform_record_is_read_and_ok_with_either_line_end(tmp_path: Path) -> None:
    for text in (PLATFORM, PLATFORM.replace("\n", "\r\n")):
        status, output = replay(tmp_path, text)
        assert status == 0, output
        assert "plies checked: 73" in output
        assert "on the board: red wins: black has no pieces left (no-legal-move)" in output
        assert "record says: NoMove a1 Wins" in output
    record = parse_text_record(PLATFORM)
    assert record.platform and record.names == ("a1", "a0") and record.first == 0
    assert record.trailer is not None and len(record.trailer.ply_times_ms) == 74
    assert record.trailer.closed and len(record.trailer.moves_replied) == 36


@pytest.mark.parametrize(
    ("old", "new", "words"),
    [
        ("* time 60", "* time 40", "more than its 40 s"),
        ("* first 0", "* first 1", "problem: "),
        ("* a1 vs a0", "* a1 vs a1", "both players are named 'a1'"),
        ("* NoMove a1 Wins", "* NoMove a0 Wins", "the record names winner 1"),
        ("* NoMove a1 Wins", "* TimeOut a1 Wins", "the board ended earlier"),
        ("* NoMove a1 Wins", "* Resign a1 Wins", "the board ended earlier"),
        ("* NoMove a1 Wins", "* NoEatFlipDraw", "the board ends by no-legal-move"),
        ("* NoMove a1 Wins", "* NoMove a1 Loses", "is not '<reason> <name> Wins'"),
        ("* NoMove a1 Wins", "* no-legal-move a1 wins", "unknown reason 'no-legal-move'"),
        ("* 2. d1(p) b8(m)", "* 2. b8(m) d1(p)", "genmove replies are not the plies"),
        ("* 1. b7(P) c8(n)", "* 1. c8(n) b7(P)", "is illegal"),
        ("=12 d3 d3", "=12 d3 d2", "genmove replies are not the plies"),
        ("40. 1796113381155", "40. 1796113380000", "the time of ply 40"),
        ("# 3 5 8 10 13 15 18", "# 3 x", "whole numbers"),
        ("73. 1796113406487", "", "ply times"),
        ("* 37. d2-d3", "* 37. d2-d4", "ply 73 (d2-d4) is illegal"),
    ],
)
def test_a_changed_platform_record_is_refused(
    tmp_path: Path, old: str, new: str, words: str
) -> None:
    text = changed(old, new) if LINES.count(old) == 1 else PLATFORM.replace(old, new, 1)
    status, output = replay(tmp_path, text)
    assert status in (1, 2), output
    assert words in output, output


def test_a_platform_record_without_its_end_or_aborted_is_incomplete(tmp_path: Path) -> None:
    status, output = replay(tmp_path, changed("###", ""))
    assert status == 2 and "INCOMPLETE: cut short" in output, output
    status, output = replay(tmp_path, changed("* NoMove a1 Wins", "* Abort"))
    assert status == 2 and "INCOMPLETE: the platform aborted the game (Abort)" in output


def test_a_platform_record_cut_after_any_line_is_incomplete(tmp_path: Path) -> None:
    closing = LINES.index("###")
    for keep in range(1, closing):
        status, output = replay(tmp_path, "\n".join(LINES[:keep]) + "\n")
        assert status == 2, (keep, output)
        if keep > 13:  # the header is whole
            assert "INCOMPLETE: " in output, (keep, output)


@settings(max_examples=60, deadline=None)
@given(cut=st.integers(min_value=0, max_value=len(PLATFORM.rstrip()) - 1))
def test_a_platform_record_cut_anywhere_is_refused(cut: int) -> None:
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "cut.txt"
        path.write_text(PLATFORM[:cut])
        result = CliRunner().invoke(cli, ["replay", str(path)])
    assert result.exit_code in (1, 2), result.output
    assert "Traceback" not in result.output


@pytest.fixture(scope="module")
def record(tmp_path_factory: pytest.TempPathFactory) -> GameRecord:
    out = tmp_path_factory.mktemp("game")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv(KEY_ENV, str(out / "key"))
        engines = (
            engine_spec("quick", "--level", "0", "--seed", "3"),
            engine_spec("slow", "--level", "1", "--seed", "4"),
        )
        records = play(out / "run", engines, rules="olympiad", seed=9, start_engine=in_process())
    return records[0]


def onto_face_down(record: GameRecord) -> tuple[int, str]:
    """The first move (not flip) of the record, and that move sent to a square that is
    face down at that point and not next to it."""
    game = Game(record.rules)
    for index, ply in enumerate(record.plies):
        parsed = parse_ply(ply.move)
        if not parsed.is_flip:
            frm = ply.move[:2]
            for square in range(32):
                name = square_name(square)
                far = abs(ord(name[0]) - ord(frm[0])) + abs(int(name[1]) - int(frm[1])) > 1
                if game.position.board[square] == HIDDEN and far:
                    return index, f"{frm}-{name}"
        game.play_ply(parsed)
    raise AssertionError("no move")


def problem(output: str) -> str:
    return next(line for line in output.splitlines() if line.startswith("problem: "))


def test_a_text_record_names_the_fault_in_the_words_of_a_json_record(
    tmp_path: Path, record: GameRecord
) -> None:
    index, bad = onto_face_down(record)
    plies = list(record.plies)
    plies[index] = plies[index].model_copy(update={"move": bad})
    tampered = record.model_copy(update={"plies": plies})
    json_status, json_output = replay(
        tmp_path, tampered.model_dump_json(), "--skip-mac", name="g.json"
    )
    text = format_text_record(tampered, Position.opening())
    text_status, text_output = replay(tmp_path, text, name="g.txt")
    assert json_status == text_status == 1
    assert problem(json_output) == problem(text_output)
    assert "is face down and cannot be taken" in problem(text_output), text_output


def test_a_result_line_that_is_not_one_is_named(tmp_path: Path, record: GameRecord) -> None:
    text = format_text_record(record, Position.opening())
    winner = record.players[record.winner or 0].name
    status, output = replay(tmp_path, text.replace(f" {winner} wins", f" {winner} loses"))
    assert status == 2
    assert (
        "the result line" in output and "is not '<reason> <name> wins' or '<reason> draw'" in output
    )
    assert "names: 'quick', 'slow'" in output


def test_a_json_record_with_a_result_in_other_words_or_one_name_is_refused(
    tmp_path: Path, record: GameRecord
) -> None:
    data = json.loads(record.model_dump_json())
    for change, words in (
        ({"result": "draw: whatever"}, "is not what the record's ending says"),
        (
            {"players": [data["players"][0], {**data["players"][1], "name": "quick"}]},
            "both players are named 'quick'",
        ),
    ):
        status, output = replay(
            tmp_path, json.dumps({**data, **change}), "--skip-mac", name="g.json"
        )
        assert status == 1 and words in output, output


def test_records_beyond_the_limits_are_not_read(tmp_path: Path) -> None:
    large = tmp_path / "large.txt"
    with large.open("wb") as handle:
        handle.truncate(MAX_RECORD_BYTES + 1)
    status, output = replay(tmp_path, "\n" * (MAX_RECORD_LINES + 1) + PLATFORM, name="long.txt")
    assert status == 2 and f"more than {MAX_RECORD_LINES:,} lines" in output
    result = CliRunner().invoke(cli, ["replay", str(large)])
    assert result.exit_code == 2 and f"larger than {MAX_RECORD_BYTES:,} bytes" in result.output
