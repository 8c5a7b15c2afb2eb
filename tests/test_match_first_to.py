"""``banqi match --first-to POINTS --points W,D,L``: a match played to a score, in pairs."""

import asyncio
import contextlib
import json
import shlex
from collections.abc import AsyncIterator
from datetime import UTC, datetime
from pathlib import Path

import pytest
from click.testing import CliRunner, Result
from pair_stubs import stub_games, stub_record
from referee_fakes import TEST_KEY, TEST_MACS, Fake, write_fake

from banqi_cli.main import cli
from banqi_engine.rules import PRESETS
from referee.deals import Deal
from referee.engine_spec import EngineSpec
from referee.game_runner import PlayedGame
from referee.game_setup import GameSetup
from referee.macs import MacKeys
from referee.reasons import Reason
from referee.record import GameEnd, build_record, player_info, read_record
from referee.storage import GAMES_DIR, record_path
from tournaments.match import (
    match_setups,
    open_match,
    run_match,
    score_tracker,
    start_match_folder,
)
from tournaments.match_config import MatchConfig
from tournaments.match_score import (
    RESULT_FILE,
    MatchResult,
    MatchScore,
    MatchVerdict,
    ScoreTracker,
    parse_points,
)
from tournaments.run_folder import existing_records
from tournaments.runner import GamePlayer, PlayPlace, RunEvents, RunOptions

RESIGNS = """
def on_genmove(i, words):
    reply(i, "a0 a0")
"""


def engines(tmp_path: Path, fakes: list[Fake]) -> list[str]:
    """``loser`` resigns at once; ``winner`` plays legal moves: the winner takes every game."""
    loser = write_fake(tmp_path, "loser", RESIGNS)
    winner = write_fake(tmp_path, "winner", legal=True)
    fakes += [loser, winner]
    return [f"{fake.name}={shlex.join(fake.command)}" for fake in (winner, loser)]


def drawers(tmp_path: Path, fakes: list[Fake]) -> tuple[list[str], Path]:
    """Two legal players under rules where a quiet move draws: every game is drawn."""
    made = [write_fake(tmp_path, name, legal=True) for name in ("alpha", "beta")]
    fakes += made
    rules = tmp_path / "quiet.toml"
    rules.write_text('preset = "olympiad"\nno_progress_limit = 1\n')
    return [f"{fake.name}={shlex.join(fake.command)}" for fake in made], rules


def run(tmp_path: Path, *args: str) -> Result:
    with contextlib.chdir(tmp_path):
        return CliRunner().invoke(cli, ["match", *args])


def saved_result(out: Path) -> MatchResult:
    return MatchResult.model_validate_json((out / RESULT_FILE).read_text())


def games_played(out: Path) -> list[str]:
    return sorted(p.stem for p in (out / GAMES_DIR).glob("*.json"))


def test_the_match_stops_at_the_end_of_the_pair_that_reaches_the_score(
    tmp_path: Path, fakes: list[Fake]
) -> None:
    """3 a win, first to 5: the first win (3) does not stop it mid-pair; the pair's end (6)
    does, and no game of the next pair is played."""
    out = tmp_path / "run"
    names = engines(tmp_path, fakes)
    result = run(
        tmp_path, *names, "--games", "10", "--first-to", "5", "--rules", "casual", "--out", "run"
    )
    assert result.exit_code == 0, result.output
    assert games_played(out) == ["g0001", "g0002"]
    assert [read_record(record_path(out, g)).winner for g in ("g0001", "g0002")] == [0, 0]
    summary = "match to 5 points (win 3, draw 1, loss 0): winner wins 6-0 after 2 games"
    assert result.output.splitlines()[-1] == summary
    saved = saved_result(out)
    assert saved.outcome is MatchVerdict.WON and saved.winner == "winner"
    assert saved.points == (6, 0) and saved.games == 2 and saved.max_games == 10
    assert saved.summary == summary
    for report in ("report.txt", "report.md", "report.html"):
        assert summary in (out / report).read_text(), report
    assert json.loads((out / "report.json").read_text())["match"] == summary
    state = json.loads((out / "match.json").read_text())
    assert state["score"]["first_to"] == 5
    assert state["score"]["points"] == {"win": 3, "draw": 1, "loss": 0}

    # Resumed, the decided match plays nothing more and says the same.
    again = run(
        tmp_path, *names, "--games", "10", "--first-to", "5", "--rules", "casual", "--out", "run"
    )
    assert again.exit_code == 0, again.output
    assert games_played(out) == ["g0001", "g0002"]
    assert again.output.splitlines()[-1] == summary

    # Other score settings, or none, are refused, naming the difference.
    other = run(
        tmp_path, *names, "--games", "10", "--first-to", "7", "--rules", "casual", "--out", "run"
    )
    assert other.exit_code == 1
    assert "holds a match with different settings" in other.output
    assert "first_to: was 5.0, now 7.0" in other.output
    scheme = run(
        tmp_path,
        *names,
        *("--games", "10", "--first-to", "5", "--points", "2,1,0"),
        *("--rules", "casual", "--out", "run"),
    )
    assert scheme.exit_code == 1
    assert "points.win: was 3.0, now 2.0" in scheme.output
    plain = run(tmp_path, *names, "--games", "10", "--rules", "casual", "--out", "run")
    assert plain.exit_code == 1
    assert "first-to: was 5 (win 3, draw 1, loss 0), now not given" in plain.output
    assert games_played(out) == ["g0001", "g0002"]


def test_custom_points_and_a_resume_in_the_middle(tmp_path: Path, fakes: list[Fake]) -> None:
    """2 a win, first to 5: 4 after a pair, 8 after two; a match cut short resumes and counts
    its earlier games."""
    out = tmp_path / "run"
    names = engines(tmp_path, fakes)
    args = [*names, "--first-to", "5", "--points", "2,1,0", "--rules", "casual", "--out", "run"]
    # The first run has only two games: it ends without a verdict (4 < 5).
    short = run(tmp_path, *args[:2], "--games", "2", "--out", "short", *args[2:-2])
    assert short.exit_code == 0, short.output
    assert short.output.splitlines()[-1] == (
        "match to 5 points (win 2, draw 1, loss 0): no one reached 5 points in 2 games: "
        "winner leads 4-0"
    )
    assert saved_result(tmp_path / "short").outcome is MatchVerdict.UNDECIDED

    first = run(tmp_path, *args, "--games", "10")
    assert first.exit_code == 0, first.output
    assert games_played(out) == ["g0001", "g0002", "g0003", "g0004"]
    summary = "match to 5 points (win 2, draw 1, loss 0): winner wins 8-0 after 4 games"
    assert first.output.splitlines()[-1] == summary
    # Take the last pair away: the resumed match counts the first pair and plays the second.
    for game_id in ("g0003", "g0004"):
        record_path(out, game_id).unlink()
    (out / RESULT_FILE).unlink()
    again = run(tmp_path, *args, "--games", "10")
    assert again.exit_code == 0, again.output
    assert "resuming with 2 games done" in again.output
    assert games_played(out) == ["g0001", "g0002", "g0003", "g0004"]
    assert again.output.splitlines()[-1] == summary
    assert saved_result(out).points == (8, 0)


def test_equal_points_at_the_pair_that_reaches_the_score_draw_the_match(
    tmp_path: Path, fakes: list[Fake]
) -> None:
    names, rules = drawers(tmp_path, fakes)
    out = tmp_path / "run"
    result = run(
        tmp_path,
        *names,
        *("--games", "6", "--first-to", "4", "--points", "3,2,0"),
        *("--rules", str(rules), "--out", "run", "--seed", "4"),
    )
    assert result.exit_code == 0, result.output
    records = [read_record(record_path(out, g)) for g in games_played(out)]
    assert [r.winner for r in records] == [None, None]
    line = "match to 4 points (win 3, draw 2, loss 0): drawn 4-4 after 2 games"
    assert result.output.splitlines()[-1] == line
    saved = saved_result(out)
    assert saved.outcome is MatchVerdict.DRAWN and saved.winner is None


def test_the_games_run_out_level(tmp_path: Path, fakes: list[Fake]) -> None:
    names, rules = drawers(tmp_path, fakes)
    result = run(
        tmp_path,
        *names,
        *("--games", "2", "--first-to", "100", "--rules", str(rules), "--out", "run"),
    )
    assert result.exit_code == 0, result.output
    assert result.output.splitlines()[-1] == (
        "match to 100 points (win 3, draw 1, loss 0): no one reached 100 points in 2 games: "
        "level 2-2"
    )


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (("--points", "3,1,0"), "--points needs --first-to"),
        (("--first-to", "5", "--points", "3,1"), "not three numbers"),
        (("--first-to", "5", "--points", "3,x,0"), "not three numbers"),
        (("--first-to", "5", "--points", "inf,1,0"), "finite"),
        (("--first-to", "5", "--points", "1,1,1"), "more than a loss"),
        (("--first-to", "5", "--points", "3,4,0"), "between a loss and a win"),
        (("--first-to", "5", "--points", "3,-1,0"), "between a loss and a win"),
        (("--first-to", "0"), "--first-to"),
        (("--first-to", "-2"), "--first-to"),
        (("--first-to", "inf"), "not a finite number"),
        (("--first-to", "nan"), "--first-to"),
    ],
)
def test_bad_score_options_are_usage_errors(
    tmp_path: Path, args: tuple[str, ...], words: str
) -> None:
    result = run(tmp_path, "engine-a", "engine-b", *args, "--out", "run")
    assert result.exit_code == 2, result.output
    assert words in result.output
    assert not (tmp_path / "run").exists()


def test_parse_points_takes_three_numbers() -> None:
    scheme = parse_points(" 2.5, 1 ,-1")
    assert (scheme.win, scheme.draw, scheme.loss) == (2.5, 1, -1)
    assert scheme.describe() == "win 2.5, draw 1, loss -1"
    with pytest.raises(ValueError, match="finite"):
        parse_points("3,nan,0")


def test_the_tracker_counts_pairs_in_order_and_keeps_games_in_flight_out() -> None:
    score = MatchScore(first_to=4, points=parse_points("3,1,0"))
    tracker = ScoreTracker(score, stub_games(7), ("A", "B"))
    games = stub_games(7)
    assert all(tracker.admit(game) for game in games[:3])  # pairs 0 and 1 started
    tracker.add(stub_record(1, 1))  # B wins: pair 0 not complete, nothing counted
    tracker.add(stub_record(2, 0))  # a game of pair 1 finishes first
    assert tracker.points == [0, 0] and not tracker.decided
    tracker.add(stub_record(0, None, void=True))  # void: pair 0 is B 3, A 0
    assert tracker.points == [0, 3] and not tracker.decided
    tracker.add(stub_record(3, None))  # pair 1: A 3+1, B 3+1: both reach 4, equal: drawn
    assert tracker.decided and tracker.result().outcome is MatchVerdict.DRAWN
    assert tracker.result().summary.endswith("drawn 4-4 after 4 games")
    assert not tracker.admit(games[4])  # no new pair once decided
    tracker.add(stub_record(4, 0))  # a game in flight is kept but not counted
    assert tracker.points == [4, 4]


def test_both_reaching_the_score_the_one_with_more_wins_and_an_odd_last_game_counts() -> None:
    score = MatchScore(first_to=2, points=parse_points("2,1,0"))
    tracker = ScoreTracker(score, stub_games(3), ("A", "B"))
    tracker.add(stub_record(0, None))
    tracker.add(stub_record(1, None))
    assert tracker.points == [2, 2] and tracker.result().outcome is MatchVerdict.DRAWN
    tracker = ScoreTracker(MatchScore(first_to=3, points=score.points), stub_games(3), ("A", "B"))
    for index, winner in enumerate([None, 0]):
        tracker.add(stub_record(index, winner))
    assert tracker.result().summary.endswith("A wins 3-1 after 2 games")
    tracker = ScoreTracker(MatchScore(first_to=9, points=score.points), stub_games(3), ("A", "B"))
    assert tracker.result().outcome is MatchVerdict.IN_PROGRESS
    for index, winner in enumerate([1, None, 1]):
        tracker.add(stub_record(index, winner))
    result = tracker.result()
    assert result.outcome is MatchVerdict.UNDECIDED and result.games == 3
    assert result.summary.endswith("no one reached 9 points in 3 games: B leads 5-1")


def test_a_plain_match_saves_no_score(tmp_path: Path, fakes: list[Fake]) -> None:
    names = engines(tmp_path, fakes)
    result = run(tmp_path, *names, "--games", "2", "--rules", "casual", "--out", "run")
    assert result.exit_code == 0, result.output
    assert "score" not in json.loads((tmp_path / "run" / "match.json").read_text())
    assert not (tmp_path / "run" / RESULT_FILE).exists()
    assert "match to" not in result.output
    assert "match" not in json.loads((tmp_path / "run" / "report.json").read_text())
    assert "Match" not in (tmp_path / "run" / "report.txt").read_text()


SCRIPT = {
    "g0001": (0.02, 0),
    "g0002": (0.5, 0),
    "g0003": (1.0, 1),
    "g0004": (0.05, 1),
    **{f"g000{n}": (0.05, 1) for n in range(5, 9)},
}
"""Each game's seconds and winner (0: A, 1: B). A wins pair 1 and with it the match (6
points, first to 5); B would win every later game."""


def scripted(started: list[str]) -> PlayPlace:
    """Two games at once, each lasting and ending as ``SCRIPT`` says; ``started`` gets
    their ids as they start."""

    async def play(setup: GameSetup, deal: Deal, keep: bool, live: Path | None) -> PlayedGame:
        started.append(setup.game_id)
        seconds, winner = SCRIPT[setup.game_id]
        begun = datetime.now(UTC)
        await asyncio.sleep(seconds)
        names = [spec.name for spec in setup.players]
        words = f"{names[winner]} wins: {names[1 - winner]} resigned"
        end = GameEnd(winner=winner, reason=Reason.RESIGN, result=words)
        players = (player_info(setup.players[0]), player_info(setup.players[1]))
        record = build_record(setup, deal, players, [], end, begun, datetime.now(UTC))
        return PlayedGame(record, None)

    @contextlib.asynccontextmanager
    async def place(macs: MacKeys) -> AsyncIterator[tuple[GamePlayer, int]]:
        yield play, 2

    return place


def test_games_that_run_past_the_deciding_pair_are_kept_but_not_counted(tmp_path: Path) -> None:
    """Two games at once: pair 2 starts while pair 1 is played, its second game only once
    pair 1 has decided the match; both are played (no record stays withheld) but the score
    is pair 1's, and no later pair starts."""
    score = MatchScore(first_to=5, points=parse_points("3,1,0"))
    engines = (EngineSpec(name="A", command=("a",)), EngineSpec(name="B", command=("b",)))
    config = MatchConfig(
        engines=engines, games=8, rules=PRESETS["casual"], concurrency=2, seed=1, out=tmp_path
    )
    start_match_folder(open_match(config, True, TEST_MACS, score=score), TEST_MACS)
    started: list[str] = []
    events = RunEvents(lambda record, standings: None, lambda *_: None)
    options = RunOptions(key=TEST_KEY, out=config.out, events=events, play_on=scripted(started))
    records = asyncio.run(run_match(config, options, score_tracker(config, score, {})))

    assert started == ["g0001", "g0002", "g0003", "g0004"]
    by_id = {record.game_id: record for record in records}
    assert sorted(by_id) == started and not any(r.withheld for r in records)
    decided_at = by_id["g0002"].finished_at
    assert by_id["g0003"].started_at < decided_at <= by_id["g0004"].started_at
    assert decided_at < by_id["g0003"].finished_at
    summary = "match to 5 points (win 3, draw 1, loss 0): A wins 6-0 after 2 games"
    saved = saved_result(config.out)
    assert (saved.points, saved.games, saved.winner, saved.summary) == ((6, 0), 2, "A", summary)
    found = existing_records(config.out, list(match_setups(config)), TEST_MACS)
    assert saved == score_tracker(config, score, found).result()  # the same, from the folder
