"""Perft: count the leaves of the game tree to check move generation.

A flip expands into one child per distinct piece type still face down; draw rules
are ignored. The last two plies are counted in bulk by ``count_two_ply_leaves``.
"""

from collections.abc import Callable

from .movegen import count_leaves, count_two_ply_leaves, generate_moves
from .position import Position
from .rules import RuleSet

TABLE_LIMIT = 1 << 17
"""Entries the transposition table of one ``perft`` call holds before it starts again."""


def perft(pos: Position, rules: RuleSet, depth: int) -> int:
    """Leaf count of the tree ``depth`` plies below ``pos``.

    From depth 4 on, counts of nodes below the root are kept in a transposition
    table for the call: the same node is met again by other move orders.
    """
    if depth == 0:
        return 1
    if depth == 1:
        return count_leaves(pos, rules)
    if depth == 2:
        return count_two_ply_leaves(pos, rules)
    if depth == 3:
        return _sum_children(pos, rules, lambda child: count_two_ply_leaves(child, rules))
    table: dict[bytes, int] = {}
    return _sum_children(pos, rules, lambda child: _through_table(child, rules, depth - 1, table))


def _sum_children(pos: Position, rules: RuleSet, count: Callable[[Position], int]) -> int:
    """Sum of ``count`` over the children of ``pos``, each made and unmade in turn."""
    total = 0
    pool = pos.pool
    for move in generate_moves(pos, rules):
        frm = move >> 5
        if frm == move & 31:
            for piece in range(14):
                if pool[piece]:
                    pos.make_flip(frm, piece)
                    total += count(pos)
                    pos.unmake()
        else:
            pos.make_move(move)
            total += count(pos)
            pos.unmake()
    return total


def _through_table(pos: Position, rules: RuleSet, depth: int, table: dict[bytes, int]) -> int:
    """The count of a node ``depth`` >= 2 plies deep, looked up in ``table`` by the
    exact board, pool, side to move and depth."""
    key = bytes(pos.board + pos.pool + [pos.side, depth])
    total = table.get(key)
    if total is None:
        if depth == 2:
            total = count_two_ply_leaves(pos, rules)
        else:
            total = _sum_children(
                pos, rules, lambda child: _through_table(child, rules, depth - 1, table)
            )
        if len(table) >= TABLE_LIMIT:
            table.clear()
        table[key] = total
    return total


def divide(pos: Position, rules: RuleSet, depth: int) -> list[tuple[str, int]]:
    """Leaf count under each first ply, as (move string, count) in generation order.

    A flip's children appear one per piece type, written like ``b6(K)``.
    """
    from .notation import format_flip, format_move

    if depth < 1:
        raise ValueError("divide needs a depth of at least 1")
    rows: list[tuple[str, int]] = []
    for move in generate_moves(pos, rules):
        frm = move >> 5
        if frm == move & 31:
            for piece in range(14):
                if pos.pool[piece]:
                    pos.make_flip(frm, piece)
                    rows.append((format_flip(frm, piece), perft(pos, rules, depth - 1)))
                    pos.unmake()
        else:
            pos.make_move(move)
            rows.append((format_move(move), perft(pos, rules, depth - 1)))
            pos.unmake()
    return rows
