"""The search's features, each switched by ``SearchConfig``: still tactically right, still
legal, and exact where they should be (PVS, Star2 and aspiration change no value)."""

import random

import pytest
from plain_rules import after_reveal, board_text, parse_state, state_text

from banqi_engine.game import Game
from banqi_engine.layout import random_layout
from banqi_engine.movegen import generate_moves
from banqi_engine.moves import is_flip, move_from, move_to, step_move
from banqi_engine.pieces import PIECE_LETTERS
from banqi_engine.position import Position, parse_position
from banqi_engine.rules import PRESETS, RuleSet
from banqi_engine.search import AFTER_CHANCE, CHANCE_BOUND, FLIP_REDUCTION, Searcher
from banqi_engine.search_config import DEFAULT_CONFIG, FEATURES, PLAIN_CONFIG, SearchConfig
from banqi_engine.search_player import SearchPlayer
from banqi_engine.squares import parse_square
from banqi_engine.transposition import MATE_THRESHOLD
from tournaments.selfplay import search_factory

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
    searcher: Searcher, pos: Position, move: int, depth: int, alpha: float, beta: float
) -> float:
    """``_chance`` of ``move`` (a flip, or a move onto a face-down piece) from ``pos``."""
    searcher.search(pos, random.Random(0), max_depth=1)  # sets the searcher up on pos
    return searcher._chance(move, depth, alpha, beta, 0, 0)


def check_star2_at_chance_node(
    plain: Searcher, star2: Searcher, pos: Position, move: int, depth: int
) -> float:
    """Star2's value of ``move`` equals the plain expectimax value in an open window, and
    is a bound on the right side of a window that excludes it; the exact value."""
    exact = chance_value(plain, pos, move, depth, -2 * CHANCE_BOUND, 2 * CHANCE_BOUND)
    assert chance_value(star2, pos, move, depth, -2 * CHANCE_BOUND, 2 * CHANCE_BOUND) == (
        pytest.approx(exact, abs=1e-6)
    )
    for alpha, beta in ((exact - 3, exact + 3), (exact + 1, exact + 4), (exact - 5, exact - 1)):
        windowed = chance_value(plain, pos, move, depth, alpha, beta)
        probed = chance_value(star2, pos, move, depth, alpha, beta)
        if alpha < exact < beta:
            assert windowed == pytest.approx(exact, abs=1e-6)
            assert probed == pytest.approx(exact, abs=1e-6)
        elif exact <= alpha:
            assert windowed <= alpha + 1e-9 and probed <= alpha + 1e-9
            assert probed >= exact - 1e-6
        else:
            assert windowed >= beta - 1e-9 and probed >= beta - 1e-9
            assert probed <= exact + 1e-6
    return exact


def exact_searchers(rules: RuleSet) -> tuple[Searcher, Searcher]:
    """Searchers without a table or pruning: plain expectimax, and with Star2 only."""
    plain = Searcher(rules, config=SearchConfig(transposition=False, **NOTHING))
    star2 = Searcher(rules, config=SearchConfig(transposition=False, **{**NOTHING, "star2": True}))
    return plain, star2


@pytest.mark.parametrize("text", SMALL_HIDDEN)
def test_star2_matches_expectimax_at_chance_nodes(text: str) -> None:
    pos = parse_position(text)
    plain, star2 = exact_searchers(OLYMPIAD)
    squares = [s for s in range(32) if pos.hidden >> s & 1]
    for square in squares[:2]:
        check_star2_at_chance_node(plain, star2, pos, square * 33, 5)


FORUM = PRESETS["hong-kong-forum"]
SMALL_HIDDEN_FORUM = (
    "X--X/-k--/-X--/-r--/-XP-/-G--/----/X-XK r 00001110000111",
    "XX--/-gX-/--n-/----/--C-/-RX-/----/X--K b 00001100000111",
    "X-X-/-X--/-gK-/----/--p-/--X-/-N--/X-Xk b 00001110000111",
)
"""Small positions under ``hong-kong-forum`` where the side to move may move onto a
face-down piece (and the other side may, further down)."""


def onto_face_down(pos: Position, rules: RuleSet) -> list[int]:
    """The moves onto face-down pieces of the side to move."""
    return [m for m in generate_moves(pos, rules) if not is_flip(m) and pos.reveal_square(m)]


def expectimax(searcher: Searcher, pos: Position, move: int, depth: int) -> float:
    """The expectation, weighted by the face-down pool, of the plain search's value of each
    outcome of ``move`` (checked against the plain rules' outcome), as a chance node has it."""
    searcher.search(pos, random.Random(0), max_depth=1)
    state = parse_state(pos.to_string())
    frm, to = move_from(move), move_to(move)
    total = sum(pos.pool)
    value = 0.0
    for piece, count in enumerate(pos.pool):
        if not count:
            continue
        letter = PIECE_LETTERS[piece]
        searcher._make_outcome(move, piece)
        expected = after_reveal(state, (frm, to), letter, searcher.rules.capture_order)
        assert searcher.pos.to_string().split()[:3] == state_text(expected).split()
        searcher.reset_repetitions([searcher.pos.hash])
        child = -searcher._search(
            depth - 1 - FLIP_REDUCTION, -2 * CHANCE_BOUND, 2 * CHANCE_BOUND, 1, AFTER_CHANCE, 0
        )
        searcher.pos.unmake()
        value += count / total * max(-CHANCE_BOUND, min(CHANCE_BOUND, child))
    assert searcher.pos == pos
    return value


@pytest.mark.parametrize("text", SMALL_HIDDEN_FORUM)
def test_star2_matches_expectimax_at_moves_onto_face_down_pieces(text: str) -> None:
    pos = parse_position(text)
    plain, star2 = exact_searchers(FORUM)
    moves = onto_face_down(pos, FORUM)
    assert moves, text
    for move in moves[:2]:
        exact = check_star2_at_chance_node(plain, star2, pos, move, 5)
        assert exact == pytest.approx(expectimax(plain, pos, move, 5), abs=1e-6)
    # and a flip there too, whose outcomes may themselves allow such moves
    square = next(s for s in range(32) if pos.hidden >> s & 1)
    check_star2_at_chance_node(plain, star2, pos, square * 33, 5)


def test_the_whole_search_keeps_its_value_with_moves_onto_face_down_pieces() -> None:
    # without the table PVS, Star2 and aspiration give the plain alpha-beta value exactly
    base = SearchConfig(transposition=False, **NOTHING)
    every = SearchConfig(transposition=False, **{f: f in EXACT_FEATURES for f in FEATURES})
    for text in SMALL_HIDDEN_FORUM:
        pos = parse_position(text)
        reference = Searcher(FORUM, config=base).search(pos, random.Random(0), max_depth=4)
        result = Searcher(FORUM, config=every).search(pos, random.Random(0), max_depth=4)
        assert result.score == pytest.approx(reference.score, abs=1e-6), text


def choice(text: str, depth: int, config: SearchConfig, seed: int) -> int:
    return (
        Searcher(FORUM, config=config)
        .search(parse_position(text), random.Random(seed), max_depth=depth)
        .move
    )


FACE_DOWN_NEIGHBOUR = {"b2": "G", "b3": "X", "d8": "X", "a8": "X", "a5": "X", "d1": "k", "c6": "K"}
"""Red's guard on b2 next to the face-down b3; three more face-down squares far off."""


def forum_text(squares: dict[str, str], pool: str) -> str:
    board = ["-"] * 32
    for name, letter in squares.items():
        board[parse_square(name)] = letter
    counts = "".join(str(pool.count(letter)) for letter in PIECE_LETTERS)
    return f"{board_text(tuple(board))} r {counts}"


@pytest.mark.parametrize("config", [DEFAULT_CONFIG, PLAIN_CONFIG], ids=["all", "plain"])
def test_moves_onto_a_face_down_piece_when_it_wins_material_and_not_when_it_loses(
    config: SearchConfig,
) -> None:
    # the same board: face down are only pieces the guard takes (it moves onto b3), or
    # only pieces that take the guard (it goes away from b3, and does not flip b3 either)
    weak = forum_text(FACE_DOWN_NEIGHBOUR, "pgmp")
    strong = forum_text(FACE_DOWN_NEIGHBOUR, "rncr")
    onto = move("b2-b3")
    assert onto in generate_moves(parse_position(strong), FORUM)
    for depth in (1, 3, 5):
        for seed in range(2):
            assert choice(weak, depth, config, seed) == onto
            chosen = choice(strong, depth, config, seed)
            assert chosen not in (onto, parse_square("b3") * 33), (depth, seed)


def test_search_factory_makes_players_with_the_config() -> None:
    config = DEFAULT_CONFIG.without("lmr", "star2")
    player = search_factory(OLYMPIAD, config)(5)
    assert isinstance(player, SearchPlayer)
    assert player.config == config and player.searcher.config == config
