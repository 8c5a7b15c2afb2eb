"""Perft: count the leaves of the game tree to check move generation.

A flip, and a move onto a face-down piece, expands into one child per distinct piece
type still face down; draw rules are ignored. The last two plies are counted in bulk
by ``count_two_ply_leaves``.
"""

from collections.abc import Callable

from .movegen import children, count_leaves
from .notation import Ply
from .position import Position
from .rules import RuleSet
from .two_ply_count import count_two_ply_leaves

TABLE_LIMIT = 1 << 17
"""Entries the transposition table of one ``perft`` call holds before it starts again."""


def perft(pos: Position, rules: RuleSet, depth: int) -> int:
    """Leaf count of the tree ``depth`` plies below ``pos``.

    From depth 4 on, counts of nodes below the root are kept in a transposition
    table for the call, where the same node can be met again by another move order:
    three plies or more down, or two flips down (two plies with a move in them
    cannot reach one node by two paths).
    """
    if depth == 0:
        return 1
    if depth == 1:
        return count_leaves(pos, rules)
    if depth == 2:
        return count_two_ply_leaves(pos, rules)
    if depth == 3:
        return _sum_children(pos, rules, lambda child, _: count_two_ply_leaves(child, rules))
    table: dict[bytes, int] = {}
    return _sum_children(
        pos, rules, lambda child, flip: _below(child, rules, depth - 1, 1, flip, table)
    )


def _sum_children(pos: Position, rules: RuleSet, count: Callable[[Position, bool], int]) -> int:
    """Sum of ``count(child, whether the ply turned a piece up)`` over the children of
    ``pos``."""
    return sum(count(pos, piece is not None) for _, piece in children(pos, rules))


def _below(
    pos: Position, rules: RuleSet, depth: int, ply: int, flips: bool, table: dict[bytes, int]
) -> int:
    """The count of a node ``depth`` >= 2 plies deep and ``ply`` plies below the root
    (all of them flips if ``flips``), looked up in ``table`` by the exact board,
    pool, side to move and depth where another path can reach it."""
    if ply < 3 and not (ply == 2 and flips):
        return _expand(pos, rules, depth, ply, flips, table)
    key = bytes(pos.board + pos.pool + [pos.side, depth])
    total = table.get(key)
    if total is None:
        total = _expand(pos, rules, depth, ply, flips, table)
        if len(table) >= TABLE_LIMIT:
            table.clear()
        table[key] = total
    return total


def _expand(
    pos: Position, rules: RuleSet, depth: int, ply: int, flips: bool, table: dict[bytes, int]
) -> int:
    """The count of a node as in ``_below``, without looking it up."""
    if depth == 2:
        return count_two_ply_leaves(pos, rules)
    if depth == 3 and ply == 1 and not flips:
        return _sum_children(pos, rules, lambda child, _: count_two_ply_leaves(child, rules))
    return _sum_children(
        pos,
        rules,
        lambda child, flip: _below(child, rules, depth - 1, ply + 1, flips and flip, table),
    )


def divide(pos: Position, rules: RuleSet, depth: int) -> list[tuple[str, int]]:
    """Leaf count under each first ply, as (move string, count) in generation order.

    A flip's children appear one per piece type, written like ``b6(K)``, and so do a
    move onto a face-down piece's (``a2-a3(k)``).
    """
    if depth < 1:
        raise ValueError("divide needs a depth of at least 1")
    return [
        (str(Ply(move, piece)), perft(pos, rules, depth - 1))
        for move, piece in children(pos, rules)
    ]
