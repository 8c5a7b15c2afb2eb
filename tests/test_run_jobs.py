"""The library's whole-run entry points, called from Python without click: a match, a match
to a score, an SPRT and a tournament, with in-process engines (``tests/in_process_engines.py``)."""

from pathlib import Path

from in_process_engines import engine_spec, in_process
from job_events import Told
from run_helpers import CASUAL, ENGINES, access

from referee.storage import GAMES_DIR
from tournaments.config import TournamentConfig
from tournaments.match_config import MatchConfig
from tournaments.match_job import MatchJob, run_match_job
from tournaments.match_score import MatchScore, MatchVerdict
from tournaments.run_kinds import MATCH_FILE, SETTINGS_FILE, STATE_FILE
from tournaments.sprt import SprtStatus, SprtTest
from tournaments.sprt_job import SprtJob, SprtJobEvents, run_sprt_job
from tournaments.sprt_run import SprtConfig, SprtEvents, SprtTracker
from tournaments.tournament_job import TournamentEvents, TournamentJob, run_tournament_job


def match_config(tmp_path: Path, games: int) -> MatchConfig:
    return MatchConfig(engines=ENGINES, games=games, rules=CASUAL, seed=3, out=tmp_path / "m")


def test_a_match_runs_from_python_and_resumes(tmp_path: Path) -> None:
    job = MatchJob(config=match_config(tmp_path, 4), access=access(tmp_path))
    told = Told()
    outcome = run_match_job(job, told.match_events(), in_process())
    assert [r.game_id for r in outcome.records] == ["g0001", "g0002", "g0003", "g0004"]
    assert outcome.result is None
    assert [r.game_id for r in told.games] == [r.game_id for r in outcome.records]
    (start,) = told.starts
    assert (start.already, start.at_once, start.config.games) == (0, "1 at once", 4)
    assert (tmp_path / "m" / MATCH_FILE).exists()
    assert told.notes == []  # engines given: no sandbox to say anything about

    again = Told()
    resumed = run_match_job(job, again.match_events(), in_process())
    assert resumed.records == outcome.records and again.games == []
    assert again.starts[0].already == 4


def test_a_match_to_a_score_from_python_says_how_it_ended(tmp_path: Path) -> None:
    score = MatchScore(first_to=2)
    job = MatchJob(config=match_config(tmp_path, 20), score=score, access=access(tmp_path))
    outcome = run_match_job(job, Told().match_events(), in_process())
    assert outcome.result is not None
    assert outcome.result.outcome in (MatchVerdict.WON, MatchVerdict.DRAWN)
    assert outcome.result.games == 2 and len(outcome.records) == 2


def test_an_sprt_runs_from_python_until_its_games_run_out(tmp_path: Path) -> None:
    config = SprtConfig(
        engines=ENGINES,
        test=SprtTest(elo0=0, elo1=200),
        max_games=4,
        rules=CASUAL,
        seed=2,
        out=tmp_path / "s",
    )
    told = Told()
    started: list[SprtTracker] = []
    counted: list[SprtStatus] = []
    run = SprtEvents(told.games.append, counted.append, lambda name, last: None)
    events = SprtJobEvents(told.notices(), started.append, lambda status: None, run)
    outcome = run_sprt_job(SprtJob(config=config, access=access(tmp_path)), events, in_process())
    assert outcome.status.verdict is not None and outcome.status.games <= 4
    assert [s.pairs for s in counted] == list(range(1, outcome.status.pairs + 1))
    assert len(started) == 1 and (tmp_path / "s" / SETTINGS_FILE).exists()
    assert len(list((tmp_path / "s" / GAMES_DIR).glob("*.json"))) == len(told.games)


def test_a_tournament_runs_from_python(tmp_path: Path) -> None:
    config = TournamentConfig(engines=(*ENGINES, engine_spec("third", "--level", "0")), seed=5)
    config = config.model_copy(update={"rules": CASUAL})
    told = Told()
    events = TournamentEvents(
        told.notices(),
        lambda start: told.notes.append(f"{start.games} games"),
        lambda record, standings: told.games.append(record),
        lambda name, remaining, last: None,
    )
    job = TournamentJob(config=config, out=tmp_path / "t", access=access(tmp_path))
    standings = run_tournament_job(job, events, in_process())
    assert told.notes == ["6 games"] and len(told.games) == 6
    assert sum(row.games for row in standings.rows) == 12
    assert (tmp_path / "t" / STATE_FILE).exists()
