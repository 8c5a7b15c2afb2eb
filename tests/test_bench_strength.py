"""``banqi bench strength``: one match of two levels, or the ladder of every level."""

import re

from click.testing import CliRunner

from banqi_cli.bench_strength import pair_counts
from banqi_cli.main import cli
from banqi_engine.pieces import BLACK, RED
from banqi_engine.players import MAX_LEVEL
from tournaments.selfplay import SelfPlayGame


def result(index: int, winner: str | None) -> SelfPlayGame:
    pair, second = divmod(index, 2)
    return SelfPlayGame(index, pair, not second, RED if second else BLACK, winner, "", "", 10)


def test_pairs_are_counted_by_their_score_and_a_half_pair_is_left_out() -> None:
    winners = ["A", "A", "A", None, None, None, "B", "A", "B", "B", "A"]
    results = [result(i, w) for i, w in enumerate(winners)]
    assert pair_counts(results) == [1, 0, 2, 1, 1]


def test_the_ladder_plays_each_level_against_the_one_below() -> None:
    out = CliRunner().invoke(cli, ["bench", "strength", "--games", "2", "--seconds", "0.01"])
    assert out.exit_code == 0, out.output
    lines = out.stdout.splitlines()
    steps = [tuple(map(int, re.findall(r"level (\d+)", line))) for line in lines]
    assert steps == [(level, level - 1) for level in range(1, MAX_LEVEL + 1)]
    for line in lines:
        wins, draws, losses = map(int, re.search(r"W (\d+) D (\d+) L (\d+)", line).groups())  # type: ignore[union-attr]
        assert wins + draws + losses == 2
        assert "Elo" in line


def test_one_level_alone_is_refused() -> None:
    out = CliRunner().invoke(cli, ["bench", "strength", "--level", "1"])
    assert out.exit_code == 2
    assert "give --level twice" in out.stderr


def test_two_levels_print_each_game_then_the_summary() -> None:
    out = CliRunner().invoke(
        cli, ["bench", "strength", "--level", "1", "--level", "0", "--games", "2"]
    )
    assert out.exit_code == 0, out.output
    lines = out.stdout.splitlines()
    assert [line.split()[:2] for line in lines[:2]] == [["game", "1"], ["game", "2"]]
    assert lines[2].startswith("level 1 vs level 0 (olympiad")
