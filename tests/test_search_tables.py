"""The search with endgame tables: exact scores where they apply, moves that keep the value."""

import random

from banqi_engine.endgame import LOSS, WIN, EndgameTables
from banqi_engine.game import Game
from banqi_engine.position import parse_position
from banqi_engine.rules import PRESETS
from banqi_engine.search import TABLE_WIN, Searcher
from banqi_engine.search_config import DEFAULT_CONFIG
from banqi_engine.search_player import SearchPlayer

OLYMPIAD = PRESETS["olympiad"]
KING_TO_MOVE_LOSES = "---K/----/----/----/----/----/----/p--- r 00000000000000"
"""A lone King against a lone Pawn, the King to move at an even distance: lost in 18."""
TWO_PAWNS_HOLD = "--GK/----/----/----/----/----/-p--/--p- b 00000000000000"
"""Two Pawns against King and Guard: a draw, though the evaluation calls it lost."""


def test_the_searcher_builds_what_it_needs_and_scores_the_table_value() -> None:
    pos = parse_position(KING_TO_MOVE_LOSES)
    searcher = Searcher(OLYMPIAD)
    assert searcher.prepare_tables(pos, 5.0)
    result = searcher.search(pos, random.Random(1), seconds=1.0)
    assert result.score == -(TABLE_WIN - 0.5 * 17), "the best reply's table value: 17 plies"


def test_a_drawn_table_position_scores_as_a_draw_not_as_its_material() -> None:
    pos = parse_position(TWO_PAWNS_HOLD)
    with_tables = Searcher(OLYMPIAD)
    assert with_tables.prepare_tables(pos, 5.0)
    assert abs(with_tables.search(pos, random.Random(1), seconds=1.0).score) <= 2.0
    without = Searcher(OLYMPIAD, config=DEFAULT_CONFIG.without("endgame_tables"))
    assert without.search(pos, random.Random(1), max_depth=6).score < -20.0


def test_without_prepared_tables_the_search_does_not_use_them() -> None:
    pos = parse_position(KING_TO_MOVE_LOSES)
    result = Searcher(OLYMPIAD).search(pos, random.Random(1), max_depth=4)
    assert abs(result.score) != TABLE_WIN - 0.5 * 18


def test_the_player_converts_a_won_table_position_in_the_plies_the_table_gives() -> None:
    start = parse_position(KING_TO_MOVE_LOSES)
    tables = EndgameTables(OLYMPIAD)
    assert tables.prepare(start, 5.0)
    game = Game(OLYMPIAD, start)
    defender = tables.best_moves(game.position)
    assert defender is not None
    game.play(defender[0])
    value = tables.probe(game.position)
    assert value is not None and value.outcome == WIN
    attacker = SearchPlayer(OLYMPIAD, seed=3, max_depth=64)
    for ply in range(value.plies):
        if ply % 2 == 0:
            game.play(attacker.choose(game, 0.5))
        else:
            reply = tables.best_moves(game.position)
            assert reply is not None
            game.play(reply[0])
        if game.outcome is not None:
            break
    assert not game.position.bb[0], "the Pawn has taken the King within the table's plies"


def test_the_table_knows_a_position_lost_at_once() -> None:
    pos = parse_position(KING_TO_MOVE_LOSES)
    tables = EndgameTables(OLYMPIAD)
    tables.prepare(pos, 5.0)
    value = tables.probe(pos)
    assert value is not None and value.outcome == LOSS
