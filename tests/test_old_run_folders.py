"""Run folders written before the run core was shared, by a banqi older than MACs: their
state files (``tests/old_run_folders``, written by hand in the format runs have always
written) read back byte for byte; a resume refuses them (they have no MAC, as a folder a
run did not make), naming the file and ``--adopt-unsigned``; adopted, their files are signed
as they are and the runs go on from them."""

import json
import shutil
from pathlib import Path

import pytest
from in_process_engines import in_process
from job_events import Told
from referee_fakes import TEST_KEY, TEST_MACS

from banqi_engine.rules import resolve_rules
from referee.engine_spec import EngineSpec
from tournaments.config import ConfigError, EngineEntry, TournamentConfig
from tournaments.match import MATCH
from tournaments.match_config import MatchConfig
from tournaments.match_job import MatchJob, run_match_job
from tournaments.run_access import RunAccess
from tournaments.run_adopt import adopt_unsigned
from tournaments.run_kinds import RunFolderError
from tournaments.sprt import SprtTest
from tournaments.sprt_job import SprtJob, SprtJobEvents, run_sprt_job
from tournaments.sprt_run import SPRT, SprtConfig, SprtEvents
from tournaments.state import TOURNAMENT
from tournaments.tournament_job import TournamentEvents, TournamentJob, run_tournament_job
from tournaments.tune import TuneParam
from tournaments.tune_run import TUNE, TUNE_STATE, TuneConfig, open_tune, read_state

OLD = Path(__file__).parent / "old_run_folders"
CASUAL = resolve_rules("casual")
ENGINES = (
    EngineSpec(name="random", command=("banqi-engine", "--level", "0", "--seed", "1")),
    EngineSpec(name="greedy", command=("banqi-engine", "--level", "1")),
)


def old_folder(tmp_path: Path, kind: str) -> Path:
    """A copy of the hand-written run folder of ``kind``."""
    out = tmp_path / kind
    shutil.copytree(OLD / kind, out)
    return out


def access(tmp_path: Path, adopt: bool = False) -> RunAccess:
    key = tmp_path / "referee.key"
    key.write_bytes(TEST_KEY)
    return RunAccess(key_file=key, adopt_unsigned=adopt)


def refused(out: Path, file: str) -> str:
    """The error a resume of the old folder ``out`` gives for its state file ``file``."""
    return (
        f"cannot resume {out}: {file} has no MAC: the folder was written by a banqi older "
        "than MACs, or not by a run; if it is a run of yours, resume it once with "
        "--adopt-unsigned to sign its files"
    )


def signed_as_it_was(before: bytes, path: Path) -> bool:
    """Whether the file at ``path`` is the JSON ``before`` with a MAC added, nothing else."""
    after = json.loads(path.read_text(encoding="utf-8"))
    mac = after.pop("mac", None)
    return isinstance(mac, str) and after == json.loads(before)


def test_every_old_state_file_reads_back_byte_for_byte() -> None:
    for kind, file, state_kind in [
        ("match", "match.json", MATCH),
        ("sprt", "sprt-settings.json", SPRT),
        ("tournament", "tournament.json", TOURNAMENT),
        ("tune", "tune-settings.json", TUNE),
    ]:
        text = (OLD / kind / file).read_text(encoding="utf-8")
        state = state_kind.read(OLD / kind)
        assert state is not None and state.mac is None, kind
        assert state.model_dump_json(indent=2) + "\n" == text, kind


def test_an_old_match_is_refused_then_resumes_once_adopted(tmp_path: Path) -> None:
    out = old_folder(tmp_path, "match")
    before = (out / "match.json").read_bytes()
    config = MatchConfig(engines=ENGINES, games=2, rules=CASUAL, seed=3, out=out)
    job = MatchJob(config=config, seed_given=False, access=access(tmp_path))
    with pytest.raises(RunFolderError) as error:
        run_match_job(job, Told().match_events(), in_process())
    assert str(error.value) == refused(out, "match.json")
    assert (out / "match.json").read_bytes() == before
    assert sorted(path.name for path in out.iterdir()) == ["match.json"]  # as it was

    adopting = job.model_copy(update={"access": access(tmp_path, adopt=True)})
    outcome = run_match_job(adopting, Told().match_events(), in_process())
    assert [record.game_id for record in outcome.records] == ["g0001", "g0002"]
    assert signed_as_it_was(before, out / "match.json")
    other = config.model_copy(update={"games": 4})
    with pytest.raises(ConfigError, match=r"Differences: games: was 2, now 4$"):
        run_match_job(MatchJob(config=other, access=access(tmp_path)), Told().match_events())


def test_an_old_match_with_records_is_adopted_with_them(tmp_path: Path) -> None:
    """A folder as an older banqi left it halfway: its state and a record, none signed."""
    out = old_folder(tmp_path, "match")
    config = MatchConfig(engines=ENGINES, games=4, rules=CASUAL, seed=3, out=out)
    job = MatchJob(config=config, seed_given=False, access=access(tmp_path, adopt=True))
    (out / "match.json").write_text(
        (out / "match.json").read_text(encoding="utf-8").replace('"games": 2', '"games": 4'),
        encoding="utf-8",
    )
    first = run_match_job(job, Told().match_events(), in_process()).records
    for path in [out / "match.json", *(out / "games").glob("*.json")]:
        data = json.loads(path.read_text(encoding="utf-8"))
        del data["mac"]
        path.write_text(json.dumps(data), encoding="utf-8")
    (out / "games" / "g0004.json").unlink()
    plain = job.model_copy(update={"access": access(tmp_path)})
    with pytest.raises(RunFolderError, match=r"match\.json has no MAC"):
        run_match_job(plain, Told().match_events(), in_process())

    told = Told()
    again = run_match_job(job, told.match_events(), in_process()).records
    assert told.starts[0].already == 3 and [r.game_id for r in told.games] == ["g0004"]
    assert again[:3] == first[:3]  # signed as the run had signed them
    assert run_match_job(plain, Told().match_events(), in_process()).records == again


def test_an_old_sprt_resumes(tmp_path: Path) -> None:
    out = old_folder(tmp_path, "sprt")
    before = (out / "sprt-settings.json").read_bytes()
    test = SprtTest(elo0=0, elo1=200)
    config = SprtConfig(engines=ENGINES, test=test, max_games=4, rules=CASUAL, seed=9, out=out)
    told = Told()
    run = SprtEvents(told.games.append, lambda status: None, lambda name, last: None)
    events = SprtJobEvents(told.notices(), lambda tracker: None, lambda status: None, run)
    job = SprtJob(config=config, seed_given=False, max_games_given=False, access=access(tmp_path))
    with pytest.raises(RunFolderError) as error:
        run_sprt_job(job, events, in_process())
    assert str(error.value) == refused(out, "sprt-settings.json")
    adopting = job.model_copy(update={"access": access(tmp_path, adopt=True)})
    outcome = run_sprt_job(adopting, events, in_process())
    assert outcome.status.verdict is not None and told.games
    assert signed_as_it_was(before, out / "sprt-settings.json")  # the saved seed kept


def test_an_old_tournament_resumes(tmp_path: Path) -> None:
    out = old_folder(tmp_path, "tournament")
    before = (out / "tournament.json").read_bytes()
    entries = tuple(EngineEntry(**spec.model_dump()) for spec in ENGINES)
    config = TournamentConfig(engines=entries, rules=CASUAL)
    told = Told()
    events = TournamentEvents(
        told.notices(),
        lambda start: None,
        lambda record, standings: told.games.append(record),
        lambda name, remaining, last: None,
    )
    job = TournamentJob(config=config, out=out, access=access(tmp_path))
    with pytest.raises(RunFolderError) as error:
        run_tournament_job(job, events, in_process())
    assert str(error.value) == refused(out, "tournament.json")
    adopting = job.model_copy(update={"access": access(tmp_path, adopt=True)})
    standings = run_tournament_job(adopting, events, in_process())
    assert [record.game_id for record in told.games] == ["r1-1-2-1", "r1-1-2-2"]
    assert all(record.seed == 5 for record in told.games)  # the saved seed
    assert sum(row.games for row in standings.rows) == 4
    assert signed_as_it_was(before, out / "tournament.json")


def tune_config(out: Path) -> TuneConfig:
    """The old tuning run's settings, in ``out``."""
    param = TuneParam(value=1.0, min=0.5, max=2.0, c_end=0.075, r_end=0.02)
    return TuneConfig(
        engine=("banqi-engine", "--level", "1"),
        params={"safe_factor": param},
        iterations=3,
        rules=CASUAL,
        seed=1,
        out=out,
    )


def test_an_old_tuning_run_resumes_where_it_was(tmp_path: Path) -> None:
    out = old_folder(tmp_path, "tune")
    config = tune_config(out)
    with pytest.raises(RunFolderError) as error:
        open_tune(config, False, TEST_MACS)
    assert str(error.value) == refused(out, "tune-settings.json")
    before = (out / "tune-state.json").read_bytes()
    adopt_unsigned(out, [TUNE, TUNE_STATE], TEST_MACS)
    assert signed_as_it_was(before, out / "tune-state.json")
    settings = open_tune(config, False, TEST_MACS)
    assert settings.config.seed == 7
    state = read_state(settings.config, TEST_MACS)
    assert state.theta == {"safe_factor": 1.02} and state.done() == {1}
    with pytest.raises(ConfigError, match="iterations: was 3, now 4"):
        open_tune(config.model_copy(update={"iterations": 4}), False, TEST_MACS)


def test_an_unsigned_tuning_state_beside_signed_settings_is_refused(tmp_path: Path) -> None:
    out = old_folder(tmp_path, "tune")
    adopt_unsigned(out, [TUNE], TEST_MACS)  # the settings only
    settings = open_tune(tune_config(out), False, TEST_MACS)
    with pytest.raises(RunFolderError, match=r"tune-state\.json has no MAC"):
        read_state(settings.config, TEST_MACS)
    adopt_unsigned(out, [TUNE, TUNE_STATE], TEST_MACS)  # a signed folder is not adopted
    with pytest.raises(RunFolderError, match=r"tune-state\.json has no MAC"):
        read_state(settings.config, TEST_MACS)
