"""Endgame tables: the table move generator against movegen, the values against a plain
retrograde analysis over movegen, hand-checked positions, best moves played out, and the
time budget of ``prepare``."""

import itertools
import random
import time
from collections import deque

import pytest
from click.testing import CliRunner

from banqi_cli.bench_endgame import bench_endgame_command
from banqi_engine.endgame import (
    DRAW,
    LOSS,
    MAX_PIECES,
    WIN,
    EndgameTables,
    EndgameValue,
    material_name,
    material_of,
    parse_material,
)
from banqi_engine.endgame_bits import Space, index_of
from banqi_engine.endgame_build import Material, MaterialMoves, capture_children
from banqi_engine.errors import RulesInputError
from banqi_engine.movegen import generate_moves
from banqi_engine.moves import Move
from banqi_engine.pieces import BLACK, EMPTY, RED
from banqi_engine.position import Position, parse_position
from banqi_engine.rules import PRESETS, RuleSet
from banqi_engine.squares import Square, parse_square

RULE_NAMES = list(PRESETS)
BruteValues = dict[bytes, tuple[int, int]]


def place(material: Material, squares: list[Square], side: int, no_progress: int = 0) -> Position:
    """The position with ``material[i]`` on ``squares[i]``, nothing face down."""
    board = [EMPTY] * 32
    for piece, square in zip(material, squares, strict=True):
        board[square] = piece
    return Position(board, [0] * 14, side, no_progress)


def at(text: str, side: int, no_progress: int = 0) -> Position:
    """A position from ``"Ka1 pb2"``: piece letters and squares."""
    board = [EMPTY] * 32
    for word in text.split():
        board[parse_square(word[1:])] = "KGMRNCPkgmrncp".index(word[0])
    return Position(board, [0] * 14, side, no_progress)


def built(rules: RuleSet, *materials: str) -> EndgameTables:
    """Tables of ``rules`` with ``materials`` built."""
    tables = EndgameTables(rules)
    for text in materials:
        assert tables.build(parse_material(text))
    return tables


def is_capture(pos: Position, move: Move) -> bool:
    """Whether ``move`` takes a piece in ``pos``."""
    return pos.board[move & 31] != EMPTY


# -- the table move generator ------------------------------------------------------------


@pytest.mark.parametrize("rules_name", RULE_NAMES)
def test_table_moves_match_movegen(rules_name: str) -> None:
    """Every action of MaterialMoves is legal exactly where movegen generates it."""
    rules = PRESETS[rules_name]
    rng = random.Random(rules_name)
    for text in ("CPvCN", "KCvPC", "RCvGP", "CvMP", "KvP"):
        material = parse_material(text)
        moves = MaterialMoves(material, rules, Space(len(material)))
        for _ in range(100):
            squares = rng.sample(range(32), len(material))
            index = index_of(squares)
            for side in (RED, BLACK):
                pos = place(material, squares, side)
                table = {
                    squares[a.slot] << 5 | (squares[a.slot] + a.square_step)
                    for a in moves.actions[side]
                    if a.mask >> index & 1
                }
                assert table == set(generate_moves(pos, rules)), pos


# -- values against a plain retrograde analysis over movegen ---------------------------


def brute_force(material: Material, rules: RuleSet, memo: dict[Material, BruteValues]) -> None:
    """Values (outcome, plies) at no-progress 0 of every position of ``material`` and of
    the materials it captures into, by a work queue over movegen's moves."""
    if material in memo:
        return
    for child in capture_children(material, rules):
        brute_force(child, rules, memo)
    everything: dict[bytes, Position] = {}
    twins = [i for i in range(len(material) - 1) if material[i] == material[i + 1]]
    for squares in itertools.permutations(range(32), len(material)):
        if any(squares[i] > squares[i + 1] for i in twins):
            continue
        for side in (RED, BLACK):
            pos = place(material, list(squares), side)
            everything[pos.key()] = pos
    values: dict[bytes, tuple[int, int]] = {}
    parents: dict[bytes, list[bytes]] = {key: [] for key in everything}
    quiet_left: dict[bytes, int] = {}
    holds: set[bytes] = set()
    level0: list[bytes] = []
    level1: list[bytes] = []
    for key, pos in everything.items():
        best_capture = None
        quiet = 0
        moves = generate_moves(pos, rules)
        for move in moves:
            capture = is_capture(pos, move)
            pos.make_move(move)
            if capture:
                after = -memo[material_of(pos)][pos.key()][0]
                best_capture = after if best_capture is None else max(best_capture, after)
            else:
                parents[pos.key()].append(key)
                quiet += 1
            pos.unmake()
        quiet_left[key] = quiet
        if not moves:
            values[key] = (LOSS, 0)
            level0.append(key)
        elif best_capture == WIN:
            values[key] = (WIN, 1)
            level1.append(key)
        elif best_capture == DRAW:
            holds.add(key)
        elif best_capture == LOSS and not quiet:
            values[key] = (LOSS, 1)
            level1.append(key)
    queue = deque(level0 + level1)
    while queue:
        key = queue.popleft()
        outcome, plies = values[key]
        if plies == rules.no_progress_limit:
            break
        for parent in parents[key]:
            if parent in values:
                continue
            if outcome == LOSS:
                values[parent] = (WIN, plies + 1)
                queue.append(parent)
            else:
                quiet_left[parent] -= 1
                if not quiet_left[parent] and parent not in holds:
                    values[parent] = (LOSS, plies + 1)
                    queue.append(parent)
    memo[material] = {key: values.get(key, (DRAW, 0)) for key in everything}


BRUTE_MATERIALS = {
    "olympiad": ("KvP", "CvN", "CvPP"),
    "hong-kong": ("KvC", "CvG", "CCvP"),
    "taiwan-sliding-cannon": ("CvR", "NvP", "CCvP"),
    "casual": ("GvN", "PvP", "KvPP"),
    "hong-kong-forum": ("RvG", "CvP"),  # nothing face down: moves onto such pieces never come
}


@pytest.mark.parametrize("rules_name", RULE_NAMES)
def test_values_match_plain_retrograde(rules_name: str) -> None:
    """Every position of small materials, at no-progress counts 0 and random ones."""
    rules = PRESETS[rules_name]
    rng = random.Random(rules_name)
    memo: dict[Material, BruteValues] = {}
    for text in BRUTE_MATERIALS[rules_name]:
        material = parse_material(text)
        brute_force(material, rules, memo)
        tables = built(rules, text)
        limit = rules.no_progress_limit
        for key, (outcome, plies) in memo[material].items():
            pos = Position(list(key[:32]), [0] * 14, key[32])
            assert tables.probe(pos) == EndgameValue(outcome, plies), pos
            pos.no_progress = rng.randrange(limit + 2)
            in_time = plies == 0 or plies <= limit - pos.no_progress
            expected = EndgameValue(outcome, plies) if in_time else EndgameValue(DRAW, 0)
            assert tables.probe(pos) == expected, pos


def test_the_limit_truncates_wins() -> None:
    """Under casual's 20-ply limit a long olympiad win of the same material is a draw."""
    olympiad = built(PRESETS["olympiad"], "KPvG")
    casual = built(PRESETS["casual"], "KPvG")
    stats = olympiad.built(parse_material("KPvG"))
    assert stats is not None and stats.longest_win > 20
    casual_stats = casual.built(parse_material("KPvG"))
    assert casual_stats is not None and casual_stats.longest_win <= 20
    assert casual_stats.draws > stats.draws


@pytest.mark.parametrize(
    ("rules_name", "text"),
    [
        ("olympiad", "KPvGP"),
        ("hong-kong", "KCvGP"),
        ("taiwan-sliding-cannon", "RCvNP"),
        ("casual", "PPvPP"),
    ],
)
def test_four_pieces_are_consistent_with_their_moves(rules_name: str, text: str) -> None:
    """On random 4-piece positions, the value is the best over movegen's moves of the
    children's values (captures judged by the smaller tables at no-progress 0)."""
    rules = PRESETS[rules_name]
    tables = built(rules, text)
    material = parse_material(text)
    rng = random.Random(text)
    outcomes = set()
    for _ in range(400):
        pos = place(
            material,
            rng.sample(range(32), 4),
            rng.choice((RED, BLACK)),
            rng.choice((0, 0, rng.randrange(rules.no_progress_limit))),
        )
        value = tables.probe(pos)
        assert value is not None
        outcomes.add(value.outcome)
        assert value == expected_from_children(tables, pos), pos
    assert outcomes == {WIN, DRAW, LOSS}


def expected_from_children(tables: EndgameTables, pos: Position) -> EndgameValue:
    """The value of ``pos`` from the probes of its children (no-progress below the limit)."""
    wins: list[int] = []
    losses: list[int] = []
    drawn = False
    for move in generate_moves(pos, tables.rules):
        capture = is_capture(pos, move)
        pos.make_move(move)
        child = tables.probe(pos)
        pos.unmake()
        assert child is not None
        plies = 1 if capture else child.plies + 1
        if child.outcome == LOSS:
            wins.append(plies)
        elif child.outcome == WIN:
            losses.append(plies)
        else:
            drawn = True
    if wins:
        return EndgameValue(WIN, min(wins))
    if drawn:
        return EndgameValue(DRAW, 0)
    return EndgameValue(LOSS, max(losses, default=0))


# -- positions checked by hand -----------------------------------------------------------


def test_king_against_pawn() -> None:
    """The Pawn takes the King, never the other way. A King in a corner with the Pawn
    diagonally next to it must step beside it and is taken on the second ply. Every ply
    changes the parity of their distance, so with the King to move at an odd distance the
    Pawn is never next to it on its turn (a draw); at an even distance the narrow board
    lets the Pawn drive the King into a corner."""
    tables = built(PRESETS["olympiad"], "KvP")
    assert tables.probe(at("Ka1 pb2", RED)) == EndgameValue(LOSS, 2)
    assert tables.probe(at("Ka1 pa2", BLACK)) == EndgameValue(WIN, 1)
    assert tables.probe(at("Ka1 pa2", RED)) == EndgameValue(DRAW, 0)
    assert tables.probe(at("Kd8 pa1", BLACK)) == EndgameValue(DRAW, 0)
    assert tables.probe(at("Kd8 pa1", RED)) == EndgameValue(LOSS, 18)
    assert tables.best_moves(at("Ka1 pa2", BLACK)) == [parse_square("a2") << 5]


def test_no_progress_limit_turns_a_win_into_a_draw() -> None:
    """A conversion that needs more plies than the limit leaves is a draw."""
    tables = built(PRESETS["olympiad"], "KvP")
    limit = PRESETS["olympiad"].no_progress_limit
    assert tables.probe(at("Ka1 pb2", RED, limit - 2)) == EndgameValue(LOSS, 2)
    assert tables.probe(at("Ka1 pb2", RED, limit - 1)) == EndgameValue(DRAW, 0)
    assert tables.probe(at("Ka1 pa2", BLACK, limit - 1)) == EndgameValue(WIN, 1)
    assert tables.probe(at("Ka1 pa2", BLACK, limit)) == EndgameValue(DRAW, 0)
    drawing = tables.best_moves(at("Ka1 pb2", RED, limit - 1))
    assert drawing is not None
    assert sorted(drawing) == [parse_square("a1") << 5 | parse_square(s) for s in ("b1", "a2")]


def test_no_legal_move_is_a_loss() -> None:
    """A King cornered by two Pawns (which it may not take) cannot move; a side with no
    piece left has lost; both whatever the no-progress count."""
    tables = built(PRESETS["olympiad"], "KvPP", "vPP")
    assert tables.probe(at("Ka1 pa2 pb1", RED)) == EndgameValue(LOSS, 0)
    assert tables.probe(at("Ka1 pa2 pb1", RED, 500)) == EndgameValue(LOSS, 0)
    assert tables.probe(at("Ka1 pa2 pb1", BLACK)) == EndgameValue(WIN, 1)
    assert tables.probe(at("pa2 pb1", RED)) == EndgameValue(LOSS, 0)
    assert tables.probe(at("pa2 pb1", BLACK)) == EndgameValue(WIN, 1)
    assert tables.best_moves(at("Ka1 pa2 pb1", RED)) == []


def test_hong_kong_cannon_takes_by_a_step() -> None:
    """In hong-kong a cannon next to a Pawn takes it; in olympiad it needs a screen."""
    hong_kong = built(PRESETS["hong-kong"], "CvP")
    olympiad = built(PRESETS["olympiad"], "CvP")
    assert hong_kong.probe(at("Ca1 pa2", RED)) == EndgameValue(WIN, 1)
    assert olympiad.probe(at("Ca1 pa2", RED)) == EndgameValue(DRAW, 0)


# -- best moves played out ---------------------------------------------------------------


def converts_in_time(
    tables: EndgameTables, pos: Position, plies: int, seen: dict[tuple[bytes, int], bool]
) -> bool:
    """Whether the first of best_moves, against every reply, converts to a win (a won
    capture, or the other side left without a move) within ``plies`` plies."""
    memo_key = (pos.key(), plies)
    if memo_key in seen:
        return seen[memo_key]
    moves = tables.best_moves(pos)
    assert moves
    move = moves[0]
    capture = is_capture(pos, move)
    pos.make_move(move)
    replies = generate_moves(pos, tables.rules)
    child = tables.probe(pos)
    assert child is not None
    if capture or not replies:
        result = child.outcome == LOSS
    else:
        result = plies >= 3
        for reply in replies if result else []:
            taken = is_capture(pos, reply)
            pos.make_move(reply)
            if taken:
                value = tables.probe(pos)
                result = value is not None and value.outcome == WIN
            else:
                result = converts_in_time(tables, pos, plies - 2, seen)
            pos.unmake()
            if not result:
                break
    pos.unmake()
    seen[memo_key] = result
    return result


def play_best(tables: EndgameTables, pos: Position) -> tuple[int, int]:
    """Both sides play the first of best_moves until a capture or the end: the plies
    played and the outcome for the first side to move."""
    pos = pos.copy()
    plies = 0
    while True:
        moves = tables.best_moves(pos)
        assert moves is not None
        if not moves:
            return plies, LOSS if plies % 2 == 0 else WIN
        capture = is_capture(pos, moves[0])
        pos.make_move(moves[0])
        plies += 1
        if capture:
            value = tables.probe(pos)
            assert value is not None and value.outcome != DRAW
            mover_wins = value.outcome == LOSS
            return plies, WIN if mover_wins == (plies % 2 == 1) else LOSS


@pytest.mark.parametrize("rules_name", ["olympiad", "hong-kong", "taiwan-sliding-cannon"])
def test_best_moves_achieve_the_value(rules_name: str) -> None:
    """Wins convert within their plies against every defence, and with both sides
    playing best moves every win and loss converts in exactly its plies."""
    rules = PRESETS[rules_name]
    tables = built(rules, "KPvG", "RvNP")
    rng = random.Random(rules_name)
    checked = 0
    for text in ("KPvG", "RvNP"):
        material = parse_material(text)
        for _ in range(60):
            pos = place(material, rng.sample(range(32), 3), rng.choice((RED, BLACK)))
            value = tables.probe(pos)
            assert value is not None
            if value.outcome == DRAW:
                moves = tables.best_moves(pos)
                assert moves
                for move in moves:
                    pos.make_move(move)
                    child = tables.probe(pos)
                    pos.unmake()
                    assert child is not None and child.outcome != WIN
                continue
            assert play_best(tables, pos) == (value.plies, value.outcome)
            if value.outcome == WIN and checked < 6:
                checked += 1
                assert converts_in_time(tables, pos, value.plies, {})
    assert checked == 6


# -- prepare and its budget --------------------------------------------------------------


def test_prepare_respects_its_budget() -> None:
    """No time: nothing is built and probe says None; a short budget may stop part way,
    but what is built is complete and right; enough time builds everything."""
    rules = PRESETS["olympiad"]
    pos = parse_position("----/-P--/-K--/----/--g-/----/---p/---- r 00000000000000 3")
    tables = EndgameTables(rules)
    assert not tables.prepare(pos, 0.0)
    assert tables.probe(pos) is None and tables.best_moves(pos) is None
    start = time.perf_counter()
    ready = tables.prepare(pos, 0.03)
    assert time.perf_counter() - start < 0.03 + 0.25
    assert (tables.probe(pos) is not None) == ready
    full = EndgameTables(rules)
    assert full.prepare(pos, 60.0)
    value = full.probe(pos)
    assert value is not None
    for material in capture_children(material_of(pos), rules):
        if tables.built(material) is not None:
            assert _same_counts(tables, full, material)
    assert tables.prepare(pos, 60.0)
    assert tables.probe(pos) == value


def _same_counts(a: EndgameTables, b: EndgameTables, material: Material) -> bool:
    """Whether two builds of ``material`` agree on everything but the time taken."""
    first, second = a.built(material), b.built(material)
    assert first is not None and second is not None
    return (first.positions, first.wins, first.draws, first.losses, first.longest_win) == (
        second.positions,
        second.wins,
        second.draws,
        second.losses,
        second.longest_win,
    )


def test_prepare_five_pieces_builds_one_capture_away() -> None:
    """With MAX_PIECES + 1 pieces, every position one capture away can be probed."""
    rules = PRESETS["hong-kong"]
    pos = at("Kb2 Pc3 gc4 pd4 Rd3", RED)
    tables = EndgameTables(rules)
    assert not tables.applies(pos)
    assert tables.prepare(pos, 60.0)
    assert tables.probe(pos) is None
    captures = [move for move in generate_moves(pos, rules) if is_capture(pos, move)]
    assert captures
    for move in captures:
        pos.make_move(move)
        assert tables.probe(pos) is not None
        pos.unmake()


def test_applies_and_unprepared_positions() -> None:
    """Face-down pieces, undecided colours or too many pieces: no table."""
    tables = EndgameTables(PRESETS["olympiad"])
    assert tables.applies(at("Ka1 pb2", RED))
    assert not tables.applies(Position.opening())
    assert not tables.prepare(Position.opening(), 10.0)
    hidden = parse_position("X---/----/----/----/----/----/----/K--p r 00000010000000")
    assert not tables.applies(hidden)
    assert tables.probe(hidden) is None
    assert not tables.applies(at("Ka1 Pa2 Pa3 pb1 pb2 pb3", RED))
    assert tables.probe(at("Ka1 pb2", RED)) is None


def test_materials_by_name() -> None:
    """``KPvG`` is red King and Pawn against a black Guard; bad names are refused."""
    material = parse_material("KPvG")
    assert material_name(material) == "KPvG"
    assert parse_material("kpvg") == material
    assert material_name(material_of(at("Ka1 Pa2 gb1", BLACK))) == "KPvG"
    for bad in ("KPG", "KXvG", "v"):
        with pytest.raises(RulesInputError):
            parse_material(bad)
    with pytest.raises(RulesInputError):
        EndgameTables(PRESETS["olympiad"]).build(parse_material("KPvGPP"))
    assert MAX_PIECES == 4


def test_bench_command() -> None:
    """``banqi bench endgame`` prints a line per material."""
    result = CliRunner().invoke(
        bench_endgame_command, ["--rules", "hong-kong", "--material", "KvP", "--material", "CvNP"]
    )
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert len(lines) == 2
    assert "KvP" in lines[0] and "1,984 positions" in lines[0]
    assert "CvNP" in lines[1]
    bad = CliRunner().invoke(bench_endgame_command, ["--material", "KPvGPP"])
    assert bad.exit_code == 1 and "5 pieces" in bad.output


@pytest.mark.parametrize(("text", "problem"), [("KKvP", "2 of 'K'"), ("vPPPPPP", "6 of 'p'")])
def test_a_material_no_set_has_is_refused(text: str, problem: str) -> None:
    with pytest.raises(RulesInputError, match=problem):
        parse_material(text)


def test_a_full_cache_is_emptied_before_a_new_material_is_built(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    tables = EndgameTables(PRESETS["olympiad"])
    first = parse_position("---K/----/----/----/----/----/----/p--- r 00000000000000")
    second = parse_position("---K/----/----/----/----/----/----/g--- r 00000000000000")
    assert tables.prepare(first, 5.0)
    monkeypatch.setattr("banqi_engine.endgame.MAX_ENTRIES", 1)
    assert tables.prepare(first, 5.0), "what is built stays while nothing new is needed"
    assert tables.probe(first) is not None
    assert tables.prepare(second, 5.0)
    assert tables.probe(second) is not None
    assert tables.probe(first) is None, "the cache was emptied for the new material"
