"""Deal books as files: ``banqi deals`` writes them, bad ones are refused naming the entry and
the problem, a run refuses a book too small for it, and a run resumes with its own book only.

No game is played here.
"""

import asyncio
import hashlib
import hmac
import json
import shutil
import stat
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result
from referee_fakes import TEST_KEY, TEST_MACS

from banqi_cli.main import cli
from banqi_engine.layout import parse_layout
from banqi_engine.rules import PRESETS
from referee.deal_book import (
    BookStamp,
    DealBookError,
    LoadedBook,
    entries_by_deal,
    make_deal_book,
    read_deal_book,
    write_deal_book,
)
from referee.deals import layout_from_secret
from referee.engine_spec import EngineSpec
from tournaments.config import TournamentConfig
from tournaments.match import MATCH_FILE, open_match, start_match_folder
from tournaments.match_config import MatchConfig
from tournaments.play import prepare
from tournaments.runner import RunEvents, RunOptions, RunSettings, run_scheduled
from tournaments.schedule import schedule
from tournaments.state import STATE_FILE, start_run_folder

CASUAL = PRESETS["casual"]
ENGINES = (EngineSpec(name="a", command=("a",)), EngineSpec(name="b", command=("b",)))
THREE = (*ENGINES, EngineSpec(name="c", command=("c",)))


def invoke(*args: str) -> Result:
    result = CliRunner().invoke(cli, list(args))
    assert "Traceback" not in result.output, result.output
    return result


def key_file(folder: Path, key: bytes = TEST_KEY) -> Path:
    path = folder / "referee.key"
    path.write_bytes(key)
    return path


def write_book(folder: Path, name: str, count: int, seed: int = 1) -> LoadedBook:
    path = folder / name
    write_deal_book(make_deal_book(TEST_KEY, seed, count), path)
    return read_deal_book(path)


def test_banqi_deals_writes_a_private_book_of_valid_entries(tmp_path: Path) -> None:
    out = tmp_path / "book.json"
    result = invoke(
        "deals",
        "--count",
        "5",
        "--out",
        str(out),
        "--seed",
        "9",
        "--key-file",
        str(key_file(tmp_path)),
    )
    assert result.exit_code == 0, result.output
    assert stat.S_IMODE(out.stat().st_mode) == 0o600
    data = json.loads(out.read_text(encoding="utf-8"))
    assert data["format"] == "banqi-deals/1"
    secrets = [entry["secret"] for entry in data["deals"]]
    assert secrets == [
        hmac.new(TEST_KEY, f"book/9/{index}".encode(), hashlib.sha256).hexdigest()
        for index in range(5)
    ]
    for entry in data["deals"]:
        assert parse_layout(entry["layout"]) == layout_from_secret(entry["secret"])
    assert len({entry["layout"] for entry in data["deals"]}) == 5
    sha256 = hashlib.sha256(out.read_bytes()).hexdigest()
    assert result.output == f"deal book {out}: 5 deals, seed 9, sha256 {sha256}\n"
    book = read_deal_book(out)
    assert book.sha256 == sha256 and len(book.book.deals) == 5
    assert sorted(path.name for path in tmp_path.iterdir()) == ["book.json", "referee.key"]


def test_the_same_key_and_seed_give_the_same_book(tmp_path: Path) -> None:
    key, other_key = key_file(tmp_path), tmp_path / "other.key"
    other_key.write_bytes(bytes(reversed(TEST_KEY)))
    books = {
        name: tmp_path / f"{name}.json"
        for name in ("first", "again", "other-seed", "other-key", "random")
    }
    runs = {
        "first": ("--seed", "4", "--key-file", str(key)),
        "again": ("--seed", "4", "--key-file", str(key)),
        "other-seed": ("--seed", "5", "--key-file", str(key)),
        "other-key": ("--seed", "4", "--key-file", str(other_key)),
        "random": ("--key-file", str(key)),
    }
    for name, args in runs.items():
        result = invoke("deals", "--count", "3", "--out", str(books[name]), *args)
        assert result.exit_code == 0, result.output
    assert "seed drawn at random" in result.output
    assert books["first"].read_bytes() == books["again"].read_bytes()
    layouts = {
        name: [entry.layout for entry in read_deal_book(path).book.deals]
        for name, path in books.items()
    }
    for name in ("other-seed", "other-key", "random"):
        assert all(a != b for a, b in zip(layouts["first"], layouts[name], strict=True)), name


def test_an_existing_file_is_replaced_only_with_force(tmp_path: Path) -> None:
    key = key_file(tmp_path)
    out = tmp_path / "book.json"
    out.write_text("my notes\n")
    out.chmod(0o644)
    args = ("deals", "--count", "2", "--out", str(out), "--key-file", str(key))
    refused = invoke(*args)
    assert refused.exit_code == 1
    assert refused.output == f"Error: {out} exists: not replaced (give --force to replace it)\n"
    assert out.read_text() == "my notes\n"
    replaced = invoke(*args, "--force")
    assert replaced.exit_code == 0, replaced.output
    assert stat.S_IMODE(out.stat().st_mode) == 0o600
    assert len(read_deal_book(out).book.deals) == 2

    missing = tmp_path / "no-such-folder" / "book.json"
    result = invoke("deals", "--count", "2", "--out", str(missing), "--key-file", str(key))
    assert result.exit_code == 1
    assert f"its folder {missing.parent} does not exist" in result.output
    for bad in ("0", "100001"):
        assert invoke("deals", "--count", bad, "--out", str(missing)).exit_code == 2


GOOD = [entry.model_dump() for entry in make_deal_book(TEST_KEY, 1, 3).deals]


def with_entry(index: int, **changes: Any) -> dict[str, Any]:
    deals = [dict(entry) for entry in GOOD]
    deals[index] = {**deals[index], **changes}
    return {"format": "banqi-deals/1", "deals": deals}


def two_kings(layout: str) -> str:
    return layout.replace("G", "K", 1)


BAD_BOOKS: dict[str, tuple[object, str]] = {
    "wrong piece counts": (
        with_entry(1, layout=two_kings(GOOD[1]["layout"]), secret=None),
        "deals[1].layout: 2 'K', a full set has 1",
    ),
    "seven ranks": (
        with_entry(2, layout=GOOD[2]["layout"].rpartition("/")[0], secret=None),
        "deals[2].layout: expected 8 ranks separated by '/', got 7",
    ),
    "five squares in a rank": (
        with_entry(0, layout="K" + GOOD[0]["layout"], secret=None),
        "deals[0].layout: rank 8 (",
    ),
    "a face-down square": (
        with_entry(1, layout="X" + GOOD[1]["layout"][1:], secret=None),
        "deals[1].layout: every square must hold a piece letter",
    ),
    "another entry's secret": (
        with_entry(1, secret=GOOD[2]["secret"]),
        "deals[1]: its secret does not shuffle to its layout",
    ),
    "a short secret": (
        with_entry(0, secret="abc123"),
        "deals[0].secret: 'abc123' is not a deal secret: allowed are 64 lowercase hex digits",
    ),
    "an upper-case secret": (
        with_entry(0, secret=GOOD[0]["secret"].upper()),
        "deals[0].secret: ",
    ),
    "an unknown field": (
        with_entry(2, note="mine"),
        "deals[2].note: Extra inputs are not permitted",
    ),
    "no layout": (with_entry(1, layout=None), "deals[1].layout: Input should be a valid string"),
    "no deals": ({"format": "banqi-deals/1", "deals": []}, "deals: List should have at least 1"),
    "another format": (
        {"format": "banqi-deals/2", "deals": GOOD},
        "format: Input should be 'banqi-deals/1'",
    ),
    "a list": (GOOD, "(top level): Input should be an object"),
}


@pytest.mark.parametrize("name", list(BAD_BOOKS))
def test_a_bad_book_is_refused_naming_the_entry_and_the_problem(tmp_path: Path, name: str) -> None:
    data, problem = BAD_BOOKS[name]
    path = tmp_path / "book.json"
    path.write_text(json.dumps(data))
    with pytest.raises(DealBookError) as caught:
        read_deal_book(path)
    message = str(caught.value)
    assert message.startswith(f"deal book {path} is not a valid banqi-deals/1 book: "), message
    assert problem in message, message


def test_an_unreadable_book_is_refused_naming_the_file(tmp_path: Path) -> None:
    path = tmp_path / "book.json"
    with pytest.raises(DealBookError, match=r"book\.json does not exist \(write one with"):
        read_deal_book(path)
    path.write_text("{")
    with pytest.raises(DealBookError, match=r"book\.json is not a valid .*\(top level\): Invalid"):
        read_deal_book(path)
    with pytest.raises(DealBookError, match="cannot read deal book"):
        read_deal_book(tmp_path)


def test_a_bad_book_stops_a_match_before_anything_starts(tmp_path: Path) -> None:
    book = tmp_path / "book.json"
    book.write_text(json.dumps(BAD_BOOKS["another entry's secret"][0]))
    out = tmp_path / "run"
    result = invoke(
        "match", "./no-such-engine", "./no-such-engine", "--deals", str(book), "--out", str(out)
    )
    assert result.exit_code == 1
    assert result.output.startswith(f"Error: deal book {book} is not a valid banqi-deals/1 book")
    assert "deals[1]: its secret does not shuffle to its layout" in result.output
    assert not out.exists()


def test_a_book_too_small_for_a_match_is_refused_before_any_game(tmp_path: Path) -> None:
    book = write_book(tmp_path, "book.json", 2)
    out = tmp_path / "run"
    args = ["match", "./no-such-a", "./no-such-b", "--deals", str(book.path), "--out", str(out)]
    result = invoke(*args, "--games", "5", "--sandbox", "off")
    assert result.exit_code == 1
    assert result.output.endswith(
        f"Error: the deal book {book.path} holds 2 deals; this run needs 3: write a bigger one "
        "(banqi deals --count 3)\n"
    )
    assert not out.exists()
    # four games are two pairs: the book is big enough, and the engines are checked next
    result = invoke(*args, "--games", "4", "--sandbox", "off")
    assert "Error: engine 'no-such-a' (./no-such-a) cannot start" in result.output


def test_a_book_too_small_for_a_tournament_is_refused_before_any_game(tmp_path: Path) -> None:
    book = write_book(tmp_path, "book.json", 2)
    out = tmp_path / "run"
    engines = [f"--engine={name}=./no-such-{name}" for name in "abc"]
    result = invoke(
        "tournament", *engines, "--deals", str(book.path), "--out", str(out), "--sandbox", "off"
    )
    assert result.exit_code == 1
    assert f"Error: the deal book {book.path} holds 2 deals; this run needs 3" in result.output
    assert not (out / STATE_FILE).exists()


def test_the_runner_refuses_a_book_too_small_before_any_game(tmp_path: Path) -> None:
    config = TournamentConfig(engines=THREE, rules=CASUAL, rounds=1, seed=1)
    games = list(schedule(config, 1))
    events = RunEvents(lambda record, standings: None, lambda *_: None)

    async def no_engine(*_: object) -> Any:
        raise AssertionError("an engine was started")

    options = RunOptions(
        key=TEST_KEY,
        out=tmp_path / "run",
        events=events,
        start_engine=no_engine,
        book=write_book(tmp_path, "book.json", 1),
    )
    with pytest.raises(DealBookError, match="holds 1 deal; this run needs 3"):
        asyncio.run(run_scheduled(games, RunSettings.of(config), options))
    assert not (tmp_path / "run" / "games").exists()


def test_the_kth_distinct_deal_of_a_schedule_takes_entry_k() -> None:
    config = TournamentConfig(engines=THREE, rules=CASUAL, rounds=2, seed=1)
    entries = entries_by_deal(game.setup.deal for game in schedule(config, 1))
    assert entries == {
        "r1-1-2": 0,
        "r1-1-3": 1,
        "r1-2-3": 2,
        "r2-1-2": 3,
        "r2-1-3": 4,
        "r2-2-3": 5,
    }
    assert entries_by_deal(["0", "0", "1", "1", "2"]) == {"0": 0, "1": 1, "2": 2}


def test_a_match_resumes_with_its_own_book_only(tmp_path: Path) -> None:
    first, other = write_book(tmp_path, "first.json", 2), write_book(tmp_path, "other.json", 2, 7)
    out = tmp_path / "run"
    config = MatchConfig(engines=ENGINES, games=4, rules=CASUAL, seed=1, out=out)
    start_match_folder(open_match(config, True, TEST_MACS, first), TEST_MACS)
    saved = json.loads((out / MATCH_FILE).read_text(encoding="utf-8"))
    assert saved["deal_book"] == {"path": str(first.path), "sha256": first.sha256}

    with pytest.raises(DealBookError) as caught:
        open_match(config, True, TEST_MACS, other)
    assert str(caught.value) == (
        f"{out} was started with the deal book {first.path} (sha256 {first.sha256[:16]}); "
        f"{other.path} is a different book (sha256 {other.sha256[:16]}): resume it with the "
        "same book, or choose another --out"
    )
    with pytest.raises(DealBookError, match="resume it with --deals and that book"):
        open_match(config, True, TEST_MACS, None)
    moved = tmp_path / "moved.json"
    shutil.copy(first.path, moved)
    stamp = BookStamp.model_validate(saved["deal_book"])
    assert open_match(config, True, TEST_MACS, read_deal_book(moved)).deal_book == stamp

    plain = config.model_copy(update={"out": tmp_path / "plain"})
    start_match_folder(open_match(plain, True, TEST_MACS), TEST_MACS)
    with pytest.raises(DealBookError, match=r"started without a deal book .*without --deals"):
        open_match(plain, True, TEST_MACS, first)


def test_a_tournament_resumes_with_its_own_book_only(tmp_path: Path) -> None:
    first, other = write_book(tmp_path, "first.json", 3), write_book(tmp_path, "other.json", 3, 7)
    out = tmp_path / "run"
    out.mkdir()
    config = TournamentConfig(engines=THREE, rules=CASUAL, rounds=1, seed=1)
    state, games = prepare(config, out, TEST_MACS, first)
    assert len(games) == 6
    start_run_folder(out, state, TEST_MACS)
    saved = json.loads((out / STATE_FILE).read_text(encoding="utf-8"))
    assert saved["deal_book"] == {"path": str(first.path), "sha256": first.sha256}
    assert prepare(config, out, TEST_MACS, first)[0].deal_book == state.deal_book
    with pytest.raises(DealBookError, match=rf"{other.path} is a different book"):
        prepare(config, out, TEST_MACS, other)
    with pytest.raises(DealBookError, match="resume it with --deals and that book"):
        prepare(config, out, TEST_MACS, None)
    more = config.model_copy(update={"rounds": 2})
    (tmp_path / "more").mkdir()
    with pytest.raises(DealBookError, match="holds 3 deals; this run needs 6"):
        prepare(more, tmp_path / "more", TEST_MACS, first)
