"""A run's size is known from its config before its schedule is built: one over the limit
is refused at once with the numbers; the schedule is made game by game, the same games
as the whole list had."""

import itertools
import time
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from referee_fakes import TEST_MACS

from banqi_cli.main import cli
from referee.engine_spec import EngineSpec
from tournaments import pairs, play, run_size
from tournaments.config import ConfigError, TournamentFormat, config_from_data
from tournaments.run_size import MAX_RUN_GAMES, RunSizeError, check_memory
from tournaments.schedule import schedule


def engines(count: int) -> list[dict[str, Any]]:
    return [{"name": f"e{i}", "command": ["x"]} for i in range(1, count + 1)]


def write_config(path: Path, count: int, rounds: int) -> Path:
    lines = [f"rounds = {rounds}"]
    for i in range(1, count + 1):
        lines += ["[[engines]]", f'name = "e{i}"', 'command = "x"']
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def never_built(*args: object, **kwargs: object) -> None:
    raise AssertionError("the schedule was built")


def test_a_run_over_the_limit_is_refused_at_once_without_building_its_schedule(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(pairs, "GameSetup", never_built)
    monkeypatch.setattr(play, "schedule", never_built)
    config = write_config(tmp_path / "big.toml", 64, 10_000)
    start = time.perf_counter()
    result = CliRunner().invoke(cli, ["tournament", str(config), "--out", str(tmp_path / "r")])
    assert time.perf_counter() - start < 1.0
    assert result.exit_code != 0
    line = result.output.strip()
    assert "\n" not in line
    assert "rounds = 10000 with 64 engines is 40,320,000 games" in line
    assert f"a run holds at most {MAX_RUN_GAMES:,}" in line
    assert not (tmp_path / "r").exists()


@pytest.mark.parametrize(
    ("count", "rounds", "format_", "gauntlet"),
    [(64, 246, "round-robin", 0), (3, 2, "round-robin", 0), (6, 4, "gauntlet", 2)],
)
def test_the_closed_formula_counts_the_pairings(
    count: int, rounds: int, format_: str, gauntlet: int
) -> None:
    entries = engines(count)
    for entry in entries[:gauntlet]:
        entry["gauntlet"] = True
    config = config_from_data({"engines": entries, "rounds": rounds, "format": format_}, "t")
    assert config.pairing_count() == len(config.pairings())
    assert config.games_total() == 2 * rounds * len(config.pairings())


def test_the_limit_is_the_games_not_the_rounds() -> None:
    at_limit = config_from_data({"engines": engines(2), "rounds": 10_000}, "t")
    assert at_limit.games_total() == 20_000
    gauntlet = engines(64)
    gauntlet[0]["gauntlet"] = True
    data = {"engines": gauntlet, "rounds": 10_000, "format": TournamentFormat.GAUNTLET}
    with pytest.raises(ConfigError, match=r"\(1 in the gauntlet\) is 1,260,000 games"):
        config_from_data(data, "t")


def test_a_schedule_bigger_than_the_memory_is_refused() -> None:
    with pytest.raises(
        RunSizeError, match=r"1,000,000 games needs about 2\.0 GB.* 500 MB available"
    ):
        check_memory(1_000_000, available=500_000_000)
    check_memory(1_000_000, available=4_000_000_000)


def old_schedule_ids(count: int, rounds: int) -> list[tuple[str, str, int, tuple[int, int]]]:
    """The games the schedule listed whole: every round, every pair i < j, seats swapped."""
    return [
        (f"r{r}-{i + 1}-{j + 1}-{k + 1}", f"r{r}-{i + 1}-{j + 1}", k, (i, j))
        for r in range(1, rounds + 1)
        for i in range(count)
        for j in range(i + 1, count)
        for k in range(2)
    ]


def test_the_schedule_made_game_by_game_has_the_games_the_list_had() -> None:
    config = config_from_data({"engines": engines(4), "rounds": 3}, "t")
    games = list(schedule(config, 5))
    assert [
        (g.setup.game_id, g.setup.deal, g.setup.first, g.engines) for g in games
    ] == old_schedule_ids(4, 3)
    assert [g.setup.players[0].name for g in games] == [
        f"e{i + 1}" for _, _, _, (i, _) in old_schedule_ids(4, 3)
    ]
    assert all(isinstance(spec, EngineSpec) for g in games for spec in g.setup.players)


def test_a_resumed_run_with_more_rounds_keeps_the_games_it_had() -> None:
    small = config_from_data({"engines": engines(3), "rounds": 2}, "t")
    grown = small.model_copy(update={"rounds": 5})
    had = list(schedule(small, 9))
    assert list(itertools.islice(schedule(grown, 9), len(had))) == had


def test_the_first_games_of_a_big_schedule_come_without_the_rest() -> None:
    config = config_from_data({"engines": engines(64), "rounds": 240}, "t")
    assert config.games_total() == 967_680
    start = time.perf_counter()
    first = list(itertools.islice(schedule(config, 1), 10))
    assert time.perf_counter() - start < 1.0
    assert [g.setup.game_id for g in first[:3]] == ["r1-1-2-1", "r1-1-2-2", "r1-1-3-1"]


def test_a_run_too_big_for_the_memory_is_refused_before_its_folder_or_schedule(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(run_size, "available_memory", lambda: 1_000_000)
    monkeypatch.setattr(play, "schedule", never_built)
    config = config_from_data({"engines": engines(8), "rounds": 100}, "t")
    with pytest.raises(
        RunSizeError, match=r"5,600 games needs about 11 MB; this machine has 1 MB available"
    ):
        play.prepare(config, tmp_path / "r", TEST_MACS)
    assert not (tmp_path / "r").exists()
