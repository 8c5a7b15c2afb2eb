"""The block about the run built from records: facts that differ between games are given
with their games, what the config asked stands in where no record says yet, and a deal
book is named only when the records were dealt from it."""

from datetime import UTC, datetime, timedelta
from pathlib import Path

from banqi_engine.rules import PRESETS
from referee.deal_book import BookStamp
from referee.deals import DealBookRef
from referee.engine_limits import EngineLimits
from referee.engine_spec import EngineSpec
from referee.reasons import Reason
from referee.record import GameRecord, PlayerInfo
from referee.sandbox import Isolation, SandboxMode
from referee.timecontrol import TimeControl
from tournaments.match_config import MatchConfig
from tournaments.report_about import about_run, engines_table, run_asked
from tournaments.reports import format_standings_markdown, format_standings_text
from tournaments.standings import compute_standings

START = datetime(2026, 1, 2, 3, 4, 5, tzinfo=UTC)
BOOK_SHA = "ab" * 32
SPECS = (EngineSpec(name="a", command=("eng", "--x")), EngineSpec(name="b", command=("b",)))


def seat(name: str, version: str, isolation: Isolation = Isolation.BWRAP) -> PlayerInfo:
    return PlayerInfo(
        name=name,
        command=["eng", "--x"] if name == "a" else ["b"],
        engine_name=f"{name}-engine",
        version=version,
        isolation=isolation,
        network=False,
        limits=EngineLimits(memory_mib=512) if isolation is Isolation.UNSHARE else EngineLimits(),
    )


def record(number: int, players: tuple[PlayerInfo, PlayerInfo], book: bool = False) -> GameRecord:
    return GameRecord(
        game_id=f"g{number:04d}",
        rules=PRESETS["casual"],
        time_control=TimeControl(time=5),
        players=players,
        first=0,
        seed=7,
        deal=f"d{number}",
        deal_book=DealBookRef(sha256=BOOK_SHA, entry=number) if book else None,
        deal_secret="0" * 64,
        layout="x",
        started_at=START + timedelta(minutes=number),
        finished_at=START + timedelta(minutes=number, seconds=30),
        plies=[],
        winner=None,
        reason=Reason.NO_PROGRESS,
        result="draw",
        end_ply=0,
    )


CONFIG = MatchConfig(rules=PRESETS["casual"], engines=SPECS, seed=7, out=Path("x"))


def test_a_version_that_changed_between_games_is_given_with_its_games() -> None:
    records = [
        record(1, (seat("a", "1.0"), seat("b", "2"))),
        record(2, (seat("b", "2"), seat("a", "1.0"))),
        record(3, (seat("a", "1.1", Isolation.UNSHARE), seat("b", "2"))),
    ]
    about = about_run(records, run_asked(CONFIG, SPECS, 7, None))
    a_row, b_row = engines_table(about).rows
    assert a_row[3] == "differs between games: 1.0 (2 games); 1.1 (1 game)"
    assert a_row[4] == (
        "differs between games: bwrap, loopback only, memory 2048 MiB, 256 processes, room "
        "256 MiB (2 games); unshare, loopback only, memory 512 MiB, 256 processes, room "
        "256 MiB (1 game)"
    )
    assert b_row[3] == "2" and b_row[6] == "3"
    assert about.first_started == START + timedelta(minutes=1)
    assert about.last_finished == START + timedelta(minutes=3, seconds=30)
    standings = compute_standings([], ["a", "b"])
    text = format_standings_text(standings, about=about)
    assert "differs between games: 1.0 (2 games); 1.1 (1 game)" in text
    assert text.index("About the run") < text.index("Standings")
    assert "differs between games: 1.0 (2 games)" in format_standings_markdown(
        standings, about=about
    )


def test_without_records_the_block_says_what_was_asked() -> None:
    stamp = BookStamp(path="book.json", sha256=BOOK_SHA)
    about = about_run([], run_asked(CONFIG, SPECS, 7, stamp))
    assert [seen.games for seen in about.rules] == [0]
    assert about.sandbox_asked is SandboxMode.AUTO
    text = format_standings_text(compute_standings([], ["a", "b"]), about=about)
    assert "Seed: 7 (asked; no game yet)" in text
    assert f"Deals: deal book book.json (sha256 {BOOK_SHA}) (asked; no game yet)" in text
    a_row = engines_table(about).rows[0]
    assert a_row[:4] == ["a", "eng --x (asked; no game yet)", "-", "-"]


def test_a_deal_book_is_named_only_when_the_records_were_dealt_from_it() -> None:
    records = [record(1, (seat("a", "1"), seat("b", "2")), book=True)]
    named = about_run(
        records, run_asked(CONFIG, SPECS, 7, BookStamp(path="b.json", sha256=BOOK_SHA))
    )
    other = about_run(
        records, run_asked(CONFIG, SPECS, 7, BookStamp(path="b.json", sha256="cd" * 32))
    )
    assert named.deals[0].value.book == "b.json"
    assert other.deals[0].value.book is None and other.deals[0].value.sha256 == BOOK_SHA
