"""Gauntlets: the schedule, the config, the head-to-head lines of the reports, the command."""

import asyncio
import json
from collections import Counter
from pathlib import Path
from textwrap import dedent
from typing import Any

import pytest
from in_process_engines import engine_spec, in_process
from referee_fakes import TEST_KEY
from tournament_capture import Captured, capture, invoke

from banqi_engine.rules import PRESETS
from referee.engine_spec import EngineSpec
from referee.record import read_record
from referee.storage import record_path
from tournaments.config import (
    ConfigError,
    EngineEntry,
    TournamentConfig,
    TournamentFormat,
    config_from_data,
    load_config,
)
from tournaments.gauntlet import gauntlet_pairs, turned
from tournaments.reports import (
    format_head_to_head,
    format_standings_markdown,
    format_standings_text,
    report_json,
)
from tournaments.results import ScoredGame, Standings
from tournaments.runner import RunEvents, RunOptions, run_games
from tournaments.schedule import schedule
from tournaments.standings import compute_standings, head_to_head

GAUNTLET = TournamentFormat.GAUNTLET


def entry(name: str, gauntlet: bool = False) -> EngineEntry:
    return EngineEntry(name=name, command=(name,), gauntlet=gauntlet)


def players(game: Any) -> set[str]:
    return {spec.name for spec in game.setup.players}


def test_the_schedule_holds_exactly_the_first_engines_games() -> None:
    engines = (entry("cand"), entry("b"), entry("c"), entry("d"))
    config = TournamentConfig(engines=engines, format=GAUNTLET, rounds=2)
    games = list(schedule(config, 5))

    assert len(games) == config.games_total() == 2 * 3 * 2
    assert all("cand" in players(game) for game in games)
    opponents = Counter(name for game in games for name in players(game) - {"cand"})
    assert opponents == {"b": 4, "c": 4, "d": 4}
    round_robin = list(
        schedule(config.model_copy(update={"format": TournamentFormat.ROUND_ROBIN}), 5)
    )
    assert [g for g in round_robin if "cand" in players(g)] == games
    assert [g.setup.game_id for g in games[:2]] == ["r1-1-2-1", "r1-1-2-2"]
    for one, two in zip(games[::2], games[1::2], strict=True):
        assert one.setup.deal == two.setup.deal == one.pair_id
        movers = {g.setup.players[g.setup.first].name for g in (one, two)}
        assert movers == players(one)


def test_marked_engines_play_every_other_engine_but_not_each_other() -> None:
    engines = (entry("a"), entry("g1", True), entry("c"), entry("g2", True), entry("e"))
    config = TournamentConfig(engines=engines, format=GAUNTLET)
    assert config.gauntlet_names() == ("g1", "g2")
    games = list(schedule(config, 1))

    met = Counter(frozenset(players(game)) for game in games)
    expected = {frozenset({g, o}) for g in ("g1", "g2") for o in ("a", "c", "e")}
    assert set(met) == expected
    assert set(met.values()) == {2}
    assert len(games) == config.games_total() == 12


def test_a_round_robin_has_no_gauntlet_engines() -> None:
    config = TournamentConfig(engines=(entry("a"), entry("b"), entry("c")))
    assert config.format is TournamentFormat.ROUND_ROBIN
    assert config.gauntlet_names() == ()
    assert len(config.pairings()) == 3


def test_a_gauntlet_from_toml(tmp_path: Path) -> None:
    path = write_toml(
        tmp_path,
        dedent(
            """
            format = "gauntlet"
            rounds = 3

            [[engines]]
            name = "base"
            command = "base"

            [[engines]]
            name = "new"
            command = "new"
            gauntlet = true

            [[engines]]
            name = "old"
            command = "old"
            """
        ),
    )
    config = load_config(path)
    assert config.gauntlet_names() == ("new",)
    assert config.pairings() == [(0, 1), (1, 2)]
    assert config.games_total() == 12
    assert [type(spec) for spec in next(schedule(config, 1)).setup.players] == [EngineSpec] * 2


@pytest.mark.parametrize(
    ("format_", "marked", "expected"),
    [
        ("round-robin", "a", 'engines: gauntlet = true (a) needs format = "gauntlet"'),
        ("gauntlet", "ab", "engines: every engine is marked gauntlet = true"),
        ("swiss", "", "format: Input should be 'round-robin' or 'gauntlet'"),
    ],
)
def test_bad_gauntlets_are_named(format_: str, marked: str, expected: str) -> None:
    engines = [{"name": n, "command": n, "gauntlet": n in marked} for n in "ab"]
    with pytest.raises(ConfigError) as error:
        config_from_data({"format": format_, "engines": engines}, "the test")
    assert expected in str(error.value)


def game(first: str, second: str, winner: int | None, pair: int) -> ScoredGame:
    return ScoredGame(first=first, second=second, winner=winner, pair=pair)


RESULTS = [
    game("cand", "strong", 1, 1),
    game("strong", "cand", None, 1),
    game("cand", "strong", 1, 2),
    game("strong", "cand", 0, 2),
    game("cand", "weak", 0, 3),
    game("weak", "cand", None, 3),
]
"""cand scores 0-1-3 against strong (ranked above it) and 1-1-0 against weak; idle never
plays."""


@pytest.fixture
def standings() -> Standings:
    return compute_standings(RESULTS, ["cand", "strong", "weak", "idle"])


def test_gauntlet_lines_are_from_the_gauntlet_engines_side(standings: Standings) -> None:
    assert standings.rows[0].name == "strong"
    lines = gauntlet_pairs(standings, ["cand"])

    assert [(s.first, s.second) for s in lines] == [
        ("cand", "strong"),
        ("cand", "weak"),
        ("cand", "idle"),
    ]
    for stats in lines:
        between = [r for r in RESULTS if {r.first, r.second} == {stats.first, stats.second}]
        assert stats == head_to_head(between, stats.first, stats.second)
    assert (lines[0].wins, lines[0].draws, lines[0].losses) == (0, 1, 3)
    assert lines[0].pentanomial == (1, 1, 0, 0, 0)
    assert lines[2].games == 0


def test_turning_a_pair_twice_gives_it_back(standings: Standings) -> None:
    for pair in standings.pairs:
        assert turned(turned(pair)) == pair


def test_the_reports_end_with_the_gauntlet_lines(standings: Standings) -> None:
    expected = [format_head_to_head(s) for s in gauntlet_pairs(standings, ["cand"])]
    assert expected[0].startswith("cand vs strong: 4 games, W-D-L 0-1-3")
    assert expected[2] == "cand vs idle: 0 games, W-D-L 0-0-0; 0 pairs"

    text = format_standings_text(standings, ["cand"])
    assert text.split("\n\nGauntlet\n", 1)[1].splitlines()[2:] == expected
    markdown = format_standings_markdown(standings, ["cand"])
    assert markdown.split("\n\n## Gauntlet\n", 1)[1].splitlines()[3:] == [
        f"- {line}" for line in expected
    ]
    data = json.loads(report_json(standings, ["cand"]))
    assert [(s["first"], s["second"]) for s in data["gauntlet"]] == [
        ("cand", "strong"),
        ("cand", "weak"),
        ("cand", "idle"),
    ]
    assert data["rows"] == json.loads(report_json(standings))["rows"]


def test_a_round_robins_reports_have_no_gauntlet_part(standings: Standings) -> None:
    assert "Gauntlet" not in format_standings_text(standings)
    assert "Gauntlet" not in format_standings_markdown(standings)
    assert "gauntlet" not in json.loads(report_json(standings))


def test_a_gauntlet_plays_only_its_games_and_reports_them(tmp_path: Path) -> None:
    engines = [
        engine_spec(name, "--level", level, "--seed", seed, "--rules", "casual")
        for name, level, seed in (("cand", "1", "1"), ("random", "0", "2"), ("greedy", "1", "3"))
    ]
    config = TournamentConfig(
        engines=engines,
        format=GAUNTLET,
        rules=PRESETS["casual"],
        concurrency=2,
        seed=4,
    )
    games = list(schedule(config, 4))
    done: list[str] = []
    events = RunEvents(lambda record, standings: done.append(record.game_id), print)
    options = RunOptions(key=TEST_KEY, out=tmp_path, events=events, start_engine=in_process())
    asyncio.run(run_games(games, config, options))

    assert sorted(done) == ["r1-1-2-1", "r1-1-2-2", "r1-1-3-1", "r1-1-3-2"]
    assert sorted(path.stem for path in (tmp_path / "games").glob("*.json")) == sorted(done)
    for game_id in done:
        assert "cand" in {p.name for p in read_record(record_path(tmp_path, game_id)).players}
    text = (tmp_path / "report.txt").read_text()
    gauntlet = text.split("\n\nGauntlet\n", 1)[1].splitlines()[2:]
    assert sorted(line.split(":")[0] for line in gauntlet) == ["cand vs greedy", "cand vs random"]
    assert all(": 2 games" in line for line in gauntlet)
    report = json.loads((tmp_path / "report.json").read_text())
    assert {s["first"] for s in report["gauntlet"]} == {"cand"}
    assert "<h2>Gauntlet</h2>" in (tmp_path / "report.html").read_text()


@pytest.fixture
def captured(monkeypatch: pytest.MonkeyPatch) -> Captured:
    return capture(monkeypatch)


def test_the_format_flag(tmp_path: Path, captured: Captured) -> None:
    code, output = invoke(
        tmp_path, "--format", "gauntlet", "--engine", "a=a", "--engine", "b=b", "--sandbox", "off"
    )
    assert code == 0, output
    (config,) = captured.configs
    assert config.format is GAUNTLET
    assert config.gauntlet_names() == ("a",)
    assert "\nGauntlet\n" in output


def test_the_format_flag_overrides_the_files(tmp_path: Path, captured: Captured) -> None:
    path = tmp_path / "t.toml"
    path.write_text(
        'format = "gauntlet"\n[[engines]]\nname = "a"\ncommand = "a"\n'
        '[[engines]]\nname = "b"\ncommand = "b"\n'
    )
    assert invoke(tmp_path, str(path), "--sandbox", "off")[0] == 0
    assert invoke(tmp_path, str(path), "--format", "round-robin", "--sandbox", "off")[0] == 0
    assert [c.format for c in captured.configs] == [GAUNTLET, TournamentFormat.ROUND_ROBIN]


def test_the_readmes_worked_example_loads(tmp_path: Path) -> None:
    readme = (Path(__file__).resolve().parent.parent / "README.md").read_text(encoding="utf-8")
    example = readme.split("A worked example with the built-in engines", 1)[1]
    toml = example.split("```toml\n", 1)[1].split("```", 1)[0]
    config = load_config(write_toml(tmp_path, toml))
    assert config.gauntlet_names() == ("quick",)
    assert config.games_total() == 8
    own = config.own_time(0)
    assert own is not None and (own.time, config.time_control.time) == (10, 20)


def write_toml(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "gauntlet.toml"
    path.write_text(text)
    return path
