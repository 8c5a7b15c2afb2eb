"""Standings, crosstable and head-to-head statistics, from per-game results."""

import itertools
import math
from collections import Counter

import pytest
from hypothesis import given
from hypothesis import strategies as st
from pydantic import ValidationError

from tournaments.ratings import fit_ratings
from tournaments.results import ScoredGame, StandingRow, Standings
from tournaments.standings import compute_standings, head_to_head


def game(
    first: str, second: str, winner: int | None, pair: int | None = None, void: bool = False
) -> ScoredGame:
    return ScoredGame.model_validate(
        {"first": first, "second": second, "winner": winner, "pair": pair, "void": void}
    )


def paired(
    first: str, second: str, pair: int, winners: tuple[int | None, int | None]
) -> list[ScoredGame]:
    """The two games of ``pair``, ``first`` moving first in the one and ``second`` in the
    other; ``winners``: each one's winner index (None: a draw)."""
    return [game(first, second, winners[0], pair), game(second, first, winners[1], pair)]


# A against B: pair 1 A wins then draws (A takes 1½: WD); pair 2 B wins both (A takes 0: LL).
# A against C: pair 3 A wins both (WW), and one game without a pair, drawn.
# B against C: pair 4 two draws (DD). E never plays.
RESULTS = [
    *paired("A", "B", 1, (0, None)),
    *paired("A", "B", 2, (1, 0)),
    *paired("A", "C", 3, (0, 1)),
    game("C", "A", None),
    *paired("B", "C", 4, (None, None)),
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
    # One pair (no spread): no pentanomial margin or LOS, where a zero variance gave 100%.
    assert (ac.penta_elo, ac.penta_los) == (None, None)
    assert (bc.pentanomial, bc.penta_elo, bc.penta_elo_error, bc.penta_los) == (
        (0, 0, 1, 0, 0),
        0.0,
        None,
        None,
    )
    # B-C drew both games: no margin either (was ± 0.0).
    assert (bc.elo, bc.elo_error, bc.los) == (0.0, None, None)


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


def ranked(standings: Standings) -> list[tuple[int, str]]:
    return [(row.rank, row.name) for row in standings.rows]


def test_equal_points_go_to_the_winner_of_the_head_to_head() -> None:
    # A beat B; B beat C twice; A and C split. A and B: 2 points of 3 games each, rated alike
    # (37.87): before, B came first by the order of names; now A, who beat B.
    results = [
        game("A", "B", 0, 1),
        game("B", "C", 0, 2),
        game("C", "B", 1, 2),
        game("A", "C", 0, 3),
        game("C", "A", 0, 3),
    ]
    standings = compute_standings(results, ["B", "A", "C"])
    a, b, _ = standings.rows
    assert a.elo == pytest.approx(b.elo, abs=1e-9)
    assert ranked(standings) == [(1, "A"), (2, "B"), (3, "C")]


def test_three_way_tie_on_points_by_the_games_among_them() -> None:
    # Among A, B, C (a pair each): A 1½ + 1½ = 3, B ½ + 1½ = 2, C ½ + ½ = 1. Against D:
    # A 0, B 1, C 2, so all three have 3 points of 6 games; D 3 + 2 against E = 5.
    # The fit rates A, B, C and D alike (49.86), so only the games among A, B, C decide.
    results = [
        game("A", "B", 0, 1),
        game("B", "A", None, 1),
        game("A", "C", None, 2),
        game("C", "A", 1, 2),
        game("B", "C", 0, 3),
        game("C", "B", None, 3),
        game("A", "D", 1, 4),
        game("D", "A", 0, 4),
        game("B", "D", None, 5),
        game("D", "B", None, 5),
        game("C", "D", 0, 6),
        game("D", "C", 1, 6),
        game("D", "E", 0, 7),
        game("E", "D", 1, 7),
    ]
    standings = compute_standings(results, ["E", "C", "B", "A", "D"])
    assert ranked(standings) == [(1, "D"), (2, "A"), (3, "B"), (4, "C"), (5, "E")]
    assert [row.points for row in standings.rows] == [5.0, 3.0, 3.0, 3.0, 0.0]
    elos = [row.elo for row in standings.rows[:4]]
    assert elos == pytest.approx([elos[0]] * 4, abs=1e-9)


def test_equal_points_and_head_to_head_go_to_the_rating() -> None:
    # A and B split their pair and have 2 points each; A drew the strong S twice, B the weak
    # W: A is rated +31.03, B -31.03, so A comes first although B is listed first.
    results = [
        game("A", "B", 0, 1),
        game("B", "A", 0, 1),
        game("A", "S", None, 2),
        game("S", "A", None, 2),
        game("B", "W", None, 3),
        game("W", "B", None, 3),
        game("S", "W", 0, 4),
        game("W", "S", 1, 4),
    ]
    standings = compute_standings(results, ["W", "B", "A", "S"])
    assert ranked(standings) == [(1, "S"), (2, "A"), (3, "B"), (4, "W")]
    assert standings.rows[1].elo == pytest.approx(31.03, abs=0.005)


def test_a_cycle_shares_one_rank() -> None:
    # A beat B, B beat C, C beat A: equal in points, among themselves and in rating.
    results = [game("A", "B", 0), game("B", "C", 0), game("C", "A", 0)]
    standings = compute_standings(results, ["B", "C", "A"])
    assert ranked(standings) == [(1, "B"), (1, "C"), (1, "A")]


def test_void_games_score_nothing_and_are_shown() -> None:
    # Pair 1: void, then A wins; pair 2: A wins, B wins. C's only game is void.
    results = [
        game("A", "B", None, 1, void=True),
        game("B", "A", 1, 1),
        game("A", "B", 0, 2),
        game("B", "A", 0, 2),
        game("A", "C", None, 3, void=True),
    ]
    standings = compute_standings(results, ["A", "B", "C"])
    a, b, c = standings.rows
    assert (a.name, a.games, a.wins, a.draws, a.losses, a.void, a.points) == ("A", 5, 2, 0, 1, 2, 2)
    assert a.score_percent == pytest.approx(200 / 3)
    assert (b.name, b.games, b.wins, b.losses, b.void, b.points) == ("B", 4, 1, 2, 1, 1.0)
    assert (c.name, c.games, c.void, c.points) == ("C", 1, 1, 0.0)
    assert (c.score_percent, c.elo, c.elo_error) == (None, None, None)
    # Rated on the three games with a result only: A 2-0-1 against B, 2 virtual draws.
    fitted_a, fitted_b, fitted_c = fit_ratings(
        [[0, 3, 0], [3, 0, 0], [0, 0, 0]], [[0.0, 2.0, 0.0], [1.0, 0.0, 0.0], [0.0] * 3]
    )
    assert (a.elo, a.elo_error) == fitted_a
    assert (b.elo, b.elo_error) == fitted_b
    assert fitted_c is None
    assert standings.crosstable["A"]["B"].void == standings.crosstable["B"]["A"].void == 1
    assert standings.crosstable["C"]["A"].games == 1
    ab, ac = standings.pairs
    # Pair 1 has a void game: incomplete, so only pair 2 (W then L: 1 point) is counted.
    assert (ab.games, ab.wins, ab.draws, ab.losses, ab.void) == (4, 2, 0, 1, 1)
    assert (ab.pairs, ab.pentanomial) == (1, (0, 0, 1, 0, 0))
    assert ab.los == pytest.approx(0.5 * (1 + math.erf(1 / math.sqrt(6))))
    assert (ac.second, ac.games, ac.void, ac.pairs) == ("C", 1, 1, 0)
    assert (ac.elo, ac.elo_error, ac.los, ac.penta_elo) == (None, None, None, None)


def test_a_void_game_still_takes_its_partner() -> None:
    # The void game and the draw of pair 4 pair up (and drop out); the later game of pair 4
    # waits alone instead of pairing with the draw.
    results = [
        game("A", "B", None, 4, void=True),
        game("B", "A", None, 4),
        game("B", "A", 0, 4),
    ]
    pair = head_to_head(results, "A", "B")
    assert (pair.games, pair.wins, pair.draws, pair.losses, pair.void) == (3, 0, 1, 1, 1)
    assert pair.pairs == 0


def test_head_to_head_from_either_side() -> None:
    standings = compute_standings(RESULTS, ["C", "B", "A", "E"])
    between = RESULTS[:4]  # the four games of A and B
    ab = head_to_head(between, "A", "B")
    assert ab == standings.pairs[0]
    ba = head_to_head(between, "B", "A")
    assert (ba.first, ba.wins, ba.draws, ba.losses) == ("B", 2, 1, 1)
    assert ba.pentanomial == tuple(reversed(ab.pentanomial))
    assert ab.elo is not None and ba.elo == pytest.approx(-ab.elo)
    with pytest.raises(ValueError, match="'C' is not in the tournament"):
        head_to_head(RESULTS[:5], "A", "B")  # the fifth game is A against C
    with pytest.raises(ValueError, match="not distinct"):
        head_to_head([], "A", "A")


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
    with pytest.raises(ValidationError, match="a void game has no winner"):
        game("A", "B", 0, void=True)


engine_names = st.lists(
    st.sampled_from(["alpha", "beta", "gamma", "delta", "eps"]), min_size=1, max_size=5, unique=True
)


@st.composite
def tournaments(draw: st.DrawFn) -> tuple[list[str], list[ScoredGame]]:
    names = draw(engine_names)
    results: list[ScoredGame] = []
    if len(names) < 2:
        return names, results
    outcomes = st.sampled_from([0, 1, None, "void"])
    meetings = draw(
        st.lists(st.tuples(st.permutations(names), st.booleans(), outcomes, outcomes), max_size=30)
    )
    for pair_id, (order, paired, first_outcome, second_outcome) in enumerate(meetings):
        a, b = order[0], order[1]
        if paired:
            results.append(outcome_game(a, b, first_outcome, pair_id))
            results.append(outcome_game(b, a, second_outcome, pair_id))
        else:
            results.append(outcome_game(a, b, first_outcome, None))
    return names, results


def outcome_game(
    first: str, second: str, outcome: int | str | None, pair: int | None
) -> ScoredGame:
    if outcome == "void":
        return game(first, second, None, pair, void=True)
    assert not isinstance(outcome, str)
    return game(first, second, outcome, pair)


def points_of(result: ScoredGame, name: str) -> float:
    if result.void:
        return 0.0
    if result.winner is None:
        return 0.5
    return 1.0 if (result.first, result.second)[result.winner] == name else 0.0


def among_tied(standings: Standings, row: StandingRow) -> float:
    """Points ``row``'s engine took against the engines on as many points."""
    tied = [other.name for other in standings.rows if other.points == row.points]
    return sum(standings.crosstable[row.name][other].points for other in tied if other != row.name)


@given(tournaments())
def test_standings_agree_with_the_results(tournament: tuple[list[str], list[ScoredGame]]) -> None:
    names, results = tournament
    standings = compute_standings(results, names)
    rows = {row.name: row for row in standings.rows}
    assert sorted(rows) == sorted(names)
    appearances = Counter(name for r in results for name in (r.first, r.second))
    for name in names:
        row = rows[name]
        played = [r for r in results if name in (r.first, r.second)]
        assert row.games == appearances[name] == len(played)
        assert row.wins + row.draws + row.losses + row.void == row.games
        assert row.points == sum(points_of(r, name) for r in played)
        assert row.draws == sum(r.winner is None and not r.void for r in played)
        assert row.void == sum(r.void for r in played)
    rated = [r for r in results if not r.void]
    assert sum(row.points for row in standings.rows) == len(rated)
    assert sum(row.games for row in standings.rows) == 2 * len(results)
    for row in standings.rows:
        assert (row.elo is None) == (row.elo_error is None) == (row.games == row.void)
        assert row.elo is None or math.isfinite(row.elo)
        assert row.elo_error is None or math.isfinite(row.elo_error)
    assert sum(row.elo or 0.0 for row in standings.rows) == pytest.approx(0, abs=1e-6)
    # Points, then points among the engines on as many points, then rating (None last).
    keys = [
        (row.points, among_tied(standings, row), -math.inf if row.elo is None else row.elo)
        for row in standings.rows
    ]
    assert [key[:2] for key in keys] == sorted((key[:2] for key in keys), reverse=True)
    rows = standings.rows
    for position, (key, following) in enumerate(itertools.pairwise(keys), start=1):
        row, next_row = rows[position - 1], rows[position]
        if key[:2] == following[:2]:
            assert key[2] >= following[2] - 1e-6
        if next_row.rank == row.rank:
            assert key[:2] == following[:2]
            assert key[2] == following[2] or abs(key[2] - following[2]) < 1e-6
        else:
            assert next_row.rank == position + 1


@given(tournaments())
def test_crosstable_and_pairs_agree(tournament: tuple[list[str], list[ScoredGame]]) -> None:
    names, results = tournament
    standings = compute_standings(results, names)
    table = standings.crosstable
    for a in names:
        for b in names:
            if a == b:
                continue
            assert table[a][b].wins == table[b][a].losses
            assert table[a][b].draws == table[b][a].draws
            assert table[a][b].void == table[b][a].void
            met = [r for r in results if {r.first, r.second} == {a, b}]
            assert table[a][b].games == len(met)
            assert table[a][b].points == sum(points_of(r, a) for r in met)
    for pair in standings.pairs:
        assert (pair.wins, pair.draws, pair.losses) == (
            table[pair.first][pair.second].wins,
            table[pair.first][pair.second].draws,
            table[pair.first][pair.second].losses,
        )
        # Generated pairs are complete unless a game is void.
        paired = [
            (r, partner)
            for r, partner in itertools.pairwise(results)
            if {r.first, r.second} == {pair.first, pair.second}
            and r.pair is not None
            and r.pair == partner.pair
        ]
        complete = [(r, partner) for r, partner in paired if not (r.void or partner.void)]
        assert pair.pairs == len(complete)
        taken = sum(k * count for k, count in enumerate(pair.pentanomial)) / 2
        assert taken == sum(
            points_of(r, pair.first) + points_of(o, pair.first) for r, o in complete
        )
        assert pair.void == sum(
            r.void for r in results if {r.first, r.second} == {pair.first, pair.second}
        )
        assert pair.games == table[pair.first][pair.second].games
