"""Standings, crosstable and head-to-head statistics, from per-game results."""

import math
from collections import Counter

import pytest
from hypothesis import given
from hypothesis import strategies as st
from pydantic import ValidationError

from tournaments.ratings import fit_ratings
from tournaments.results import GameResult, Standings
from tournaments.standings import compute_standings


def game(first: str, second: str, winner: int | None, pair: int | None = None) -> GameResult:
    return GameResult.model_validate(
        {"first": first, "second": second, "winner": winner, "pair": pair}
    )


# A against B: pair 1 A wins then draws (A takes 1½: WD); pair 2 B wins both (A takes 0: LL).
# A against C: pair 3 A wins both (WW), and one game without a pair, drawn.
# B against C: pair 4 two draws (DD). E never plays.
RESULTS = [
    game("A", "B", 0, 1),
    game("B", "A", None, 1),
    game("A", "B", 1, 2),
    game("B", "A", 0, 2),
    game("A", "C", 0, 3),
    game("C", "A", 1, 3),
    game("C", "A", None),
    game("B", "C", None, 4),
    game("C", "B", None, 4),
]


@pytest.fixture
def standings() -> Standings:
    return compute_standings(RESULTS, ["C", "B", "A", "E"])


def test_rows_by_hand(standings: Standings) -> None:
    # A: 3-2-2 (7 games, 4 points), B: 2-3-1 (6 games, 3½), C: 0-3-2 (5 games, 1½), E: none.
    rows = [(r.rank, r.name, r.games, r.wins, r.draws, r.losses, r.points) for r in standings.rows]
    assert rows == [
        (1, "A", 7, 3, 2, 2, 4.0),
        (2, "B", 6, 2, 3, 1, 3.5),
        (3, "C", 5, 0, 3, 2, 1.5),
        (4, "E", 0, 0, 0, 0, 0.0),
    ]
    a, b, c, e = standings.rows
    assert a.score_percent == pytest.approx(400 / 7)
    # The ratings are the fit over the crosstable (in the order C, B, A of names): B, 58.3%
    # and 2-1-1 against A, is rated above A (57.1%) though below it on points; C, 0-3-2, last.
    games = [[0, 2, 3], [2, 0, 4], [3, 4, 0]]
    points = [[0.0, 1.0, 0.5], [1.0, 0.0, 2.5], [2.5, 1.5, 0.0]]
    fitted_c, fitted_b, fitted_a = fit_ratings(games, points)
    assert (a.elo, a.elo_error) == fitted_a
    assert (b.elo, b.elo_error) == fitted_b
    assert (c.elo, c.elo_error) == fitted_c
    assert (a.elo, b.elo, c.elo) == pytest.approx((30.68, 40.58, -71.26), abs=0.005)
    assert (a.elo_error, b.elo_error, c.elo_error) == pytest.approx(
        (227.82, 245.36, 274.16), abs=0.005
    )
    assert (e.score_percent, e.elo, e.elo_error, e.los) == (None, None, None, None)
    # LOS A over B from their head to head, A 1 win and 2 losses: ½(1 + erf(-1/√6)).
    assert a.los == pytest.approx(0.5 * (1 + math.erf(-1 / math.sqrt(6))))
    # B and C only drew; C and E never met.
    assert b.los is None and c.los is None


def test_crosstable_by_hand(standings: Standings) -> None:
    table = standings.crosstable
    assert list(table) == ["A", "B", "C", "E"]
    assert list(table["A"]) == ["B", "C", "E"]
    assert (table["A"]["B"].wins, table["A"]["B"].draws, table["A"]["B"].losses) == (1, 1, 2)
    assert (table["B"]["A"].wins, table["B"]["A"].draws, table["B"]["A"].losses) == (2, 1, 1)
    assert (table["A"]["C"].wins, table["A"]["C"].draws, table["A"]["C"].losses) == (2, 1, 0)
    assert (table["B"]["C"].games, table["B"]["C"].points) == (2, 1.0)
    assert table["E"]["A"].games == 0


def test_pairs_by_hand(standings: Standings) -> None:
    pairs = {(p.first, p.second): p for p in standings.pairs}
    assert list(pairs) == [("A", "B"), ("A", "C"), ("B", "C")]
    ab, ac, bc = pairs.values()
    assert (ab.games, ab.wins, ab.draws, ab.losses) == (4, 1, 1, 2)
    assert (ab.pairs, ab.pentanomial) == (2, (1, 0, 0, 1, 0))
    # Pentanomial A-B: pair scores 0 and 0.75, s = 0.375, variance (0.375² + 0.375²)/2 = 0.140625,
    # se = √(0.140625/2) = 0.265165: the 95% interval reaches 0, so the margin is unbounded.
    se = math.sqrt(0.140625 / 2)
    assert ab.penta_elo == pytest.approx(400 * math.log10(0.375 / 0.625))
    assert ab.penta_elo_error is None
    assert ab.penta_los == pytest.approx(0.5 * (1 + math.erf(-0.125 / (math.sqrt(2) * se))))
    assert (ac.games, ac.wins, ac.draws, ac.losses, ac.pairs) == (3, 2, 1, 0, 1)
    assert ac.pentanomial == (0, 0, 0, 0, 1)
    assert (ac.penta_elo, ac.penta_los) == (None, 1.0)
    assert (bc.pentanomial, bc.penta_elo, bc.penta_elo_error, bc.penta_los) == (
        (0, 0, 1, 0, 0),
        0.0,
        0.0,
        None,
    )


def test_two_engines_split_their_prior_adjusted_head_to_head() -> None:
    # X 1-2-0 against Y, plus 2 virtual draws: 3 points of 5, 400·log10(3/2) = 70.44 Elo
    # apart, ±35.22; curvature 5 × 0.6 × 0.4 = 1.2, margin 1.959964 × 173.7178/√1.2 = 310.81.
    results = [game("X", "Y", 0, 7), game("Y", "X", None, 7), game("X", "Y", None)]
    standings = compute_standings(results, ["X", "Y"])
    top, bottom = standings.rows
    (pair,) = standings.pairs
    assert (top.name, pair.first) == ("X", "X")
    assert pair.elo == pytest.approx(400 * math.log10(2))  # 2 of 3 points, no prior
    assert top.elo == pytest.approx(200 * math.log10(3 / 2))
    assert bottom.elo == pytest.approx(-200 * math.log10(3 / 2))
    margin = 1.959963984540054 * 400 / math.log(10) / math.sqrt(1.2)
    assert top.elo_error == pytest.approx(margin)
    assert bottom.elo_error == pytest.approx(margin)
    assert top.elo_error == pytest.approx(310.81, abs=0.005)
    assert top.los == pair.los


def test_equal_engines_share_a_rank_in_name_order() -> None:
    results = [game("P", "Q", 0), game("Q", "P", 0), game("R", "P", 1)]
    standings = compute_standings(results, ["Q", "P", "R"])
    assert [(row.rank, row.name) for row in standings.rows] == [(1, "P"), (2, "Q"), (3, "R")]
    results = [game("P", "Q", 0), game("Q", "P", 0)]
    standings = compute_standings(results, ["Q", "P", "R"])
    assert [(row.rank, row.name) for row in standings.rows] == [(1, "Q"), (1, "P"), (3, "R")]


def test_perfect_score_and_no_games() -> None:
    # W won both games: with 2 virtual draws 3 points of 4, 400·log10(3) = 190.85 Elo apart.
    standings = compute_standings([game("W", "Z", 0), game("Z", "W", 1)], ["W", "Z", "N"])
    w, z, n = standings.rows
    assert (w.score_percent, z.score_percent) == (100.0, 0.0)
    assert w.elo == pytest.approx(200 * math.log10(3))
    assert z.elo == pytest.approx(-200 * math.log10(3))
    assert w.elo_error == pytest.approx(1.959963984540054 * 400 / math.log(10) / math.sqrt(0.75))
    assert (n.name, n.games, n.elo, n.elo_error) == ("N", 0, None, None)


def test_no_engines_and_no_games() -> None:
    empty = compute_standings([], [])
    assert (empty.rows, empty.crosstable, empty.pairs) == ([], {}, [])
    idle = compute_standings([], ["A", "B"])
    assert [(row.rank, row.games) for row in idle.rows] == [(1, 0), (1, 0)]
    assert idle.pairs == []


def test_pairing_needs_swapped_seats_and_the_same_engines() -> None:
    results = [
        game("A", "B", 0, 1),
        game("A", "B", 0, 1),  # same seats: not a partner
        game("A", "C", 0, 1),  # the same id between other engines: its own group
        game("B", "A", None, 1),
        game("B", "A", None, 1),
        game("C", "A", 1, 1),
    ]
    standings = compute_standings(results, ["A", "B", "C"])
    pairs = {(p.first, p.second): p for p in standings.pairs}
    assert pairs["A", "B"].pentanomial == (0, 0, 0, 2, 0)
    assert pairs["A", "C"].pentanomial == (0, 0, 0, 0, 1)
    lone = compute_standings([game("A", "B", 0, 5), game("A", "B", 1, 5)], ["A", "B"])
    assert (lone.pairs[0].games, lone.pairs[0].pairs) == (2, 0)
    assert lone.pairs[0].penta_elo is None


def test_bad_input_is_rejected() -> None:
    with pytest.raises(ValueError, match="not in the tournament"):
        compute_standings([game("A", "B", 0)], ["A"])
    with pytest.raises(ValueError, match="not distinct"):
        compute_standings([], ["A", "A"])
    with pytest.raises(ValueError, match="cannot play itself"):
        game("A", "A", 0)
    with pytest.raises(ValidationError, match="winner"):
        game("A", "B", 2)


engine_names = st.lists(
    st.sampled_from(["alpha", "beta", "gamma", "delta", "eps"]), min_size=1, max_size=5, unique=True
)


@st.composite
def tournaments(draw: st.DrawFn) -> tuple[list[str], list[GameResult]]:
    names = draw(engine_names)
    results: list[GameResult] = []
    if len(names) < 2:
        return names, results
    winners = st.sampled_from([0, 1, None])
    meetings = draw(
        st.lists(st.tuples(st.permutations(names), st.booleans(), winners, winners), max_size=30)
    )
    for pair_id, (order, paired, first_winner, second_winner) in enumerate(meetings):
        a, b = order[0], order[1]
        if paired:
            results.append(game(a, b, first_winner, pair_id))
            results.append(game(b, a, second_winner, pair_id))
        else:
            results.append(game(a, b, first_winner))
    return names, results


def points_of(result: GameResult, name: str) -> float:
    if result.winner is None:
        return 0.5
    return 1.0 if (result.first, result.second)[result.winner] == name else 0.0


@given(tournaments())
def test_standings_agree_with_the_results(tournament: tuple[list[str], list[GameResult]]) -> None:
    names, results = tournament
    standings = compute_standings(results, names)
    rows = {row.name: row for row in standings.rows}
    assert sorted(rows) == sorted(names)
    appearances = Counter(name for r in results for name in (r.first, r.second))
    for name in names:
        row = rows[name]
        played = [r for r in results if name in (r.first, r.second)]
        assert row.games == appearances[name] == len(played)
        assert row.wins + row.draws + row.losses == row.games
        assert row.points == sum(points_of(r, name) for r in played)
        assert row.draws == sum(r.winner is None for r in played)
    assert sum(row.points for row in standings.rows) == len(results)
    assert sum(row.games for row in standings.rows) == 2 * len(results)
    for row in standings.rows:
        assert (row.elo is None) == (row.elo_error is None) == (row.games == 0)
        assert row.elo is None or math.isfinite(row.elo)
        assert row.elo_error is None or math.isfinite(row.elo_error)
    assert sum(row.elo or 0.0 for row in standings.rows) == pytest.approx(0, abs=1e-6)
    keys = [(row.points, row.points / row.games if row.games else -1.0) for row in standings.rows]
    assert keys == sorted(keys, reverse=True)
    for row, following in zip(standings.rows, standings.rows[1:], strict=False):
        assert row.rank <= following.rank


@given(tournaments())
def test_crosstable_and_pairs_agree(tournament: tuple[list[str], list[GameResult]]) -> None:
    names, results = tournament
    standings = compute_standings(results, names)
    table = standings.crosstable
    for a in names:
        for b in names:
            if a == b:
                continue
            assert table[a][b].wins == table[b][a].losses
            assert table[a][b].draws == table[b][a].draws
            met = [r for r in results if {r.first, r.second} == {a, b}]
            assert table[a][b].games == len(met)
            assert table[a][b].points == sum(points_of(r, a) for r in met)
    for pair in standings.pairs:
        assert (pair.wins, pair.draws, pair.losses) == (
            table[pair.first][pair.second].wins,
            table[pair.first][pair.second].draws,
            table[pair.first][pair.second].losses,
        )
        paired = [
            r
            for r in results
            if {r.first, r.second} == {pair.first, pair.second} and r.pair is not None
        ]
        assert 2 * pair.pairs == len(paired)
        taken = sum(k * count for k, count in enumerate(pair.pentanomial)) / 2
        assert taken == sum(points_of(r, pair.first) for r in paired)
