"""``banqi bench arena`` end to end: a small event of remote entrants played by the real
``banqi serve``, quiet and then watched by spectators, its figures consistent."""

from pathlib import Path

import pytest
from click.testing import CliRunner

from banqi_arena.bench_figures import ArenaBench, Load, Spread
from banqi_cli.main import cli

pytest.importorskip("websockets")
pytest.importorskip("uvicorn")
pytest.importorskip("httpx2")


def test_a_small_event_is_played_quiet_and_watched(tmp_path: Path) -> None:
    figures = tmp_path / "arena.json"
    args = ["bench", "arena", "--entrants", "4", "--games-at-once", "2", "--games", "4"]
    args += ["--rules", "casual", "--time", "30", "--spectators", "5", "--json", str(figures)]
    args += ["--think", "5"]  # a little time a move, which the charge must count as the engine's
    outcome = CliRunner().invoke(cli, args)
    assert outcome.exit_code == 0, outcome.output
    assert "4 remote entrants (relays of random engines thinking 5 ms a move)" in outcome.output
    bench = ArenaBench.model_validate_json(figures.read_text())
    assert [run.load for run in bench.runs] == [Load.QUIET, Load.SPECTATORS]
    for run in bench.runs:
        assert run.problems == []
        assert run.games == 4  # paused once the fourth had started; those four ended
        assert run.plies > 0
        assert run.server_cpu_seconds > 0
        assert run.server_ms_per_ply == pytest.approx(1000 * run.server_cpu_seconds / run.plies)
        assert run.peak_rss_mib > 10
        assert run.relay_connects == 4 and run.relay_drops == 0
        assert isinstance(run.turnaround_ms, Spread) and isinstance(run.overcharge_ms, Spread)
        assert run.overcharge_ms.count == run.plies  # every ply's engine time was measured
        assert run.overcharge_ms.median < 20  # the 5 ms each move took are the engine's
        assert run.turnaround_ms.median <= run.turnaround_ms.p99 <= run.turnaround_ms.max
        assert f"{run.load.value:<15} {run.games:>5} {run.plies:>7,}" in outcome.output
    quiet, watched = bench.runs
    assert quiet.spectators is None
    assert watched.spectators is not None and watched.spectators.spectators == 5
    asked = watched.spectators.kinds
    for kind in ("event", "game"):  # the event, and the boards of its live games
        assert asked[kind].requests > 0 and asked[kind].failed == 0, kind
        assert set(asked[kind].statuses) == {"200"}, kind
        assert asked[kind].latency_ms is not None
        assert asked[kind].latency_ms.count == asked[kind].requests
    assert "against quiet" in outcome.output


def test_bad_settings_are_usage_errors() -> None:
    outcome = CliRunner().invoke(cli, ["bench", "arena", "--entrants", "65"])
    assert outcome.exit_code == 2
    assert "--entrants" in outcome.output
