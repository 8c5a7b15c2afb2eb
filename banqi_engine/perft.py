"""Perft: count the leaves of the game tree to check move generation.

A flip, and a move onto a face-down piece, expands into one child per distinct piece
type still face down; draw rules are ignored. The last two plies are counted in bulk
by ``count_two_ply_leaves``.
"""

from cython import compiled

from .movegen import Children, children
from .notation import Ply
from .rules import RuleSet

if not compiled:  # the compiled build cimports these in the .pxd (C calls)
    from .movegen import count_leaves_with, make_child
    from .movegen_tables import RuleTables, rule_tables
    from .position import Position
    from .two_ply_count import two_ply_leaves

TABLE_LIMIT = 1 << 17
"""Entries the transposition table of one ``perft`` call holds before it starts again."""
_KEY_SIZE = 48
"""Bytes of a table key: 32 square states, 14 pool counts, the side to move, the depth."""


def perft(pos: Position, rules: RuleSet, depth: int) -> int:
    """Leaf count of the tree ``depth`` plies below ``pos``.

    From depth 4 on, counts of nodes below the root are kept in a transposition
    table for the call, where the same node can be met again by another move order:
    three plies or more down, or two flips down (two plies with a move in them
    cannot reach one node by two paths).
    """
    tables = rule_tables(rules)
    if depth == 0:
        return 1
    if depth == 1:
        return count_leaves_with(pos, tables)
    if depth == 2:
        return two_ply_leaves(pos, tables)
    if depth == 3:
        return _sum_children(pos, tables, 2, 1, False, None)
    table: dict[bytes, int] = {}
    return _sum_children(pos, tables, depth - 1, 1, True, table)


def _sum_children(
    pos: Position,
    tables: RuleTables,
    depth: int,
    ply: int,
    flips: bool,
    table: dict[bytes, int] | None,
) -> int:
    """The sum of the counts of the children of ``pos``, ``depth`` plies deep and ``ply``
    plies below the root: without a ``table``, ``two_ply_leaves`` of each (``depth``
    2); with one, ``_below`` of each, all of whose plies are flips if ``flips`` and the
    child's ply turned a piece up."""
    kids = Children(pos, tables)
    total = 0
    for i in range(kids.n):
        make_child(pos, tables, kids.moves[i], kids.pieces[i])
        if table is None:
            total += two_ply_leaves(pos, tables)
        else:
            total += _below(pos, tables, depth, ply, flips and kids.pieces[i] >= 0, table)
        pos.unmake()
    return total


def _below(
    pos: Position, tables: RuleTables, depth: int, ply: int, flips: bool, table: dict[bytes, int]
) -> int:
    """The count of a node ``depth`` >= 2 plies deep and ``ply`` plies below the root
    (all of them flips if ``flips``), looked up in ``table`` by the exact board,
    pool, side to move and depth where another path can reach it."""
    if ply < 3 and not (ply == 2 and flips):
        return _expand(pos, tables, depth, ply, flips, table)
    if not compiled:  # the same bytes as below, at the speed of plain Python
        key = bytes(pos.board + pos.pool + [pos.side, depth])
    else:
        key_bytes = bytearray(_KEY_SIZE)
        board = pos.board
        pool = pos.pool
        for i in range(32):
            key_bytes[i] = board[i]
        for i in range(14):
            key_bytes[32 + i] = pool[i]
        key_bytes[46] = pos.side
        key_bytes[47] = depth
        key = bytes(key_bytes)
    total = table.get(key)
    if total is None:
        total = _expand(pos, tables, depth, ply, flips, table)
        if len(table) >= TABLE_LIMIT:
            table.clear()
        table[key] = total
    return total


def _expand(
    pos: Position, tables: RuleTables, depth: int, ply: int, flips: bool, table: dict[bytes, int]
) -> int:
    """The count of a node as in ``_below``, without looking it up."""
    if depth == 2:
        return two_ply_leaves(pos, tables)
    if depth == 3 and ply == 1 and not flips:
        return _sum_children(pos, tables, 2, ply + 1, False, None)
    return _sum_children(pos, tables, depth - 1, ply + 1, flips, table)


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
