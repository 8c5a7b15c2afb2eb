"""Matches played on a local Dask cluster: same results as here, one writer, engines checked."""

import asyncio
import contextlib
import json
import shlex
import shutil
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

pytest.importorskip("distributed")

from referee_fakes import TEST_KEY, write_fake

from banqi_cli.main import cli
from banqi_cli.tournament_command import tournament_command
from banqi_engine.rules import PRESETS
from referee.engine_check import EngineCheckError
from referee.engine_spec import EngineSpec
from referee.macs import MacKeys
from referee.record import GameRecord, read_record
from referee.sandbox import Isolation, SandboxMode
from referee.timecontrol import TimeControl
from tournaments.cluster import Cluster, WorkerEngines, cluster_player
from tournaments.config import TournamentConfig, load_config
from tournaments.match import MatchConfig, open_match, run_match, start_match_folder
from tournaments.runner import RunEvents, RunOptions

pytestmark = pytest.mark.xdist_group("cluster")

KEY = bytes(range(32))
ENGINES = WorkerEngines(SandboxMode.OFF, ())


def level(n: int) -> EngineSpec:
    program = shutil.which("banqi-engine")
    command = [program] if program else [sys.executable, "-m", "banqi_cli.engine"]
    return EngineSpec(name=f"L{n}", command=(*command, "--level", str(n), "--seed", "1"))


def config(out: Path) -> MatchConfig:
    return MatchConfig(
        engines=(level(1), level(0)),
        games=4,
        concurrency=2,
        rules=PRESETS["casual"],
        time_control=TimeControl(time=20.0),
        seed=5,
        out=out,
    )


async def on_cluster(match: MatchConfig, saved: list[GameRecord]) -> list[GameRecord]:
    events = RunEvents(lambda record, standings: saved.append(record), lambda *_: None)
    cluster = Cluster("local:2", ENGINES)
    place = cluster.place(match.engines, match.time_control.time_ms, 5.0, match.rules, None)
    options = RunOptions(key=KEY, out=match.out, events=events, play_on=place)
    return await run_match(match, options)


def test_a_match_on_a_cluster_plays_as_here(tmp_path: Path) -> None:
    here, there = config(tmp_path / "here"), config(tmp_path / "there")
    for match in (here, there):
        start_match_folder(open_match(match, True, MacKeys(KEY)), MacKeys(KEY))
    events = RunEvents(lambda record, standings: None, lambda *_: None)
    local = asyncio.run(run_match(here, RunOptions(key=KEY, out=here.out, events=events)))
    saved: list[GameRecord] = []
    remote = asyncio.run(on_cluster(there, saved))

    assert sorted(r.game_id for r in saved) == [r.game_id for r in remote]  # each saved once
    for a, b in zip(local, remote, strict=True):
        assert a.worker is None and b.worker is not None and b.worker.cpu
        assert (a.game_id, a.layout, a.winner, a.reason) == (
            b.game_id,
            b.layout,
            b.winner,
            b.reason,
        )
        assert [p.move for p in a.plies] == [p.move for p in b.plies]
    assert '"worker"' not in (here.out / "games" / "g0001.json").read_text(encoding="utf-8")


def test_an_engine_missing_on_the_workers_is_refused(tmp_path: Path) -> None:
    missing = EngineSpec(name="gone", command=(str(tmp_path / "no_such_engine"),))

    async def check() -> None:
        async with cluster_player("local:1", ENGINES, MacKeys(KEY)) as player:
            await player.check([level(0), missing], 1000, 5.0, PRESETS["olympiad"])

    with pytest.raises(EngineCheckError, match=r"on worker tcp://.*engine 'gone'.*No such file"):
        asyncio.run(check())


KILLER = """
_choose = choose
def choose(colour):
    if genmoves == 3 and first_process():
        note("killed", os.getppid())
        os.kill(os.getppid(), signal.SIGKILL)  # the Dask worker playing this game
        os._exit(0)
    return _choose(colour)
"""


def test_a_game_whose_worker_dies_is_played_again_and_saved_once(tmp_path: Path) -> None:
    fakes = [write_fake(tmp_path, "killer", KILLER, legal=True)]
    fakes += [write_fake(tmp_path, name, legal=True) for name in ("alpha", "beta")]
    out = tmp_path / "run"
    arguments = [f"--engine={fake.name}={shlex.join(fake.command)}" for fake in fakes]
    arguments += ["--rounds", "1", "--time", "20", "--sandbox", "off", "--cluster", "local:2"]
    arguments += ["--out", str(out), "--key-file", str(tmp_path / "key")]
    result = CliRunner().invoke(tournament_command, arguments)

    assert result.exit_code == 0, result.output
    assert (tmp_path / "killer.killed").exists()  # a worker died mid-game
    lines = [line.split()[1] for line in result.output.splitlines() if line.startswith("[")]
    records = [read_record(path) for path in sorted((out / "games").glob("*.json"))]
    ids = sorted(record.game_id for record in records)
    assert sorted(lines) == ids and len(set(ids)) == 6  # every game once, saved once
    assert all(record.worker is not None for record in records)
    assert all(p.isolation is Isolation.NONE for record in records for p in record.players)
    assert "warning: sandbox off on the cluster's workers, engines are NOT " in result.stderr
    names = [fake.name for fake in fakes]
    saved = json.loads((out / "standings.json").read_text(encoding="utf-8"))
    points = {name: 0.0 for name in names}
    for record in records:
        for index, player in enumerate(record.players):
            points[player.name] += record.points(index)
    assert {row["name"]: row["points"] for row in saved} == points


def test_a_config_names_its_cluster_and_tls_needs_one(tmp_path: Path) -> None:
    config = tmp_path / "field.toml"
    config.write_text(
        'cluster = "tcp://sched:8786"\n'
        '[[engines]]\nname = "a"\ncommand = ["banqi-engine"]\n'
        '[[engines]]\nname = "b"\ncommand = ["banqi-engine"]\n',
        encoding="utf-8",
    )
    assert load_config(config).cluster == "tcp://sched:8786"
    assert "cluster" in TournamentConfig.resumable

    arguments = [str(config), "--tls-cert", str(config), "--out", str(tmp_path / "run")]
    result = CliRunner().invoke(tournament_command, arguments)
    assert result.exit_code == 2
    assert "--tls-ca-file, --tls-cert and --tls-key go together" in result.output


def test_an_sprt_on_a_cluster_reaches_the_verdict_it_reaches_here(tmp_path: Path) -> None:
    """Same key, seed and engines: the same pairs, the same LLR and verdict, locally and
    through a local cluster."""
    (tmp_path / "key").write_bytes(TEST_KEY)
    ours = [f"{n}={shlex.join(level(k).command)}" for n, k in (("strong", 1), ("weak", 0))]
    base = ["sprt", *ours, "--rules", "casual", "--seed", "5", "--max-games", "4"]
    base += ["--elo1", "200", "--key-file", "key", "--sandbox", "off"]
    results = {}
    with contextlib.chdir(tmp_path):
        for name, extra in (("here", []), ("cluster", ["--cluster", "local:2"])):
            outcome = CliRunner().invoke(cli, [*base, "--out", name, *extra])
            assert outcome.exit_code == 0, outcome.output
            results[name] = json.loads((tmp_path / name / "sprt.json").read_text())
    for field in ("llr", "pentanomial", "games", "verdict"):
        assert results["here"][field] == results["cluster"][field], field
    layouts = {
        name: [read_record(p).layout for p in sorted((tmp_path / name / "games").glob("*.json"))]
        for name in results
    }
    assert layouts["here"] == layouts["cluster"] and layouts["here"]


def test_a_tune_on_a_cluster_plays_the_pairs_it_plays_here(tmp_path: Path) -> None:
    """Same key, seed and (deterministic) engine: the same pairs, games and theta, locally
    and through a local cluster, whose workers the progress lines count."""
    (tmp_path / "key").write_bytes(TEST_KEY)
    (tmp_path / "params.toml").write_text(
        "[safe_factor]\nvalue = 1.2\nmin = 1.0\nmax = 2.0\nc_end = 0.05\nr_end = 0.5\n"
    )
    engine = shlex.join(level(1).command)
    base = ["tune", "params.toml", "--engine", engine, "--iterations", "3", "--rules", "casual"]
    base += ["--seed", "5", "--key-file", "key", "--sandbox", "off"]
    states = {}
    with contextlib.chdir(tmp_path):
        for name, extra in (("here", []), ("cluster", ["--cluster", "local:2"])):
            outcome = CliRunner().invoke(cli, [*base, "--out", name, *extra])
            assert outcome.exit_code == 0, outcome.output
            states[name] = json.loads((tmp_path / name / "tune-state.json").read_text())
            on_cluster = "as many as the cluster has game slots" in outcome.output
            assert on_cluster == (name == "cluster"), outcome.output
            assert ("[cluster: 2 workers" in outcome.output) == (name == "cluster")
    here, cluster = states["here"], states["cluster"]
    assert len(here["pairs"]) == 3
    assert sorted(here["pairs"], key=lambda p: p["iteration"]) == sorted(
        cluster["pairs"], key=lambda p: p["iteration"]
    )
    assert here["theta"] == pytest.approx(cluster["theta"])
