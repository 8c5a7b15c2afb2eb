"""SPRTs played in-process (``tests/in_process_engines.py``): the verdict between our levels,
pairs counted in pair order whatever order they end in, and the files written as it goes."""

import asyncio
import json
import re
from pathlib import Path

from in_process_engines import engine_spec, in_process

from banqi_engine.rules import resolve_rules
from referee.record import GameRecord, read_record
from referee.storage import GAMES_DIR
from referee.timecontrol import TimeControl
from tournaments.from_records import head_to_head_from_records
from tournaments.sprt import SprtStatus, SprtTest, Verdict
from tournaments.sprt_run import (
    CHART_FILE,
    STATUS_FILE,
    SprtConfig,
    SprtEvents,
    SprtTracker,
    run_sprt,
)

KEY = bytes(range(32))
"""A fixed referee key: the same layouts every run."""


def play(config: SprtConfig) -> tuple[SprtStatus, list[SprtStatus]]:
    """Run the test to its end; the status it ends with and the one after each pair."""
    counted: list[SprtStatus] = []
    events = SprtEvents(lambda record: None, counted.append, lambda name, last: None)
    tracker = SprtTracker(config)
    config.out.mkdir(parents=True)
    return asyncio.run(run_sprt(tracker, KEY, events, in_process())), counted


def records_in(out: Path) -> list[GameRecord]:
    return [read_record(path) for path in sorted((out / GAMES_DIR).glob("*.json"))]


def path_points(html: str, name: str) -> int:
    """How many points the SVG path ``name`` of the chart goes through."""
    found = re.search(rf'<path id="{name}" [^>]*d="([^"]*)"', html)
    assert found is not None, f"no path {name}"
    return len(re.findall(r"[ML]-?\d", found.group(1)))


def test_level_3_is_accepted_as_stronger_than_level_0(tmp_path: Path) -> None:
    config = SprtConfig(
        engines=(engine_spec("l3", "--level", "3"), engine_spec("l0", "--level", "0")),
        test=SprtTest(elo0=0, elo1=100),
        max_games=60,
        rules=resolve_rules("olympiad"),
        time_control=TimeControl(time=60, move_time=0.05),
        seed=1,
        out=tmp_path / "run",
        concurrency=2,
    )
    status, counted = play(config)

    assert status.verdict is Verdict.H1
    assert status.llr >= status.upper_bound
    assert [point.llr >= status.upper_bound for point in status.history][-2:] == [False, True]
    assert status.games == 2 * status.pairs == 2 * len(status.history) < config.max_games
    assert [s.pairs for s in counted] == list(range(1, status.pairs + 1))
    assert counted[-1] == status
    # the figures are those of the records of the pairs counted
    records = records_in(config.out)
    kept = [r for r in records if int(r.game_id[1:]) <= status.games]
    stats = head_to_head_from_records(kept, "l3", "l0")
    assert (status.wins, status.draws, status.losses) == (stats.wins, stats.draws, stats.losses)
    assert status.pentanomial == stats.pentanomial
    assert status.llr == config.test.llr(stats.pentanomial)
    assert (status.elo, status.elo_error) == (stats.penta_elo, stats.penta_elo_error)
    # no new pair once the verdict was in, and every pair played to its end
    assert len(records) - status.games <= 2 * config.concurrency
    assert not [r.game_id for r in records if r.withheld]
    # the files, as the last pair left them
    saved = SprtStatus.model_validate_json((config.out / STATUS_FILE).read_text())
    assert saved == status
    html = (config.out / CHART_FILE).read_text()
    assert "<script" not in html and "http" not in html.replace("http://www.w3.org/2000/svg", "")
    assert path_points(html, "llr") == len(status.history)
    assert path_points(html, "elo") == sum(p.elo is not None for p in status.history)
    assert "H1 accepted" in html

    # Counting does not depend on the order the games end in: pairs wait for earlier ones.
    backwards = SprtTracker(config)
    late = [backwards.add(record) for record in reversed(records)]
    assert late[:-1] == [0] * (len(records) - 1)
    assert backwards.status() == status

    # A pair with a void game counts in the games but leaves the LLR as it was.
    voided = SprtTracker(config)
    for record in records:
        if record.game_id == "g000002":
            record = record.model_copy(update={"void": True, "winner": None})
        voided.add(record)
    first = voided.status().history[0]
    assert (first.games, first.llr) == (2, 0.0)
    assert voided.status().void == 1
    assert sum(voided.status().pentanomial) == voided.status().pairs - 1


def test_two_copies_of_one_engine_are_not_accepted_as_stronger(tmp_path: Path) -> None:
    config = SprtConfig(
        engines=(
            engine_spec("copy1", "--level", "0", "--seed", "7"),
            engine_spec("copy2", "--level", "0", "--seed", "8"),
        ),
        test=SprtTest(elo0=0, elo1=150),
        max_games=40,
        rules=resolve_rules("casual"),
        time_control=TimeControl(time=60),
        seed=2,
        out=tmp_path / "run",
    )
    status, _ = play(config)

    assert status.verdict is Verdict.H0
    assert status.llr <= status.lower_bound
    assert all(point.llr < status.upper_bound for point in status.history)
    saved = json.loads((config.out / STATUS_FILE).read_text())
    assert saved["verdict"] == "H0"
    assert len(saved["history"]) == status.pairs
