"""Run folders written before the run core was shared resume as they are: their state
files (``tests/old_run_folders``, written by hand in the format runs have always written)
read back byte for byte, and the runs go on from them."""

import shutil
from pathlib import Path

import pytest
from in_process_engines import in_process
from job_events import Told
from referee_fakes import TEST_KEY

from banqi_engine.rules import resolve_rules
from referee.engine_spec import EngineSpec
from tournaments.config import ConfigError, EngineEntry, TournamentConfig
from tournaments.match import MATCH
from tournaments.match_config import MatchConfig
from tournaments.match_job import MatchJob, run_match_job
from tournaments.run_access import RunAccess
from tournaments.sprt import SprtTest
from tournaments.sprt_job import SprtJob, SprtJobEvents, run_sprt_job
from tournaments.sprt_run import SPRT, SprtConfig, SprtEvents
from tournaments.state import TOURNAMENT
from tournaments.tournament_job import TournamentEvents, TournamentJob, run_tournament_job
from tournaments.tune import TuneParam
from tournaments.tune_run import TUNE, TuneConfig, open_tune, read_state

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


def access(tmp_path: Path) -> RunAccess:
    key = tmp_path / "referee.key"
    key.write_bytes(TEST_KEY)
    return RunAccess(key_file=key)


def test_every_old_state_file_reads_back_byte_for_byte() -> None:
    for kind, file, state_kind, exclude in [
        ("match", "match.json", MATCH, {"score"}),
        ("sprt", "sprt-settings.json", SPRT, None),
        ("tournament", "tournament.json", TOURNAMENT, None),
        ("tune", "tune-settings.json", TUNE, None),
    ]:
        text = (OLD / kind / file).read_text(encoding="utf-8")
        state = state_kind.read(OLD / kind)
        assert state is not None, kind
        assert state.model_dump_json(indent=2, exclude=exclude) + "\n" == text, kind


def test_an_old_match_resumes(tmp_path: Path) -> None:
    out = old_folder(tmp_path, "match")
    before = (out / "match.json").read_bytes()
    config = MatchConfig(engines=ENGINES, games=2, rules=CASUAL, seed=3, out=out)
    job = MatchJob(config=config, seed_given=False, access=access(tmp_path))
    outcome = run_match_job(job, Told().match_events(), in_process())
    assert [record.game_id for record in outcome.records] == ["g0001", "g0002"]
    assert (out / "match.json").read_bytes() == before
    other = config.model_copy(update={"games": 4})
    with pytest.raises(ConfigError, match=r"Differences: games: was 2, now 4$"):
        run_match_job(MatchJob(config=other, access=access(tmp_path)), Told().match_events())


def test_an_old_sprt_resumes(tmp_path: Path) -> None:
    out = old_folder(tmp_path, "sprt")
    before = (out / "sprt-settings.json").read_bytes()
    test = SprtTest(elo0=0, elo1=200)
    config = SprtConfig(engines=ENGINES, test=test, max_games=4, rules=CASUAL, seed=9, out=out)
    told = Told()
    run = SprtEvents(told.games.append, lambda status: None, lambda name, last: None)
    events = SprtJobEvents(told.notices(), lambda tracker: None, lambda status: None, run)
    job = SprtJob(config=config, seed_given=False, max_games_given=False, access=access(tmp_path))
    outcome = run_sprt_job(job, events, in_process())
    assert outcome.status.verdict is not None and told.games
    assert (out / "sprt-settings.json").read_bytes() == before  # the saved seed kept


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
    standings = run_tournament_job(job, events, in_process())
    assert [record.game_id for record in told.games] == ["r1-1-2-1", "r1-1-2-2"]
    assert all(record.seed == 5 for record in told.games)  # the saved seed
    assert sum(row.games for row in standings.rows) == 4
    assert (out / "tournament.json").read_bytes() == before


def test_an_old_tuning_run_resumes_where_it_was(tmp_path: Path) -> None:
    out = old_folder(tmp_path, "tune")
    param = TuneParam(value=1.0, min=0.5, max=2.0, c_end=0.075, r_end=0.02)
    config = TuneConfig(
        engine=("banqi-engine", "--level", "1"),
        params={"safe_factor": param},
        iterations=3,
        rules=CASUAL,
        seed=1,
        out=out,
    )
    settings = open_tune(config, seed_given=False)
    assert settings.config.seed == 7
    state = read_state(settings.config)
    assert state.theta == {"safe_factor": 1.02} and state.done() == {1}
    with pytest.raises(ConfigError, match="iterations: was 3, now 4"):
        open_tune(config.model_copy(update={"iterations": 4}), seed_given=False)
