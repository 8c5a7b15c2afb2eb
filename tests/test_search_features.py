"""The search's features, each switched by ``SearchConfig``: still tactically right, still
legal, and exact where they should be (PVS, Star2 and aspiration change no value)."""

import random

import pytest

from banqi_engine.game import Game
from banqi_engine.layout import random_layout
from banqi_engine.moves import step_move
from banqi_engine.position import Position, parse_position
from banqi_engine.rules import PRESETS
from banqi_engine.search import CHANCE_BOUND, Searcher
from banqi_engine.search_config import DEFAULT_CONFIG, FEATURES, PLAIN_CONFIG, SearchConfig
from banqi_engine.search_player import SearchPlayer
from banqi_engine.selfplay import search_factory
from banqi_engine.squares import parse_square
from banqi_engine.transposition import MATE_THRESHOLD

OLYMPIAD = PRESETS["olympiad"]

CONFIGS = {
    "all": DEFAULT_CONFIG,
    "plain": PLAIN_CONFIG,
    **{f"no-{name}": DEFAULT_CONFIG.without(name) for name in FEATURES},
    **{f"only-{name}": SearchConfig(**{f: f == name for f in FEATURES}) for name in FEATURES},
}

WAITING_WIN = "---p/--R-/----/----/----/----/----/K--- r 00000000000000"
"""Black's last piece must step next to red's rook whatever it does: red wins by waiting."""
LAST_PIECE = "----/----/----/----/----/----/-p--/-RK- r 00000000000000"
"""Red takes black's last piece."""
FREE_GUARD = "X--X/----/----/----/----/-g--/-K--/X--X r 00000020000002"
"""Red's king takes an undefended guard; face-down pawns in the corners."""
SMALL_HIDDEN = (
    "X--X/-k--/----/-r--/--P-/-G--/----/X-XK r 00000110001100",
    "XX--/-g--/--n-/----/--C-/-R--/----/X--K b 00001100000100",
    "X-X-/----/-gK-/----/--p-/----/-N--/X-Xk r 00000110000011",
)
"""Small positions with a few face-down pieces, where the whole tree is cheap."""


def move(text: str) -> int:
    frm, to = text.split("-")
    return step_move(parse_square(frm), parse_square(to))


def search(text: str, config: SearchConfig, depth: int, seed: int = 0) -> tuple[int, float]:
    result = Searcher(OLYMPIAD, config=config).search(
        parse_position(text), random.Random(seed), max_depth=depth
    )
    return result.move, result.score


def test_every_feature_has_a_switch() -> None:
    assert set(FEATURES) == {
        "pvs",
        "lmr",
        "null_move",
        "flip_ordering",
        "threat_extension",
        "star2",
        "aspiration",
        "endgame_tables",
    }
    assert all(getattr(DEFAULT_CONFIG, name) for name in FEATURES)
    assert not any(getattr(PLAIN_CONFIG, name) for name in FEATURES)
    with pytest.raises(ValueError, match="unknown search feature"):
        DEFAULT_CONFIG.without("telepathy")


@pytest.mark.parametrize("name", list(CONFIGS))
def test_forced_wins_and_captures_with_every_switch(name: str) -> None:
    config = CONFIGS[name]
    chosen, score = search(WAITING_WIN, config, 4)
    assert score > MATE_THRESHOLD
    assert chosen in (move("a1-a2"), move("a1-b1"))
    chosen, score = search(LAST_PIECE, config, 3)
    assert (chosen, score > MATE_THRESHOLD) == (move("b1-b2"), True)
    for depth in (3, 5):
        assert search(FREE_GUARD, config, depth)[0] == move("b2-b3")


@pytest.mark.parametrize("name", ["all", "plain", "only-null_move", "only-lmr"])
def test_pruning_keeps_the_value_of_a_won_piece(name: str) -> None:
    # LMR and null move may change values; here they keep the guard's capture and a
    # value within a pawn of the plain search's
    plain = search(FREE_GUARD, PLAIN_CONFIG, 5)[1]
    assert abs(search(FREE_GUARD, CONFIGS[name], 5)[1] - plain) < 2.0


@pytest.mark.parametrize("name", ["all", "plain", "no-flip_ordering", "no-threat_extension"])
def test_legal_moves_in_random_positions(name: str) -> None:
    config = CONFIGS[name]
    rng = random.Random(name)
    for rules in PRESETS.values():
        player = SearchPlayer(rules, 1, max_depth=3, max_nodes=2000, config=config)
        layout = random_layout(rng)
        game = Game(rules)
        for _ in range(rng.randrange(8, 60)):
            if game.outcome is not None:
                break
            chosen = rng.choice(game.legal_moves())
            game.play(chosen, game.piece_shown(chosen, layout))
        if game.outcome is not None:
            continue
        before = game.position.to_string()
        assert player.choose(game, None) in game.legal_moves()
        assert game.position.to_string() == before


@pytest.mark.parametrize("text", [*SMALL_HIDDEN, FREE_GUARD])
def test_a_finished_search_restores_its_position(text: str) -> None:
    # the null move swaps the side to move and the hash in place: both come back
    pos = parse_position(text)
    searcher = Searcher(OLYMPIAD)
    searcher.search(pos, random.Random(0), max_depth=5)
    assert searcher.pos == pos
    assert searcher.pos.hash == Position(pos.board, pos.pool, pos.side).hash


EXACT_FEATURES = ("pvs", "star2", "aspiration")
NOTHING = dict.fromkeys(FEATURES, False)


@pytest.mark.parametrize("text", SMALL_HIDDEN)
def test_exact_features_keep_the_value_without_a_table(text: str) -> None:
    # without the table (whose entries from other windows may differ) PVS, Star2 and
    # aspiration windows give the plain alpha-beta value exactly
    base = SearchConfig(transposition=False, **NOTHING)
    depth = 4
    reference = search(text, base, depth)[1]
    for name in EXACT_FEATURES:
        config = SearchConfig(transposition=False, **{f: f == name for f in FEATURES})
        assert search(text, config, depth)[1] == pytest.approx(reference, abs=1e-6), name
    every = SearchConfig(transposition=False, **{f: f in EXACT_FEATURES for f in FEATURES})
    assert search(text, every, depth)[1] == pytest.approx(reference, abs=1e-6)


def chance_value(
    searcher: Searcher, pos: Position, square: int, depth: int, alpha: float, beta: float
) -> float:
    searcher.search(pos, random.Random(0), max_depth=1)  # sets the searcher up on pos
    return searcher._chance(square * 33, depth, alpha, beta, 0, 0)


@pytest.mark.parametrize("text", SMALL_HIDDEN)
def test_star2_matches_expectimax_at_chance_nodes(text: str) -> None:
    pos = parse_position(text)
    plain = Searcher(OLYMPIAD, config=SearchConfig(transposition=False, **NOTHING))
    star2 = Searcher(
        OLYMPIAD, config=SearchConfig(transposition=False, **{**NOTHING, "star2": True})
    )
    squares = [s for s in range(32) if pos.hidden >> s & 1]
    for square in squares[:2]:
        exact = chance_value(plain, pos, square, 5, -2 * CHANCE_BOUND, 2 * CHANCE_BOUND)
        assert chance_value(star2, pos, square, 5, -2 * CHANCE_BOUND, 2 * CHANCE_BOUND) == (
            pytest.approx(exact, abs=1e-6)
        )
        for alpha, beta in ((exact - 3, exact + 3), (exact + 1, exact + 4), (exact - 5, exact - 1)):
            windowed = chance_value(plain, pos, square, 5, alpha, beta)
            probed = chance_value(star2, pos, square, 5, alpha, beta)
            if alpha < exact < beta:
                assert windowed == pytest.approx(exact, abs=1e-6)
                assert probed == pytest.approx(exact, abs=1e-6)
            elif exact <= alpha:
                assert windowed <= alpha + 1e-9 and probed <= alpha + 1e-9
                assert probed >= exact - 1e-6
            else:
                assert windowed >= beta - 1e-9 and probed >= beta - 1e-9
                assert probed <= exact + 1e-6


def test_search_factory_makes_players_with_the_config() -> None:
    config = DEFAULT_CONFIG.without("lmr", "star2")
    player = search_factory(OLYMPIAD, config)(5)
    assert isinstance(player, SearchPlayer)
    assert player.config == config and player.searcher.config == config
