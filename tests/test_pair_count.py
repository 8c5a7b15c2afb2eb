"""The pair counter every run counts with, and the stop rules over it: a fixed number of
games (the plain counter), a match to a score, an SPRT's verdict."""

from pathlib import Path

from pair_stubs import stub_games, stub_record

from banqi_engine.rules import resolve_rules
from referee.engine_spec import EngineSpec
from tournaments.match_score import MatchScore, ScoreTracker, parse_points
from tournaments.pair_count import PairCounter
from tournaments.sprt import SprtTest, Verdict
from tournaments.sprt_run import SprtConfig, SprtTracker


def test_a_fixed_number_of_games_counts_whole_pairs_in_order_and_never_stops() -> None:
    games = stub_games(5)
    counter = PairCounter(games)
    assert counter.add(stub_record(3, 0)) == 0  # pair 1 is not complete
    assert counter.add(stub_record(2, 0)) == 0  # pair 1 is, but waits for pair 0
    assert counter.add(stub_record(0, 1)) == 0  # pair 0 is not complete yet
    assert counter.add(stub_record(1, None)) == 2  # pair 0 completes: pairs 0 and 1 count
    assert (counter.pairs, counter.counted_games) == (2, 4)
    assert counter.add(stub_record(4, 0)) == 1  # the odd last game is a pair of its own
    assert counter.counted_games == 5 and not counter.decided
    assert all(counter.admit(game) for game in games)


def test_a_match_to_a_score_stops_admitting_new_pairs_once_decided() -> None:
    games = stub_games(6)
    tracker = ScoreTracker(MatchScore(first_to=3, points=parse_points("3,1,0")), games, ("A", "B"))
    assert tracker.admit(games[0]) and tracker.admit(games[2])  # pairs 0 and 1 started
    tracker.add_in_order([stub_record(1, 0), stub_record(0, 0)])
    assert tracker.decided and tracker.points == [6, 0]
    assert tracker.admit(games[3])  # the other game of a pair already started still plays
    assert not tracker.admit(games[4])  # a new pair does not
    tracker.add(stub_record(2, 1))
    tracker.add(stub_record(3, 1))
    assert tracker.pairs == 1  # games after the decision are kept, not counted


def test_an_sprt_with_its_pairs_void_ends_inconclusive_when_its_games_run_out(
    tmp_path: Path,
) -> None:
    engines = (EngineSpec(name="new", command=("n",)), EngineSpec(name="base", command=("b",)))
    config = SprtConfig(
        engines=engines,
        test=SprtTest(elo0=0, elo1=5),
        max_games=4,
        rules=resolve_rules("casual"),
        seed=1,
        out=tmp_path,
    )
    tracker = SprtTracker(config)
    assert [game.setup.game_id for game in tracker.games] == [f"g00000{i}" for i in range(1, 5)]
    voids = [stub_record(i, None, void=True, width=6) for i in range(4)]
    assert tracker.add(voids[1]) == 0 and tracker.fresh == []
    assert tracker.add(voids[0]) == 1 and [s.pairs for s in tracker.fresh] == [1]
    assert tracker.verdict is None and tracker.llr == 0.0
    tracker.add(voids[3])
    tracker.add(voids[2])
    assert tracker.verdict is Verdict.INCONCLUSIVE and tracker.decided
    assert tracker.status().void == 4 and sum(tracker.pentanomial) == 0
