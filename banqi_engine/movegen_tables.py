"""The bitboard tables and masks that move generation and leaf counting share.

Each piece's targets are its neighbour mask ANDed with the empty squares and the
enemy kinds it may take (``prey_masks``; ``threat_masks`` is the converse). A
cannon that jumps or slides looks its targets up by the occupancy of its rank and
file, in a table filled as occupancies are met (``cannon_lines``).
"""

from typing import NamedTuple, TypeAlias

from .pieces import CANNON, KIND_LETTERS, KING, PAWN, Kind, Piece
from .rules import RuleSet
from .squares import (
    ALL_SQUARES,
    CROSS_MASKS,
    FILE_A,
    FILE_D,
    NEIGHBOUR_MASKS,
    NUM_SQUARES,
    RAYS,
    Bitboard,
    Square,
)

# These run for every node of perft and the search, so pieces and squares are computed
# with raw arithmetic (``enemy + kind``, ``<< 4`` for a rank step), as in the hot loops
# of ``movegen`` and ``two_ply_count``.

_NOT_FILE_A = ALL_SQUARES & ~FILE_A
_NOT_FILE_D = ALL_SQUARES & ~FILE_D

CannonEntry: TypeAlias = tuple[Bitboard, Bitboard, int, Bitboard]
"""Of a cannon on a square: jump targets, slide targets, slide count, reach."""


class RuleTables(NamedTuple):
    """What generation and counting need from a rule set."""

    rising: tuple[Kind, ...]
    """The kinds from the lowest capture order to the highest."""
    falling: tuple[Kind, ...]
    """The kinds from the highest capture order to the lowest."""
    jump: bool
    """Cannons capture by jumping."""
    slide: bool
    """Cannons move by sliding."""
    cannon_and_below: tuple[Kind, ...]
    """The cannon and the kinds below it in capture order."""
    onto_hidden: bool
    """Pieces may move onto face-down pieces (all but a jumping cannon)."""


_TABLES: dict[int, tuple[RuleSet, RuleTables]] = {}
"""Tables by ``id`` of the rule set, which each entry keeps alive (hashing a rule
set costs more than a whole leaf count)."""
_TABLES_LIMIT = 64


def rule_tables(rules: RuleSet) -> RuleTables:
    """The tables of ``rules``, built on first use."""
    entry = _TABLES.get(id(rules))
    if entry is None:
        if len(_TABLES) >= _TABLES_LIMIT:
            _TABLES.clear()
        falling = tuple(KIND_LETTERS.index(letter) for letter in rules.capture_order)
        tables = RuleTables(
            falling[::-1],
            falling,
            rules.cannon_capture == "jump",
            rules.cannon_move == "slide",
            falling[falling.index(CANNON) :],
            rules.move_onto_face_down,
        )
        entry = _TABLES[id(rules)] = (rules, tables)
    return entry[1]


def _running_unions(bb: list[Bitboard], base: Piece, order: tuple[Kind, ...]) -> list[Bitboard]:
    """Per kind, the squares of the pieces ``base + k`` of every kind ``k`` up to it in
    ``order`` (seven kinds; unrolled, as it runs for every node)."""
    k0, k1, k2, k3, k4, k5, k6 = order
    unions = [0] * 7
    union = unions[k0] = bb[base + k0]
    union = unions[k1] = union | bb[base + k1]
    union = unions[k2] = union | bb[base + k2]
    union = unions[k3] = union | bb[base + k3]
    union = unions[k4] = union | bb[base + k4]
    union = unions[k5] = union | bb[base + k5]
    unions[k6] = union | bb[base + k6]
    return unions


def prey_masks(bb: list[Bitboard], enemy: Piece, tables: RuleTables) -> list[Bitboard]:
    """Per attacker kind, the squares of the pieces ``enemy + kind`` it takes by a step
    (``enemy``: the first piece code of the enemy colour).

    A kind takes every kind at or below its capture order, except that the King
    never takes a Pawn, a Pawn takes the King, and a jumping cannon takes nothing
    by a step (the rules' ``step_capture_masks``).
    """
    prey = _running_unions(bb, enemy, tables.rising)
    prey[KING] &= ~bb[enemy + PAWN]
    prey[PAWN] |= bb[enemy + KING]
    if tables.jump:
        prey[CANNON] = 0
    return prey


def threat_masks(bb: list[Bitboard], own: Piece, tables: RuleTables) -> list[Bitboard]:
    """Per target kind, the squares of the pieces (codes ``own + kind``) that take it by a step."""
    threats = _running_unions(bb, own, tables.falling)
    threats[PAWN] &= ~bb[own + KING]
    threats[KING] |= bb[own + PAWN]
    if tables.jump:
        cannons = ~bb[own + CANNON]
        for kind in tables.cannon_and_below:
            threats[kind] &= cannons
    return threats


CANNON_LINES: tuple[dict[Bitboard, CannonEntry], ...] = tuple({} for _ in range(NUM_SQUARES))
"""Per square, ``cannon_lines`` entries by the occupied squares of its rank and file
(at most 1024 a square)."""


def cannon_lines(square: Square, occupied: Bitboard) -> CannonEntry:
    """Jump targets, slide targets, slide count and reach of a cannon on ``square``.

    The reach is every square up to the second occupied one along each line: only
    changes there can change the cannon's moves. ``occupied`` may be any int whose
    bits on the square's rank and file are the occupied squares (``~empty`` will do).
    """
    key = occupied & CROSS_MASKS[square]
    table = CANNON_LINES[square]
    entry = table.get(key)
    if entry is None:
        jumps = slides = reach = 0
        for ray in RAYS[square]:
            screen = False
            for target in ray:
                reach |= 1 << target
                if not key >> target & 1:
                    if not screen:
                        slides |= 1 << target
                elif screen:
                    jumps |= 1 << target
                    break
                else:
                    screen = True
        entry = table[key] = (jumps, slides, slides.bit_count(), reach)
    return entry


def adjacent_pairs(pieces: Bitboard, targets: Bitboard) -> int:
    """Number of (piece, target) pairs one orthogonal step apart (``pieces`` not 0)."""
    if not pieces & (pieces - 1):
        return (NEIGHBOUR_MASKS[pieces.bit_length() - 1] & targets).bit_count()
    return (
        ((pieces << 4) & targets).bit_count()
        + ((pieces >> 4) & targets).bit_count()
        + (((pieces & _NOT_FILE_D) << 1) & targets).bit_count()
        + (((pieces & _NOT_FILE_A) >> 1) & targets).bit_count()
    )


def adjacent(squares: Bitboard) -> Bitboard:
    """The squares one orthogonal step from any of ``squares``."""
    return (
        squares << 4 | squares >> 4 | (squares & _NOT_FILE_D) << 1 | (squares & _NOT_FILE_A) >> 1
    ) & ALL_SQUARES
