"""Perft: count the leaves of the game tree to check move generation.

A flip expands into one child per distinct piece type still face down; draw rules
are ignored. The last ply is counted in bulk by ``count_leaves``.
"""

from .movegen import count_leaves, generate_moves
from .position import Position
from .rules import RuleSet


def perft(pos: Position, rules: RuleSet, depth: int) -> int:
    """Leaf count of the tree ``depth`` plies below ``pos``."""
    if depth == 0:
        return 1
    if depth == 1:
        return count_leaves(pos, rules)
    total = 0
    pool = pos.pool
    for move in generate_moves(pos, rules):
        frm = move >> 5
        if frm == move & 31:
            for piece in range(14):
                if pool[piece]:
                    pos.make_flip(frm, piece)
                    total += perft(pos, rules, depth - 1)
                    pos.unmake()
        else:
            pos.make_move(move)
            total += perft(pos, rules, depth - 1)
            pos.unmake()
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
