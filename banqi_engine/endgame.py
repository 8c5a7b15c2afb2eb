"""Exact endgame tables, built by retrograde analysis on the fly, for positions with
every piece face up and at most ``MAX_PIECES`` pieces.

Convention (DTC under the no-progress rule, like Syzygy's DTZ50):

* ``plies`` is the distance to the next *conversion* under best play: a capture, or
  the end of the game by the side to move having no legal move. The capture (or the
  move after which the other side cannot move) is counted: a winning capture now is
  1 ply, a lost position whose side to move has no legal move is 0 plies.
* A conversion is judged by the table of the position it leads to, from a no-progress
  count of 0 (a capture resets the count): a capture into a position lost for the side
  then to move wins, one into a drawn position draws, one into a won position loses.
  The side that wins converts as fast as it can, the side that loses as late as it can;
  a side that can convert into a draw, or hold out forever, draws.
* The rule set's no-progress limit ``L`` is honoured: with ``n = pos.no_progress``, a
  position whose unlimited distance is ``d`` is WIN (or LOSS) only if ``d <= L - n``
  (a loss with no legal move, ``d == 0``, is always LOSS); otherwise it is DRAW with
  ``plies`` 0, as the game would end in a draw before the conversion. Wins and losses
  longer than ``L`` from a count of 0 are draws everywhere, so the analysis stops there.
* Repetition draws are ignored: a win is won by forced progress.

The tables of a rule set live in one ``EndgameTables`` (in memory, for the game);
``prepare`` builds them within a time budget, ``probe`` and ``best_moves`` only look up.
Positions are indexed as placements of their material (see ``endgame_bits`` and
``endgame_build``): ``probe`` costs a pass over the 14 piece bitboards and one lookup.
"""

import math
import time
from dataclasses import dataclass
from typing import Final

from .endgame_build import BuildTimeout, Material, MaterialTable, build_table, capture_children
from .errors import RulesInputError
from .movegen import generate_moves
from .moves import Move
from .pieces import EMPTY, FULL_POOL, NUM_KINDS, NUM_PIECES, PIECE_LETTERS, UNDECIDED, Piece
from .position import Position
from .rules import RuleSet

WIN: Final = 1
DRAW: Final = 0
LOSS: Final = -1
MAX_PIECES: Final = 4
MAX_ENTRIES: Final = 16 << 21
"""Values the cache holds before it is emptied for a new material (about 16 tables of 4
pieces, some 75 MB), so an engine playing game after game stays bounded."""


@dataclass(frozen=True, slots=True)
class EndgameValue:
    """The exact value of a position for its side to move."""

    outcome: int
    """WIN, DRAW or LOSS, honouring ``pos.no_progress`` and the no-progress limit."""
    plies: int
    """Plies to the next capture or game end under best play; 0 for DRAW."""


@dataclass(frozen=True, slots=True)
class TableStats:
    """Counts of one built table, each position counted once (both sides to move)."""

    material: Material
    positions: int
    wins: int
    draws: int
    losses: int
    longest_win: int
    """The longest win, in plies."""
    seconds: float
    """Time to build this table alone (its capture children were built before)."""


def material_of(pos: Position) -> Material:
    """The sorted piece codes of the face-up pieces of ``pos``."""
    return tuple(piece for piece in range(NUM_PIECES) for _ in range(pos.bb[piece].bit_count()))


def parse_material(text: str) -> Material:
    """A material written like ``KPvG``: red kinds, ``v``, black kinds (either case)."""
    red, sep, black = text.partition("v")
    if not sep or not (red or black):
        raise RulesInputError(f"material {text!r}: expected red kinds, 'v', black kinds, e.g. KPvG")
    pieces: list[Piece] = []
    for colour, kinds in enumerate((red, black)):
        for letter in kinds.upper():
            kind = PIECE_LETTERS.find(letter)
            if not 0 <= kind < NUM_KINDS:
                raise RulesInputError(f"material {text!r}: {letter!r} is not a kind (KGMRNCP)")
            pieces.append(colour * NUM_KINDS + kind)
    for piece in set(pieces):
        if pieces.count(piece) > FULL_POOL[piece]:
            raise RulesInputError(
                f"material {text!r}: {pieces.count(piece)} of {PIECE_LETTERS[piece]!r}, but a "
                f"set has {FULL_POOL[piece]}"
            )
    return tuple(sorted(pieces))


def material_name(material: Material) -> str:
    """``KPvG`` for the material K, P (red) against G (black)."""
    red = "".join(PIECE_LETTERS[p] for p in material if p < NUM_KINDS)
    black = "".join(PIECE_LETTERS[p - NUM_KINDS] for p in material if p >= NUM_KINDS)
    return f"{red}v{black}"


class EndgameTables:
    """The endgame tables of one rule set, built on demand and kept in memory."""

    def __init__(self, rules: RuleSet) -> None:
        self.rules = rules
        self.limit = rules.no_progress_limit
        self._tables: dict[Material, MaterialTable] = {}

    def applies(self, pos: Position) -> bool:
        """Colours decided, no face-down piece, 1 to MAX_PIECES pieces."""
        if pos.side == UNDECIDED or pos.hidden:
            return False
        count = pos.colour_bb[0].bit_count() + pos.colour_bb[1].bit_count()
        return 1 <= count <= MAX_PIECES

    def prepare(self, pos: Position, seconds: float) -> bool:
        """Build (within ``seconds`` of wall time, never leaving a half-built table in
        use) the tables of pos's material and every material reachable from it by
        captures, when pos has no face-down piece and at most MAX_PIECES pieces; also
        when pos has no face-down piece and MAX_PIECES+1 pieces (then the tables one
        capture away). Returns whether everything needed is ready (False for a position
        no table covers)."""
        if pos.side == UNDECIDED or pos.hidden:
            return False
        material = material_of(pos)
        if len(material) == MAX_PIECES + 1:
            needed = sorted(capture_children(material, self.rules))
        elif 1 <= len(material) <= MAX_PIECES:
            needed = [material]
        else:
            return False
        if any(target not in self._tables for target in needed) and self._entries() > MAX_ENTRIES:
            self._tables.clear()
        deadline = time.perf_counter() + seconds
        return all(self.build(target, deadline - time.perf_counter()) for target in needed)

    def _entries(self) -> int:
        """Values held by the cached tables, all together."""
        return sum(len(table.values) for table in self._tables.values())

    def build(self, material: Material, seconds: float = math.inf) -> bool:
        """Build ``material``'s table and those of the materials it captures into, within
        ``seconds``; return whether all are built (tables finished in time are kept)."""
        material = tuple(sorted(material))
        if not 1 <= len(material) <= MAX_PIECES:
            raise RulesInputError(
                f"material {material_name(material)} has {len(material)} pieces; "
                f"tables hold 1 to {MAX_PIECES}"
            )
        try:
            self._build(material, time.perf_counter() + seconds)
        except BuildTimeout:
            return False
        return True

    def _build(self, material: Material, deadline: float) -> None:
        """Build ``material``'s table after its capture children's."""
        if material in self._tables:
            return
        for child in sorted(capture_children(material, self.rules)):
            self._build(child, deadline)
        if time.perf_counter() > deadline:
            raise BuildTimeout
        self._tables[material] = build_table(material, self.rules, self._tables, deadline)

    def built(self, material: Material) -> TableStats | None:
        """The counts of ``material``'s table, or None if it is not built."""
        table = self._tables.get(material)
        if table is None:
            return None
        per = table.same_positions()
        positions = 2 * table.valid.bit_count() // per
        wins = sum(bits.bit_count() for bits in table.wins) // per
        losses = sum(bits.bit_count() for bits in table.losses) // per
        return TableStats(
            material,
            positions,
            wins,
            positions - wins - losses,
            losses,
            table.longest_win,
            table.seconds,
        )

    def probe(self, pos: Position) -> EndgameValue | None:
        """The exact value, or None when it does not apply or its table is not built.
        Never builds."""
        side = pos.side
        if side == UNDECIDED or pos.hidden:
            return None
        material: list[Piece] = []
        index = 0
        shift = 0
        bb = pos.bb
        for piece in range(NUM_PIECES):
            bits = bb[piece]
            while bits:
                if shift == 5 * MAX_PIECES:
                    return None
                low = bits & -bits
                bits ^= low
                index |= (low.bit_length() - 1) << shift
                shift += 5
                material.append(piece)
        table = self._tables.get(tuple(material))
        if table is None:
            return None
        code = table.values[(side << shift) | index]
        if not code:
            return EndgameValue(DRAW, 0)
        plies = code >> 1
        if plies and plies > self.limit - pos.no_progress:
            return EndgameValue(DRAW, 0)
        return EndgameValue(LOSS if code & 1 else WIN, plies)

    def best_moves(self, pos: Position) -> list[Move] | None:
        """The legal moves that keep the best outcome: for a win the fastest-converting
        ones, for a loss the slowest, for a draw those that keep the draw (after which
        the other side does not win). None if probe is None."""
        value = self.probe(pos)
        if value is None:
            return None
        work = pos.copy()
        kept = []
        for move in generate_moves(work, self.rules):
            capture = work.board[move & 31] != EMPTY
            work.make_move(move)
            child = self.probe(work)
            work.unmake()
            assert child is not None
            if value.outcome == DRAW:
                keeps = child.outcome != WIN
            elif capture:
                keeps = value.plies == 1 and child.outcome == -value.outcome
            else:
                keeps = child.outcome == -value.outcome and child.plies == value.plies - 1
            if keeps:
                kept.append(move)
        return kept
