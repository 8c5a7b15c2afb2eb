"""The search player: tactics, legality, time, determinism, and in-process matches."""

import random
import time

import pytest
from game_drivers import random_game

from banqi_engine.evaluation import base_values
from banqi_engine.game import Game
from banqi_engine.layout import random_layout
from banqi_engine.moves import is_flip, step_move
from banqi_engine.pieces import KING, PAWN
from banqi_engine.players import GreedyPlayer, make_player
from banqi_engine.position import Position, parse_position
from banqi_engine.rules import PRESETS, RuleSet
from banqi_engine.search import MAX_DEPTH, TABLE_WIN, Searcher
from banqi_engine.search_config import DEFAULT_CONFIG, SearchConfig
from banqi_engine.search_player import SearchPlayer, reversible_hashes
from banqi_engine.squares import parse_square
from banqi_engine.transposition import MATE_THRESHOLD
from tournaments.selfplay import iter_match, level_factory, summarise

OLYMPIAD = PRESETS["olympiad"]


def move(text: str) -> int:
    frm, to = text.split("-")
    return step_move(parse_square(frm), parse_square(to))


def best(text: str, depth: int = 3, rules: RuleSet = OLYMPIAD, seed: int = 0) -> int:
    player = SearchPlayer(rules, seed, max_depth=depth, default_seconds=None)
    return player.choose(Game(rules, parse_position(text)), None)


def test_takes_a_free_piece() -> None:
    # red rook on b2 next to an undefended black knight on b3
    assert best("----/----/----/----/----/-n--/-R--/k--K r 00000000000000") == move("b2-b3")


def test_avoids_stepping_next_to_a_capturer() -> None:
    # red guard a1 may go to a2 (next to the black king on a3) or b1 (safe)
    chosen = best("----/----/----/----/----/k---/----/G--- r 00000000000000", depth=2)
    assert chosen == move("a1-b1")


def test_finds_a_forced_win_by_waiting() -> None:
    # black's last piece, a pawn in the d8 corner, must step next to red's rook on c7
    # whatever it does; red wins by a waiting king move, not by moving the rook
    text = "---p/--R-/----/----/----/----/----/K--- r 00000000000000"
    game = Game(OLYMPIAD, parse_position(text))
    plain = DEFAULT_CONFIG.without("endgame_tables")
    player = SearchPlayer(OLYMPIAD, 0, max_depth=4, default_seconds=None, config=plain)
    chosen = player.choose(game, None)
    assert player.last is not None and player.last.score > MATE_THRESHOLD
    assert chosen in (move("a1-a2"), move("a1-b1"))
    with_tables = SearchPlayer(OLYMPIAD, 0, max_depth=4, default_seconds=None)
    assert with_tables.choose(game, None) in (move("a1-a2"), move("a1-b1"))
    assert with_tables.last is not None and with_tables.last.score >= TABLE_WIN - 0.5 * 3


def shuffled_once(black: str) -> Game:
    """Red's guard and a black piece in opposite corners have shuffled back and forth once,
    so a1-a2 would repeat a position."""
    game = Game(
        OLYMPIAD, parse_position(f"---{black}/----/----/----/----/----/----/G--- r 00000000000000")
    )
    for text in ("a1-a2", "d8-c8", "a2-a1", "c8-d8"):
        game.play(move(text))
    return game


@pytest.mark.parametrize("config", [DEFAULT_CONFIG, DEFAULT_CONFIG.without("endgame_tables")])
def test_avoids_a_repetition_draw_when_ahead(config: SearchConfig) -> None:
    # against a pawn red is ahead: a1-b1 is as good as a1-a2 and does not repeat
    game = shuffled_once("p")
    for seed in range(4):
        player = SearchPlayer(OLYMPIAD, seed, max_depth=3, default_seconds=None, config=config)
        assert player.choose(game, None) == move("a1-b1")


def test_takes_a_repetition_draw_where_the_table_says_lost() -> None:
    # guard against guard, red to move at this distance: the table says red loses, so the
    # repetition is red's best move; without the table the position looks level
    game = shuffled_once("g")
    player = SearchPlayer(OLYMPIAD, 0, max_depth=3, default_seconds=None)
    assert player.choose(game, None) == move("a1-a2")
    plain = DEFAULT_CONFIG.without("endgame_tables")
    for seed in range(4):
        player = SearchPlayer(OLYMPIAD, seed, max_depth=3, default_seconds=None, config=plain)
        assert player.choose(game, None) == move("a1-b1")


def test_cannon_is_worth_more_than_the_lower_orders() -> None:
    values = base_values(OLYMPIAD)
    king, guard, minister, rook, knight, cannon, pawn = values
    assert king > guard > cannon > minister > rook > knight > pawn


def test_capture_wins_at_once_when_last_piece() -> None:
    assert best("----/----/----/----/----/----/-p--/-RK- r 00000000000000", depth=1) == move(
        "b1-b2"
    )


@pytest.mark.parametrize("rules_name", list(PRESETS))
def test_legal_moves_in_random_positions(rules_name: str) -> None:
    rules = PRESETS[rules_name]
    rng = random.Random(rules_name)
    player = SearchPlayer(rules, 1, max_depth=2, max_nodes=3000)
    for index in range(6):
        game = random_game(rng, rules, 10 + 12 * index)
        if game.outcome is not None:
            continue
        before = game.position.to_string()
        chosen = player.choose(game, 0.5)
        assert chosen in game.legal_moves()
        assert game.position.to_string() == before


def test_respects_the_time_budget() -> None:
    text = "XpXn/XpG-/Xn-X/XXX-/XX-P/-XK-/NXXX/C--C b 01220021111012"
    game = Game(OLYMPIAD, parse_position(text))
    player = SearchPlayer(OLYMPIAD, 0)
    for budget in (0.0, 0.05, 0.2):
        start = time.perf_counter()
        chosen = player.choose(game, budget)
        assert time.perf_counter() - start < budget + 1.0
        assert chosen in game.legal_moves()


def test_deterministic_for_a_seed_without_time_limit() -> None:
    rng = random.Random(5)
    games = [random_game(rng, OLYMPIAD, 20 + 10 * i) for i in range(3)]
    for game in games:
        if game.outcome is not None:
            continue
        choices = [
            SearchPlayer(OLYMPIAD, 7, max_depth=3, max_nodes=1500, default_seconds=None).choose(
                game, None
            )
            for _ in range(2)
        ]
        assert choices[0] == choices[1]


def test_search_restores_its_position() -> None:
    rng = random.Random(11)
    searcher = Searcher(OLYMPIAD)
    for plies in (15, 40):
        game = random_game(rng, OLYMPIAD, plies)
        if game.outcome is not None:
            continue
        searcher.search(game.position, random.Random(0), max_depth=2)
        assert searcher.pos == game.position
        assert searcher.pos.hash == Position(*_parts(game.position)).hash
        assert searcher.pos.pool == game.position.pool


def _parts(pos: Position) -> tuple[list[int], list[int], int, int, int]:
    return pos.board, pos.pool, pos.side, pos.no_progress, pos.ply


def test_reversible_hashes_restart_after_a_capture() -> None:
    text = "----/----/----/----/----/-n--/-R--/k--K r 00000000000000"
    game = Game(OLYMPIAD, parse_position(text))
    game.play(move("d1-d2"))
    game.play(move("a1-a2"))
    assert len(reversible_hashes(game)) == 3
    game.play(move("b2-b3"))
    assert reversible_hashes(game) == {game.position.hash}


def test_opening_flip_is_legal() -> None:
    game = Game(OLYMPIAD)
    assert is_flip(make_player(3, 1, OLYMPIAD).choose(game, 0.1))


def test_selfplay_pairs_and_outcomes() -> None:
    results = list(
        iter_match(
            level_factory(1, OLYMPIAD),
            level_factory(0, OLYMPIAD),
            4,
            OLYMPIAD,
            seconds=None,
            seed=3,
        )
    )
    assert [r.index for r in results] == [0, 1, 2, 3]
    assert [r.pair for r in results] == [0, 0, 1, 1]
    assert [r.a_first for r in results] == [True, False, True, False]
    for result in results:
        assert result.plies > 0 and result.description
        assert result.winner in ("A", "B", None)
    summary = summarise(results)
    assert summary.games == 4
    assert summary.wins + summary.draws + summary.losses == 4


def test_short_search_beats_random() -> None:
    casual = PRESETS["casual"]
    results = list(
        iter_match(
            lambda seed: SearchPlayer(
                casual, seed, max_depth=2, max_nodes=300, default_seconds=None
            ),
            level_factory(0, casual),
            2,
            casual,
            seconds=None,
            seed=1,
        )
    )
    assert summarise(results).score >= 1.5


# -- moves onto face-down pieces (hong-kong-forum) ----------------------------------------

FORUM = PRESETS["hong-kong-forum"]


def onto_face_down(game: Game) -> list[int]:
    """The legal moves of the game's side to move onto face-down pieces."""
    pos = game.position
    return [m for m in game.legal_moves() if not is_flip(m) and pos.reveal_square(m) is not None]


def test_reversible_hashes_restart_after_a_move_onto_a_face_down_piece() -> None:
    text = "X---/----/----/----/----/-X--/-R--/k--K r 00000000100001"
    game = Game(FORUM, parse_position(text))
    game.play(move("d1-d2"))
    game.play(move("a1-a2"))
    assert len(reversible_hashes(game)) == 3
    game.play(move("b2-b3"), 8)  # b3 shows a black guard: the rook takes it
    assert reversible_hashes(game) == {game.position.hash}
    game.play(move("a2-a1"))
    assert len(reversible_hashes(game)) == 2


def test_search_restores_its_position_with_moves_onto_face_down_pieces() -> None:
    rng = random.Random(12)
    searcher = Searcher(FORUM)
    searched = 0
    for plies in (12, 24, 36, 48, 60):
        game = random_game(rng, FORUM, plies)
        if game.outcome is not None or not onto_face_down(game):
            continue
        searched += 1
        result = searcher.search(game.position, random.Random(0), max_depth=3)
        assert result.move in game.legal_moves()
        assert searcher.pos == game.position
        assert searcher.pos.hash == Position(*_parts(game.position)).hash
    assert searched >= 2


def test_search_players_play_moves_onto_face_down_pieces_in_games() -> None:
    # a node-limited search (deterministic) against the random player, whole games
    onto = 0
    for seed in range(2):
        searching = SearchPlayer(FORUM, seed, max_depth=2, max_nodes=300, default_seconds=None)
        layout = random_layout(random.Random(seed))
        game = Game(FORUM)
        players = (searching, make_player(0, seed, FORUM))
        turn = 0
        while game.outcome is None:
            chosen = players[turn].choose(game, None)
            assert chosen in game.legal_moves()
            if turn == 0 and chosen in onto_face_down(game):
                onto += 1
            game.play(chosen, game.piece_shown(chosen, layout))
            turn ^= 1
    assert onto >= 1


def test_a_deeper_search_than_its_tables_allow_stops_at_the_most_they_allow() -> None:
    """Two lone jumping cannons can never take: every iteration is quick and none finds a
    mate, so only the depth cap ends the search (the node limit is a safety net)."""
    pos = parse_position("C---/----/----/----/----/----/----/---c r 00000000000000")
    result = Searcher(OLYMPIAD).search(pos, random.Random(0), max_depth=10_000, max_nodes=1_000_000)
    assert result.depth == MAX_DEPTH


def test_the_greedy_player_counts_the_piece_it_loses_when_retaken() -> None:
    """The Pawn takes the King and the Guard takes the Pawn back: the gain is the King less
    the Pawn (the capturing piece), not nothing."""
    rules = OLYMPIAD
    pos = parse_position("----/----/----/----/----/-kg-/-P--/---- r 00000000000000")
    values = base_values(rules)
    gain = GreedyPlayer(rules, 0)._best_capture_gain(pos, rules)
    assert gain == values[KING] - values[PAWN] > 0
    assert pos.to_string() == "----/----/----/----/----/-kg-/-P--/---- r 00000000000000 0 0"
