"""Runs dealt from a deal book: the same layouts whoever plays, hand-written books, withheld
records that show nothing of a book's deal, and a sandboxed spy that cannot read the book.

Library runs play in-process (``in_process_engines``); the CLI runs start real processes.
"""

import asyncio
import json
import re
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from click.testing import CliRunner
from in_process_engines import engine_spec, in_process
from referee_fakes import TEST_KEY, TEST_MACS, write_fake

import referee.deal_records
import tournaments.runner
from banqi_cli.main import cli
from banqi_engine.layout import parse_layout
from banqi_engine.rules import PRESETS
from referee.deal_book import LoadedBook, make_deal_book, read_deal_book, write_deal_book
from referee.deals import layout_from_secret
from referee.engine_spec import EngineSpec
from referee.macs import MacKeys
from referee.record import GameRecord, read_record
from referee.replay import replay_game_record
from referee.sandbox import Isolation, working_isolations
from referee.storage import record_path
from tournaments.config import TournamentConfig
from tournaments.match import open_match, run_match, start_match_folder
from tournaments.match_config import MatchConfig
from tournaments.play import prepare
from tournaments.run_kinds import RunFolderError
from tournaments.runner import RunEvents, RunOptions, run_games
from tournaments.state import start_run_folder

CASUAL = PRESETS["casual"]
BANQI = str(Path(sys.executable).with_name("banqi"))
if not Path(BANQI).exists():
    BANQI = shutil.which("banqi") or "banqi"
HAND_LAYOUTS = (
    "KGGM/MRRN/NCCP/PPPP/kggm/mrrn/nccp/pppp",
    "pppp/pccn/nrrm/mggk/PPPP/PCCN/NRRM/MGGK",
)
SHOWN_FLIP = re.compile(r"[a-d][1-8]\([KGMRNCPkgmrncp]\)")


def generated_book(folder: Path, count: int = 3) -> LoadedBook:
    path = folder / "book.json"
    write_deal_book(make_deal_book(TEST_KEY, 11, count), path)
    return read_deal_book(path)


def hand_written_book(folder: Path) -> LoadedBook:
    path = folder / "hand.json"
    deals = [{"layout": layout} for layout in HAND_LAYOUTS]
    path.write_text(json.dumps({"format": "banqi-deals/1", "deals": deals}), encoding="utf-8")
    return read_deal_book(path)


BOOKS = {"generated": generated_book, "hand-written": hand_written_book}


def engines(*levels: str) -> tuple[EngineSpec, ...]:
    return tuple(
        engine_spec(
            f"e{index}-{level}", "--level", level, "--seed", str(index), "--rules", "casual"
        )
        for index, level in enumerate(levels)
    )


def play_match(
    config: MatchConfig,
    book: LoadedBook,
    *,
    key: bytes = TEST_KEY,
    on_game: Callable[[GameRecord], None] = lambda record: None,
) -> list[GameRecord]:
    """Open (or resume) the match with ``book`` and play it in-process."""
    macs = MacKeys(key)
    start_match_folder(open_match(config, True, macs, book=book), macs)
    events = RunEvents(lambda record, standings: on_game(record), lambda *_: None)
    options = RunOptions(
        key=key,
        out=config.out,
        events=events,
        log_traffic=True,
        start_engine=in_process(),
        book=book,
    )
    return asyncio.run(run_match(config, options))


def match_config(out: Path, games: int, levels: tuple[str, str] = ("0", "1")) -> MatchConfig:
    specs = engines(*levels)
    return MatchConfig(engines=(specs[0], specs[1]), games=games, rules=CASUAL, seed=3, out=out)


def assert_dealt_from(record: GameRecord, book: LoadedBook, entry: int) -> None:
    """The record is complete, dealt from the book's entry, and replays."""
    wanted = book.book.deals[entry]
    assert not record.withheld
    assert record.layout == wanted.layout
    assert record.deal_secret == wanted.secret
    assert record.deal_book is not None
    assert (record.deal_book.sha256, record.deal_book.entry) == (book.sha256, entry)
    report = replay_game_record(record)
    assert report.ok and not report.withheld, report.problems


@pytest.fixture
def no_key_deals(monkeypatch: pytest.MonkeyPatch) -> None:
    """A run dealt from a book never derives a deal secret from the referee key."""

    def refuse(*_: object) -> str:
        raise AssertionError("a deal secret was derived from the key in a book run")

    monkeypatch.setattr(tournaments.runner, "deal_secret_of", refuse)
    monkeypatch.setattr(referee.deal_records, "deal_secret_of", refuse)


def run_cli(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [BANQI, *args], cwd=cwd, capture_output=True, text=True, timeout=120, check=False
    )


def test_two_matches_of_different_engines_meet_the_same_deals(tmp_path: Path) -> None:
    """As a user runs it: two versions, other keys and seeds, one book: the same layouts."""
    book = generated_book(tmp_path, 2)
    engine = str(Path(sys.executable).with_name("banqi-engine"))
    runs = {
        "old": (f"old={engine} --level 0 --seed 1", f"base={engine} --level 1", "1"),
        "new": (f"new={engine} --level 1 --seed 2", f"base={engine} --level 0", "2"),
    }
    found: dict[str, list[GameRecord]] = {}
    for name, (engine_a, engine_b, seed) in runs.items():
        key = tmp_path / f"{name}.key"
        key.write_bytes(bytes([int(seed)]) * 32)
        out = tmp_path / name
        done = run_cli(
            "match",
            engine_a,
            engine_b,
            "--games",
            "4",
            "--rules",
            "casual",
            "--time",
            "60",
            "--seed",
            seed,
            "--key-file",
            str(key),
            "--sandbox",
            "off",
            "--deals",
            str(book.path),
            "--out",
            str(out),
            cwd=tmp_path,
        )
        assert done.returncode == 0, done.stderr
        found[name] = [read_record(record_path(out, f"g000{n}")) for n in range(1, 5)]
    for name, records in found.items():
        assert [r.players[0].name for r in records] == [name] * 4
        for record, entry in zip(records, (0, 0, 1, 1), strict=True):
            assert_dealt_from(record, book, entry)
    assert [r.layout for r in found["old"]] == [r.layout for r in found["new"]]
    assert [r.plies for r in found["old"]] != [r.plies for r in found["new"]]


def test_a_tournament_deals_its_kth_distinct_deal_from_entry_k(
    tmp_path: Path, no_key_deals: None
) -> None:
    book = generated_book(tmp_path, 3)
    layouts = []
    for name, levels in (("first", ("0", "0", "1")), ("second", ("1", "0", "0"))):
        out = tmp_path / name
        out.mkdir()
        config = TournamentConfig(engines=engines(*levels), rules=CASUAL, rounds=1, seed=5)
        state, games = prepare(config, out, TEST_MACS, book)
        start_run_folder(out, state, TEST_MACS)
        events = RunEvents(lambda record, standings: None, lambda *_: None)
        options = RunOptions(
            key=TEST_KEY, out=out, events=events, start_engine=in_process(), book=book
        )
        asyncio.run(run_games(games, config, options))
        records = [read_record(record_path(out, game.setup.game_id)) for game in games]
        for record, entry in zip(records, (0, 0, 1, 1, 2, 2), strict=True):
            assert_dealt_from(record, book, entry)
        layouts.append([record.layout for record in records])
    assert layouts[0] == layouts[1]


def test_a_hand_written_book_deals_its_layouts_and_records_no_secret(tmp_path: Path) -> None:
    book = hand_written_book(tmp_path)
    out = tmp_path / "run"
    records = play_match(match_config(out, 3), book)
    for record, entry in zip(records, (0, 0, 1), strict=True):
        assert_dealt_from(record, book, entry)
        assert record.deal_secret is None
        saved = json.loads(record_path(out, record.game_id).read_text(encoding="utf-8"))
        assert "deal_secret" not in saved
        assert saved["deal_book"] == {"sha256": book.sha256, "entry": entry}
        assert saved["layout"] == HAND_LAYOUTS[entry]
    result = CliRunner().invoke(cli, ["replay", str(record_path(out, "g0001"))])
    assert result.exit_code == 0, result.output
    assert "ok: every ply is legal and the ending agrees" in result.output

    # without the book reference, a record without a secret is not a valid record
    data = json.loads(record_path(out, "g0001").read_text(encoding="utf-8"))
    del data["deal_book"]
    with pytest.raises(ValueError, match="deal_secret missing"):
        GameRecord.model_validate(data)


def test_a_book_record_whose_layout_is_not_its_secrets_shuffle_does_not_replay(
    tmp_path: Path,
) -> None:
    book = generated_book(tmp_path, 1)
    record = play_match(match_config(tmp_path / "run", 1), book)[0]
    other = book.book.deals[0].layout[::-1]  # still a full set, another layout
    assert parse_layout(other) != layout_from_secret(book.book.deals[0].secret or "")
    report = replay_game_record(record.model_copy(update={"layout": other}))
    assert "the layout is not the shuffle of the recorded deal secret" in report.problems


def folder_text(out: Path) -> dict[str, str]:
    return {
        str(path.relative_to(out)): path.read_text(encoding="utf-8", errors="replace")
        for path in sorted(out.rglob("*"))
        if path.is_file()
    }


@pytest.mark.parametrize("kind", list(BOOKS))
def test_a_book_deal_is_on_disk_only_once_its_pair_has_ended(
    tmp_path: Path, kind: str, no_key_deals: None
) -> None:
    book = BOOKS[kind](tmp_path)
    entry = book.book.deals[0]
    out = tmp_path / "run"
    seen: dict[str, dict[str, str]] = {}
    records = play_match(
        match_config(out, 2), book, on_game=lambda r: seen.setdefault(r.game_id, folder_text(out))
    )
    first = seen["g0001"]
    assert sorted(name for name in first if name.startswith("games/")) == [
        "games/g0001.held",  # what the withheld record leaves out, sealed
        "games/g0001.json",
    ]
    for name, text in first.items():
        assert entry.layout not in text and entry.layout.replace("/", "") not in text, name
        assert entry.secret is None or entry.secret not in text, name
        assert not SHOWN_FLIP.search(text), name
    withheld = json.loads(first["games/g0001.json"])
    assert withheld["withheld"] is True and "layout" not in withheld
    assert withheld["deal_book"] == {"sha256": book.sha256, "entry": 0}
    assert "games/g0001.txt" in seen["g0002"] and "games/g0002.txt" in seen["g0002"]
    for record in records:
        assert_dealt_from(record, book, 0)
        assert_dealt_from(read_record(record_path(out, record.game_id)), book, 0)


class Stop(Exception):
    """Stands in for a run stopped between the two games of a pair."""


@pytest.mark.parametrize("kind", list(BOOKS))
def test_a_book_run_stopped_after_half_a_pair_completes_it_from_the_book(
    tmp_path: Path, kind: str, no_key_deals: None
) -> None:
    book = BOOKS[kind](tmp_path)
    out = tmp_path / "run"
    config = match_config(out, 2)

    def stop(record: GameRecord) -> None:
        raise Stop

    with pytest.raises(Stop):
        play_match(config, book, on_game=stop)
    assert read_record(record_path(out, "g0001")).withheld
    with pytest.raises(RunFolderError, match=r"match\.json has no valid MAC"):
        play_match(config, book, key=bytes(reversed(TEST_KEY)))  # its files are its key's
    records = play_match(config, book)
    for record in records:
        assert_dealt_from(record, book, 0)
        assert_dealt_from(read_record(record_path(out, record.game_id)), book, 0)


def test_a_match_resumed_with_another_book_is_refused_naming_it(tmp_path: Path) -> None:
    first, other = generated_book(tmp_path, 1), hand_written_book(tmp_path)
    fake = write_fake(tmp_path, "fake", legal=True)
    command = f"{sys.executable} {fake.script.name}"
    args = ["match", command, command, "--games", "2", "--rules", "casual", "--out", "run"]
    args += ["--key-file", "referee.key", "--sandbox", "off"]
    (tmp_path / "referee.key").write_bytes(TEST_KEY)
    done = run_cli(*args, "--deals", first.path.name, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    again = run_cli(*args, "--deals", other.path.name, cwd=tmp_path)
    assert again.returncode == 1
    assert again.stderr.splitlines()[-1] == (
        f"Error: run was started with the deal book book.json (sha256 {first.sha256[:16]}); "
        f"hand.json is a different book (sha256 {other.sha256[:16]}): resume it with the same "
        "book, or choose another --out"
    )


SPY = r"""
BOOK = __BOOK__


def peek():
    try:
        with open(BOOK, "rb") as handle:
            return b"banqi-deals" in handle.read()
    except OSError:
        return False


_plain_answer = answer


def answer(i, words):
    if i == 1:
        reply(1, "spy:" + ("book" if peek() else "nothing"))
    else:
        _plain_answer(i, words)
"""


@pytest.mark.parametrize("command", ["match", "tournament"])
def test_a_sandboxed_spy_cannot_read_the_book(tmp_path: Path, command: str) -> None:
    """The book in the engines' own working directory: covered for a sandboxed engine; the
    same spy unsandboxed reads it (so the check can fail)."""
    if working_isolations()[0] is Isolation.NONE:
        pytest.skip("no sandbox works on this machine")
    work = tmp_path / "work"
    work.mkdir()
    book = generated_book(work, 2)
    spy = write_fake(work, "spy", SPY.replace("__BOOK__", repr(str(book.path))), legal=True)
    other = write_fake(work, "other", legal=True)
    commands = [f"{sys.executable} {fake.script.name}" for fake in (spy, other)]
    if command == "match":
        args = ["match", *commands, "--games", "2"]
    else:
        args = ["tournament", "--engine", f"spy={commands[0]}", "--engine", f"other={commands[1]}"]
    (work / "referee.key").write_bytes(TEST_KEY)
    args += ["--rules", "casual", "--deals", "book.json", "--key-file", "referee.key"]
    for sandbox, seen in (("required", "spy:nothing"), ("off", "spy:book")):
        out = tmp_path / f"run-{sandbox}"
        done = run_cli(*args, "--sandbox", sandbox, "--out", str(out), cwd=work)
        assert done.returncode == 0, done.stderr
        records = [read_record(path) for path in sorted((out / "games").glob("*.json"))]
        assert len(records) == 2
        for record in records:
            assert seen in [player.engine_name for player in record.players], sandbox
            assert record.layout == book.book.deals[0].layout
