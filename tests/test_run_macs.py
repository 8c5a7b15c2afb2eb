"""A run's records are its own: its folder is made, locked and its state written before any
engine starts, and a resume takes only the state files and records whose MAC this referee
made (``referee.macs``), naming any other."""

import json
import shlex
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner
from in_process_engines import engine_spec, in_process
from job_events import Told
from referee_fakes import TEST_MACS, Fake, write_fake
from run_helpers import CASUAL, ENGINES, access, edit

from banqi_cli.main import cli
from protocol.connection import EngineConnection
from protocol.errors import EngineError
from protocol.line_protocol import TrafficLog
from referee.engine_check import EngineCheckError
from referee.engine_spec import EngineSpec
from referee.engine_start import EngineFactory
from referee.macs import mac_matches
from referee.reasons import Reason
from referee.record import GameRecord, read_record
from referee.storage import record_path
from tournaments.config import TournamentConfig
from tournaments.match_config import MatchConfig
from tournaments.match_job import MatchJob, run_match_job
from tournaments.run_kinds import MATCH_FILE, STATE_FILE, RunFolderError
from tournaments.sprt import SprtTest
from tournaments.sprt_job import SprtJob, SprtJobEvents, run_sprt_job
from tournaments.sprt_run import SprtConfig, SprtEvents
from tournaments.tournament_job import TournamentEvents, TournamentJob, run_tournament_job
from tournaments.tune import PairResult, TuneGame, TuneParam, TuneState
from tournaments.tune_run import TuneConfig, read_state, save_state


def match_job(tmp_path: Path, games: int = 4) -> MatchJob:
    config = MatchConfig(engines=ENGINES, games=games, rules=CASUAL, seed=3, out=tmp_path / "m")
    return MatchJob(config=config, access=access(tmp_path))


def played(tmp_path: Path, games: int = 4) -> tuple[MatchJob, list[GameRecord]]:
    """A finished match in ``tmp_path / "m"``: its job and records."""
    job = match_job(tmp_path, games)
    return job, run_match_job(job, Told().match_events(), in_process()).records


def refused_record(out: Path, name: str) -> str:
    return (
        f"cannot resume {out}: games/{name} has no valid MAC (not written by this referee); "
        "move it out of the folder to have its game played again"
    )


def signed_by_the_run(record: GameRecord) -> bool:
    return mac_matches(record, record.mac, TEST_MACS.game(record.seed, record.game_id))


def test_every_file_a_run_writes_carries_its_mac(tmp_path: Path) -> None:
    job, records = played(tmp_path)
    out = job.config.out
    assert [r.game_id for r in records] == ["g0001", "g0002", "g0003", "g0004"]
    for record in records:
        on_disk = read_record(record_path(out, record.game_id))
        assert on_disk == record and signed_by_the_run(on_disk)
    assert "mac" in json.loads((out / MATCH_FILE).read_text(encoding="utf-8"))


@pytest.mark.parametrize("tamper", ["result changed", "mac removed", "another game's record"])
def test_a_resume_refuses_a_record_whose_mac_is_not_its_own_naming_it(
    tmp_path: Path, tamper: str
) -> None:
    job, records = played(tmp_path)
    out = job.config.out
    path = record_path(out, "g0002")
    if tamper == "result changed":
        loser = 1 - records[1].winner if records[1].winner is not None else 0
        edit(path, {"winner": loser, "result": "the other engine wins"})
    elif tamper == "mac removed":
        edit(path, {}, drop=("mac",))
    else:  # g0001's record, with its MAC, copied as g0002's
        shutil.copy(record_path(out, "g0001"), path)
        edit(path, {"game_id": "g0002"})
    with pytest.raises(RunFolderError) as error:
        run_match_job(job, Told().match_events(), in_process())
    assert str(error.value) == refused_record(out, "g0002.json")

    path.rename(tmp_path / "moved-out.json")  # as the message says: its game is played again
    told = Told()
    again = run_match_job(job, told.match_events(), in_process()).records
    assert [r.game_id for r in told.games] == ["g0002"]
    assert all(signed_by_the_run(record) for record in again)


def test_a_record_copied_under_another_games_name_is_named_as_such(tmp_path: Path) -> None:
    job, _ = played(tmp_path)
    out = job.config.out
    shutil.copy(record_path(out, "g0001"), record_path(out, "g0003"))
    with pytest.raises(RunFolderError, match=r"record .*g0003\.json is the record of game g0001"):
        run_match_job(job, Told().match_events(), in_process())


def test_a_record_of_a_run_with_another_seed_is_refused(tmp_path: Path) -> None:
    job, _ = played(tmp_path)
    other = job.model_copy(
        update={"config": job.config.model_copy(update={"seed": 4, "out": tmp_path / "o"})}
    )
    run_match_job(other, Told().match_events(), in_process())
    shutil.copy(record_path(tmp_path / "o", "g0001"), record_path(job.config.out, "g0001"))
    with pytest.raises(RunFolderError) as error:
        run_match_job(job, Told().match_events(), in_process())
    assert str(error.value) == refused_record(job.config.out, "g0001.json")


def test_a_tampered_missing_or_unsigned_state_file_is_refused(tmp_path: Path) -> None:
    job, _ = played(tmp_path)
    out = job.config.out
    state = out / MATCH_FILE
    saved = state.read_text(encoding="utf-8")

    edit(state, {"created_at": "2020-01-01T00:00:00Z"})
    with pytest.raises(RunFolderError) as error:
        run_match_job(job, Told().match_events(), in_process())
    assert str(error.value) == (
        f"cannot resume {out}: match.json has no valid MAC (not written by this referee: "
        "another referee key, or changed since)"
    )
    state.write_text(saved, encoding="utf-8")
    edit(state, {}, drop=("mac",))
    with pytest.raises(RunFolderError, match=r"match\.json has no MAC: .* --adopt-unsigned"):
        run_match_job(job, Told().match_events(), in_process())
    state.unlink()
    with pytest.raises(RunFolderError, match=r"holds game records but no match\.json"):
        run_match_job(job, Told().match_events(), in_process())

    state.write_text(saved, encoding="utf-8")
    assert len(run_match_job(job, Told().match_events(), in_process()).records) == 4


def test_an_unsigned_record_in_a_signed_folder_is_not_adopted(tmp_path: Path) -> None:
    job, _ = played(tmp_path)
    edit(record_path(job.config.out, "g0004"), {}, drop=("mac",))
    adopting = job.model_copy(
        update={"access": access(tmp_path).model_copy(update={"adopt_unsigned": True})}
    )
    with pytest.raises(RunFolderError) as error:
        run_match_job(adopting, Told().match_events(), in_process())
    assert str(error.value) == refused_record(job.config.out, "g0004.json")


def test_an_sprt_resume_refuses_a_tampered_record(tmp_path: Path) -> None:
    test = SprtTest(elo0=0, elo1=200)
    out = tmp_path / "s"
    config = SprtConfig(engines=ENGINES, test=test, max_games=4, rules=CASUAL, seed=3, out=out)
    run = SprtEvents(lambda record: None, lambda status: None, lambda name, last: None)
    events = SprtJobEvents(Told().notices(), lambda tracker: None, lambda status: None, run)
    job = SprtJob(config=config, access=access(tmp_path))
    run_sprt_job(job, events, in_process())
    edit(record_path(config.out, "g000001"), {"detail": "changed"})
    with pytest.raises(RunFolderError) as error:
        run_sprt_job(job, events, in_process())
    assert str(error.value) == refused_record(config.out, "g000001.json")


def test_a_tuning_runs_state_is_refused_once_changed(tmp_path: Path) -> None:
    param = TuneParam(value=1.0, min=0.5, max=2.0, c_end=0.075, r_end=0.02)
    config = TuneConfig(params={"x": param}, iterations=2, rules=CASUAL, seed=1, out=tmp_path)
    game = TuneGame(plus_points=1.0, minus_points=0.0, reason=Reason.RESIGN, plies=3)
    state = TuneState(theta={"x": 1.0}).after(
        PairResult(iteration=1, result=1.0, games=(game, game)), {"x": 1.1}
    )
    save_state(tmp_path, state, TEST_MACS)
    assert read_state(config, TEST_MACS) == state
    edit(tmp_path / "tune-state.json", {"theta": {"x": 1.9}})
    with pytest.raises(RunFolderError) as error:
        read_state(config, TEST_MACS)
    assert str(error.value) == (
        f"cannot resume {tmp_path}: tune-state.json has no valid MAC (not written by this "
        "referee: another referee key, or changed since)"
    )


def failing_check(plant: Path | None = None) -> EngineFactory:
    """Engines that cannot start (after writing ``plant``, if given, as a hostile one may)."""

    async def start(spec: EngineSpec, log: TrafficLog | None) -> EngineConnection:
        if plant is not None:
            plant.parent.mkdir(parents=True, exist_ok=True)
            plant.write_text("{}")
        raise EngineError(spec.name, f"cannot start {list(spec.command)!r}: no such file")

    return start


def tournament(tmp_path: Path, rounds: int, out: str = "t") -> TournamentJob:
    config = TournamentConfig(engines=ENGINES, rules=CASUAL, rounds=rounds, seed=2)
    return TournamentJob(config=config, out=tmp_path / out, access=access(tmp_path))


def tournament_events() -> TournamentEvents:
    return TournamentEvents(Told().notices(), lambda start: None, lambda *_: None, lambda *_: None)


def test_a_run_refused_by_its_engine_check_leaves_its_folder_as_it_found_it(
    tmp_path: Path,
) -> None:
    new = tournament(tmp_path, 1, "runs/new")
    with pytest.raises(EngineCheckError, match="cannot start: no such file"):
        run_tournament_job(new, tournament_events(), failing_check())
    assert not (tmp_path / "runs").exists()  # nothing left: not even a folder

    job = tournament(tmp_path, 1)
    run_tournament_job(job, tournament_events(), in_process())
    before = (job.out / STATE_FILE).read_bytes()
    grown = tournament(tmp_path, 2)
    with pytest.raises(EngineCheckError, match="cannot start: no such file"):
        run_tournament_job(grown, tournament_events(), failing_check())
    assert (job.out / STATE_FILE).read_bytes() == before  # not grown: the run never started
    run_tournament_job(grown, tournament_events(), in_process())
    assert json.loads((job.out / STATE_FILE).read_text())["config"]["rounds"] == 2


def test_a_folder_an_engine_wrote_in_during_a_failed_check_is_kept_and_refused(
    tmp_path: Path,
) -> None:
    job = match_job(tmp_path)
    planted = record_path(job.config.out, "g0001")
    with pytest.raises(EngineCheckError, match="cannot start: no such file"):
        run_match_job(job, Told().match_events(), failing_check(planted))
    assert (job.config.out / MATCH_FILE).exists() and planted.exists()
    with pytest.raises(RunFolderError, match=r"g0001\.json is not a valid"):
        run_match_job(job, Told().match_events(), in_process())


PLANTER = r"""
import json
OUT = __OUT__
if first_process():  # the engine check: the referee's first start of this engine
    note("found", sorted(os.listdir(OUT)) if os.path.isdir(OUT) else None)
    os.makedirs(os.path.join(OUT, "games"), exist_ok=True)
    for name, text in __PLANTED__.items():
        with open(os.path.join(OUT, "games", name), "w") as handle:
            handle.write(text)


def choose(colour):
    return "a0 a0"  # resigns: it cannot win a game
"""


def planted_records(tmp_path: Path) -> dict[str, str]:
    """Well-formed records of the match's two games in which ``hostile`` beats ``good``:
    one with a made-up MAC, one with none."""
    specs = (engine_spec("hostile", "--level", "0"), engine_spec("good", "--level", "0"))
    config = MatchConfig(engines=specs, games=2, rules=CASUAL, seed=5, out=tmp_path / "src")
    job = MatchJob(config=config, access=access(tmp_path))
    planted = {}
    for record in run_match_job(job, Told().match_events(), in_process()).records:
        made_up = "0" * 64 if record.first else None
        won = record.model_copy(update={"winner": 0, "result": "good resigned", "mac": made_up})
        planted[f"{record.game_id}.json"] = won.model_dump_json(indent=2)
    return planted


def test_records_an_unsandboxed_engine_plants_during_its_check_do_not_count(
    tmp_path: Path, fakes: list[Fake]
) -> None:
    out = tmp_path / "run"
    custom = PLANTER.replace("__OUT__", repr(str(out)))
    custom = custom.replace("__PLANTED__", repr(planted_records(tmp_path)))
    hostile = write_fake(tmp_path / "engines", "hostile", custom)
    good = write_fake(tmp_path / "engines", "good", legal=True)
    fakes += [hostile, good]
    args = ["match", f"hostile={shlex.join(hostile.command)}", f"good={shlex.join(good.command)}"]
    args += ["--games", "2", "--rules", "casual", "--time", "20", "--seed", "5"]
    args += ["--sandbox", "off", "--out", str(out), "--key-file", str(tmp_path / "referee.key")]
    result = CliRunner().invoke(cli, args)

    assert result.exit_code == 0, result.output
    found = (hostile.folder / "hostile.found").read_text()
    assert found == "['games', 'match.json', 'tournament.lock']\n"  # the run's before it started
    assert "resuming" not in result.output
    assert [line.split()[1] for line in result.output.splitlines() if line.startswith("[")] == [
        "g0001",
        "g0002",
    ]
    records = [read_record(record_path(out, game_id)) for game_id in ("g0001", "g0002")]
    for record in records:
        assert signed_by_the_run(record)
        assert record.players[0].name == "hostile" and record.winner == 1  # it resigned
    assert "Score of hostile vs good: 0 - 2 (2 games)" in result.output
    assert len(hostile.pids()) == 3  # checked, then one process a game: both games played
