"""The referee benchmark plays real games and splits the CPU between referee and engines."""

from click.testing import CliRunner

from banqi_cli.main import cli
from banqi_engine.rules import PRESETS
from tournaments.referee_bench import bench_referee


def test_bench_referee_counts_the_plies_of_its_games() -> None:
    result = bench_referee(2, 1, PRESETS["casual"])
    assert result.games == 2
    assert result.plies >= 2
    assert result.referee_cpu_seconds > 0
    assert result.engine_cpu_seconds > 0
    assert result.referee_ms_per_ply == 1000 * result.referee_cpu_seconds / result.plies


def test_bench_referee_command_prints_the_per_ply_cost() -> None:
    outcome = CliRunner().invoke(cli, ["bench", "referee", "--games", "2", "--rules", "casual"])
    assert outcome.exit_code == 0, outcome.output
    assert "2 games" in outcome.output
    assert "ms per ply" in outcome.output
