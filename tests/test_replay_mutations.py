"""``banqi replay`` certifies true records and refuses changed ones: real games (played
in-process) and records derived from them that are true by construction (the player to
move resigned, or lost on time), each in JSON and in our text form, then mutated one
field at a time, truncated, plies swapped, clocks bent. Every real record exits 0, every
changed one 1 (not ok) or 2 (unreadable or incomplete)."""

import itertools
import json
import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from in_process_engines import engine_spec, in_process
from referee_fakes import play

from banqi_cli.main import cli
from banqi_engine.layout import format_layout, parse_layout
from banqi_engine.notation import parse_ply
from banqi_engine.position import Position
from referee.deals import KEY_ENV
from referee.reasons import Reason
from referee.record import GameRecord
from referee.text_record import format_text_record
from referee.timecontrol import TimeControl
from referee.withheld import withhold

Json = dict[str, Any]
RULES = ("olympiad", "hong-kong-forum")
FAST = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])


class Games(list[GameRecord]):
    """The real records (shown short in a failing example)."""

    def __repr__(self) -> str:
        return f"<{len(self)} real records>"


class Folder:
    """Where the records are written for ``banqi replay`` to read."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.count = itertools.count()

    def verdict(self, content: str, suffix: str, rules: str) -> tuple[int, str]:
        """The exit status and output of ``banqi replay`` on a file of ``content``."""
        path = self.path / f"r{next(self.count)}{suffix}"
        path.write_bytes(content.encode())
        args = ["replay", str(path), "--rules", rules]
        if suffix == ".json":
            args.append("--skip-mac")
        result = CliRunner().invoke(cli, args)
        assert "Traceback" not in result.output, result.output
        assert result.exception is None or isinstance(result.exception, SystemExit)
        path.unlink()
        return result.exit_code, result.output


def ended_early(record: GameRecord, plies: int, reason: Reason) -> GameRecord:
    """``record`` as if the player to move after ``plies`` plies had lost by ``reason``:
    a true record of another game."""
    kept = record.plies[:plies]
    to_move = record.first if plies % 2 == 0 else 1 - record.first
    colours = [p.colour for p in record.players]
    result = f"{colours[1 - to_move]} wins: {colours[to_move]} {reason.loser_words}"
    update = {"plies": kept, "end_ply": plies, "reason": reason, "winner": 1 - to_move}
    return record.model_copy(update={**update, "result": result, "mac": None})


@pytest.fixture(scope="module")
def folder(tmp_path_factory: pytest.TempPathFactory) -> Folder:
    return Folder(tmp_path_factory.mktemp("replayed"))


@pytest.fixture(scope="module")
def real(tmp_path_factory: pytest.TempPathFactory) -> Games:
    """Two games under each of two rule sets (with an increment), and records of games
    that ended early by a resignation or a time loss."""
    out = tmp_path_factory.mktemp("games")
    records: list[GameRecord] = []
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv(KEY_ENV, str(out / "key"))
        for rules in RULES:
            engines = (
                engine_spec("random", "--level", "0", "--seed", "1", "--rules", rules),
                engine_spec("greedy", "--level", "1", "--seed", "2", "--rules", rules),
            )
            records += play(
                out / rules,
                engines,
                games=2,
                rules=rules,
                seed=5,
                time_control=TimeControl(time=30, increment=0.5),
                start_engine=in_process(),
            )
    early = [
        ended_early(records[0], 12, Reason.RESIGN),
        ended_early(records[2], 14, Reason.TIME_FORFEIT),
    ]
    return Games(records + early)


def as_json(record: GameRecord) -> Json:
    data: Json = json.loads(record.model_dump_json())
    return data


def as_text(record: GameRecord) -> str:
    return format_text_record(record, Position.opening())


def first_move(record: GameRecord) -> int:
    """The index of the first ply that is a move, not a flip."""
    return next(i for i, p in enumerate(record.plies) if not parse_ply(p.move).is_flip)


def json_mutations(record: GameRecord) -> dict[str, Callable[[Json], None]]:
    """Changes of one field each, made in place on the record's JSON."""
    last = len(record.plies) - 1
    move = first_move(record)
    other = {None: 0, 0: 1, 1: None}[record.winner]
    mutations: dict[str, Callable[[Json], None]] = {
        "result says draw": lambda d: d.update(result="draw: whatever"),
        "result names the other side": lambda d: d.update(
            result=d["result"].replace("red", "RED").replace("black", "red").replace("RED", "black")
        ),
        "winner": lambda d: d.update(winner=other),
        "same names": lambda d: d["players"][1].update(name=d["players"][0]["name"]),
        "colour": lambda d: d["players"][0].update(
            colour="black" if d["players"][0]["colour"] == "red" else "red"
        ),
        "first": lambda d: d.update(first=1 - d["first"]),
        "end_ply": lambda d: d.update(end_ply=d["end_ply"] - 1),
        "a clock of 99,999,999 ms": lambda d: d["plies"][last // 2].update(
            clocks_ms=[99_999_999, d["plies"][last // 2]["clocks_ms"][1]]
        ),
        "time lowered to 1 s": lambda d: d["time_control"].update(time=1.0),
        "time raised": lambda d: d["time_control"].update(time=d["time_control"]["time"] + 5),
        "increment raised": lambda d: d["time_control"].update(increment=5.0),
        "increment dropped": lambda d: d["time_control"].update(increment=0.0),
        "a ply took longer": lambda d: d["plies"][2].update(ms=d["plies"][2]["ms"] + 2000),
        "a ply took far longer": lambda d: d["plies"][3].update(ms=90_000),
        "a clock bent by a second": lambda d: d["plies"][-1].update(
            clocks_ms=[d["plies"][-1]["clocks_ms"][0] + 1000, d["plies"][-1]["clocks_ms"][1]]
        ),
        "secret": lambda d: d.update(
            deal_secret=("0" if d["deal_secret"][0] != "0" else "1") + d["deal_secret"][1:]
        ),
        "layout": lambda d: d.update(layout=swapped_layout(d["layout"], record)),
        "a flip shows another piece": lambda d: d["plies"][0].update(
            move=other_piece(d["plies"][0]["move"])
        ),
        "a move reversed": lambda d: d["plies"][move].update(
            move=reversed_move(d["plies"][move]["move"])
        ),
        "plies swapped": lambda d: swap(d["plies"], move - 1, move),
        "last ply dropped": lambda d: d["plies"].pop(),
        "last ply dropped, end_ply too": lambda d: (d["plies"].pop(), d.update(end_ply=last)),
    }
    for reason in Reason:
        if reason != record.reason:
            mutations[f"reason {reason.value}"] = lambda d, r=reason.value: d.update(reason=r)
    return mutations


def swap(items: list[Any], i: int, j: int) -> None:
    items[i], items[j] = items[j], items[i]


def other_piece(flip: str) -> str:
    """A flip ``b6(K)`` showing another piece."""
    letter = flip[-2]
    return flip[:-2] + ("G" if letter != "G" else "K") + ")"


def reversed_move(move: str) -> str:
    frm, to = move[:5].split("-")
    return f"{to}-{frm}"


def swapped_layout(layout: str, record: GameRecord) -> str:
    """The layout with the squares of the first two flips' pieces swapped, when they
    differ: a layout that is not the deal's."""
    flips = [parse_ply(p.move) for p in record.plies if parse_ply(p.move).is_flip]
    squares = [f.move & 31 for f in flips]
    pieces = parse_layout(layout)
    a, b = next((x, y) for x, y in itertools.combinations(squares, 2) if pieces[x] != pieces[y])
    pieces[a], pieces[b] = pieces[b], pieces[a]
    return format_layout(pieces)


def text_mutations(record: GameRecord) -> dict[str, Callable[[list[str]], None]]:
    """Changes of one thing each, made in place on the text record's ``* `` lines (the
    last is the result line)."""
    names = [p.name for p in record.players]
    result = -1
    moves = [i for i, line in enumerate(as_text(record).split("\r\n")) if line[2:3].isdigit()]
    mutations: dict[str, Callable[[list[str]], None]] = {
        "same names": lambda lines: lines.__setitem__(1, f"* {names[0]} vs {names[0]}"),
        "first swapped": lambda lines: lines.__setitem__(
            11, "* first 2" if lines[11] == "* first 1" else "* first 1"
        ),
        "winner swapped": lambda lines: lines.__setitem__(result, swap_names(lines[result], names)),
        "wins becomes loses": lambda lines: lines.__setitem__(
            result, lines[result].replace(" wins", " loses")
        ),
        "a draw": lambda lines: lines.__setitem__(result, f"* {record.reason.value} draw"),
        "result dropped": lambda lines: lines.pop(result),
        "a count changed": lambda lines: lines.__setitem__(2, "* 1 2 2 2 2 2 5 1 2 2 2 2 2 4"),
        "a board row changed": lambda lines: lines.__setitem__(3, "* X X X -"),
        "a move line dropped": lambda lines: lines.pop(moves[len(moves) // 2]),
        "the last ply dropped": lambda lines: lines.__setitem__(
            moves[-1], drop_last_ply(lines[moves[-1]])
        ),
        "a move reversed": lambda lines: replace_ply(lines, first_move(record), reversed_move),
        "unknown reason": lambda lines: lines.__setitem__(
            result, lines[result].replace(record.reason.value, "checkmate")
        ),
    }
    # a text record has no ply times and no words for the fault: a game lost by one fault
    # could have been lost by another, so only an end on the board tells reasons apart
    for reason in Reason:
        if reason != record.reason and (reason.is_board_end or record.reason.is_board_end):
            mutations[f"reason {reason.value}"] = lambda lines, r=reason.value: lines.__setitem__(
                result, lines[result].replace(record.reason.value, r, 1)
            )
    for index in swappable(record):
        mutations[f"plies {index + 1} and {index + 2} swapped"] = lambda lines, i=index: swap_plies(
            lines, i
        )
    return mutations


def swap_names(line: str, names: list[str]) -> str:
    winner = next(n for n in names if f" {n} wins" in line)
    loser = next(n for n in names if n != winner)
    return line.replace(f" {winner} wins", f" {loser} wins")


def drop_last_ply(line: str) -> str:
    return " ".join(line.split()[:-1])


def ply_place(index: int) -> tuple[int, int]:
    """The ``* `` line (counted from the first move line) and the word of ply ``index``."""
    return index // 2, 2 + index % 2


def replace_ply(lines: list[str], index: int, change: Callable[[str], str]) -> None:
    first_line = next(i for i, line in enumerate(lines) if line.startswith("* 1. "))
    row, word = ply_place(index)
    words = lines[first_line + row].split()
    words[word] = change(words[word])
    lines[first_line + row] = " ".join(words)


def swap_plies(lines: list[str], index: int) -> None:
    first_line = next(i for i, line in enumerate(lines) if line.startswith("* 1. "))
    (row_a, word_a), (row_b, word_b) = ply_place(index), ply_place(index + 1)
    a, b = lines[first_line + row_a].split(), lines[first_line + row_b].split()
    if row_a == row_b:
        a[word_a], a[word_b] = a[word_b], a[word_a]
        lines[first_line + row_a] = " ".join(a)
        return
    a[word_a], b[word_b] = b[word_b], a[word_a]
    lines[first_line + row_a], lines[first_line + row_b] = " ".join(a), " ".join(b)


def swappable(record: GameRecord) -> list[int]:
    """Plies that can be swapped with the next one and be told apart: not two flips (in a
    text record, which has no layout and no player per ply, two flips swapped are a game
    as real as the one played)."""
    flips = [parse_ply(p.move).is_flip for p in record.plies]
    return [i for i in range(0, len(flips) - 1, 5) if not (flips[i] and flips[i + 1])]


def test_every_real_record_is_ok_in_both_forms(real: list[GameRecord], folder: Folder) -> None:
    for record in real:
        status, output = folder.verdict(record.model_dump_json(), ".json", record.rules.name)
        assert status == 0, output
        assert output.endswith("ok: every ply is legal and the ending agrees\n")
        status, output = folder.verdict(as_text(record), ".txt", record.rules.name)
        assert status == 0, output


def test_every_field_changed_in_a_json_record_is_refused(
    real: list[GameRecord], folder: Folder
) -> None:
    for record in real:
        for name, mutate in json_mutations(record).items():
            data = as_json(record)
            mutate(data)
            status, output = folder.verdict(json.dumps(data), ".json", record.rules.name)
            assert status in (1, 2), (record.game_id, name, output)
            assert "ok:" not in output, (name, output)


def test_every_change_to_a_text_record_is_refused(real: list[GameRecord], folder: Folder) -> None:
    for record in real:
        for name, mutate in text_mutations(record).items():
            lines = as_text(record).split("\r\n")[:-1]
            mutate(lines)
            text = "".join(f"{line}\r\n" for line in lines)
            status, output = folder.verdict(text, ".txt", record.rules.name)
            assert status in (1, 2), (record.game_id, name, output)


def test_a_text_record_cut_after_any_line_is_incomplete(
    real: list[GameRecord], folder: Folder
) -> None:
    for record in real[::2]:
        lines = as_text(record).split("\r\n")[:-1]
        for keep in range(1, len(lines)):
            cut = "".join(f"{line}\r\n" for line in lines[:keep])
            status, output = folder.verdict(cut, ".txt", record.rules.name)
            assert status == 2, (keep, output)
            if keep > 13:
                assert "INCOMPLETE: no result line" in output, output


def cut(content: str, data: st.DataObject) -> str:
    """``content`` cut short anywhere before its end."""
    end = len(content.rstrip())
    return content[: data.draw(st.integers(min_value=0, max_value=end - 1))]


def cut_text(record: GameRecord, data: st.DataObject) -> tuple[str, str]:
    return cut(as_text(record), data), ".txt"


def cut_json(record: GameRecord, data: st.DataObject) -> tuple[str, str]:
    return cut(record.model_dump_json(indent=2), data), ".json"


def bent_clocks(record: GameRecord, data: st.DataObject) -> tuple[str, str]:
    """One clock of one ply bent, either way, by ``ply + 3`` ms or more (not below zero)."""
    ply = data.draw(st.integers(min_value=0, max_value=len(record.plies) - 1))
    side = data.draw(st.integers(min_value=0, max_value=1))
    bend = data.draw(
        st.integers(min_value=ply + 3, max_value=10_000_000)
        | st.integers(max_value=-(ply + 3), min_value=-10_000_000)
    )
    data_json = as_json(record)
    clocks = data_json["plies"][ply]["clocks_ms"]
    if clocks[side] + bend < 0:
        bend = -bend
    clocks[side] += bend
    return json.dumps(data_json), ".json"


def ply_moved(record: GameRecord, data: st.DataObject) -> tuple[str, str]:
    """A ply's whole record moved to another place in the list of plies."""
    count = len(record.plies)
    source = data.draw(st.integers(min_value=0, max_value=count - 1))
    target = data.draw(st.integers(min_value=0, max_value=count - 1).filter(lambda t: t != source))
    data_json = as_json(record)
    data_json["plies"].insert(target, data_json["plies"].pop(source))
    return json.dumps(data_json), ".json"


@dataclass(frozen=True)
class DrawnChange:
    """A change hypothesis draws on a real record (its content and file suffix), the
    statuses ``banqi replay`` may refuse it with, and words its output must hold."""

    change: Callable[[GameRecord, st.DataObject], tuple[str, str]]
    statuses: tuple[int, ...] = (1,)
    words: tuple[str, ...] = ()


DRAWN_CHANGES = {
    "text-cut-anywhere": DrawnChange(cut_text, statuses=(1, 2)),
    "json-cut-anywhere": DrawnChange(cut_json, statuses=(1, 2)),
    "bent-clocks": DrawnChange(bent_clocks, words=("clocks_ms",)),
    "ply-moved-elsewhere": DrawnChange(ply_moved),
}


@pytest.mark.parametrize("drawn", DRAWN_CHANGES.values(), ids=list(DRAWN_CHANGES))
@FAST
@given(data=st.data())
def test_a_drawn_change_is_refused(
    real: list[GameRecord], folder: Folder, data: st.DataObject, drawn: DrawnChange
) -> None:
    record = data.draw(st.sampled_from(real))
    content, suffix = drawn.change(record, data)
    status, output = folder.verdict(content, suffix, record.rules.name)
    assert status in drawn.statuses, output
    assert all(words in output for words in drawn.words), output


def test_replay_reads_no_device_and_no_empty_file(tmp_path: Path, folder: Folder) -> None:
    empty = tmp_path / "empty.json"
    empty.write_bytes(b"")
    zero = tmp_path / "zero.txt"
    zero.symlink_to("/dev/zero")
    fifo = tmp_path / "fifo.txt"
    os.mkfifo(fifo)
    for path, words in (
        (empty, "is empty: not a record"),
        (zero, "is not a regular file"),
        (fifo, "is not a regular file"),
    ):
        result = CliRunner().invoke(cli, ["replay", str(path)])
        assert result.exit_code == 2, result.output
        assert result.output.startswith("Error: ") and words in result.output
        assert len(result.output.splitlines()) == 1


def withheld_mutations(record: GameRecord) -> dict[str, Callable[[Json], None]]:
    """Changes a withheld record's shape check, players, result and clocks still see (not
    a move reversed: without the pieces, a step back may be a shape as good)."""
    move = first_move(record)
    return {
        "a flip of a face-up square": lambda d: d["plies"][move].update(
            move=d["plies"][move]["move"][:2] + "(?)"
        ),
        "plies swapped": lambda d: swap(d["plies"], move - 1, move),
        "same names": lambda d: d["players"][1].update(name=d["players"][0]["name"]),
        "end_ply": lambda d: d.update(end_ply=d["end_ply"] + 1),
        "a clock of 99,999,999 ms": lambda d: d["plies"][1].update(clocks_ms=[99_999_999, 0]),
        "time lowered to 1 s": lambda d: d["time_control"].update(time=1.0),
    }


def test_a_withheld_record_is_checked_as_far_as_it_can_be(
    real: list[GameRecord], folder: Folder
) -> None:
    for record in real:
        hidden = withhold(record.model_copy(update={"mac": None}))
        status, output = folder.verdict(hidden.model_dump_json(), ".json", record.rules.name)
        assert status == 0 and "ok as far as it can be checked" in output, output
        for name, mutate in withheld_mutations(record).items():
            data = as_json(hidden)
            mutate(data)
            status, output = folder.verdict(json.dumps(data), ".json", record.rules.name)
            assert status in (1, 2), (record.game_id, name, output)


def test_a_record_in_the_former_words_for_no_piece_left_still_replays(
    real: Games, folder: Folder
) -> None:
    """Records said ``black has no legal move`` when every black piece had been taken;
    they say ``black has no pieces left`` now, and a record in the former words is good."""
    ended = [r for r in real if r.reason is Reason.NO_LEGAL_MOVE and "no pieces left" in r.result]
    assert ended, [r.result for r in real]
    record = ended[0]
    former = record.result.replace("has no pieces left", "has no legal move")
    for result, status in ((record.result, 0), (former, 0), (record.result + "!", 1)):
        text = record.model_copy(update={"result": result, "mac": None}).model_dump_json()
        assert folder.verdict(text, ".json", record.rules.name)[0] == status, result
