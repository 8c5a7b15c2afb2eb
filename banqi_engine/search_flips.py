"""Which flips the search tries: those that meet a face-up piece at once, ranked.

Every face-down square is a legal flip, far too many to search. The search tries the
squares that interact with a face-up piece at once (a neighbour, or a jumping cannon one
screen away on a line), plus one of the others standing for them all; below the root it
ranks them by a cheap expected gain and keeps the best ``max_flips``.

In the compiled build ``FlipChoice`` is a C-level class (``search_flips.pxd``): besides
the Python-callable ``split`` and ``ranked``, C callers get ``split_into`` and
``rank_into``, which work on ``int`` buffers of squares.
"""

from typing import Final

from cython import compiled

from .pieces import NUM_PIECES
from .rules import RuleSet, step_capture_masks
from .squares import ALL_SQUARES, NEIGHBOUR_MASKS, Bitboard, Square

if not compiled:  # the compiled build cimports these in the .pxd (C calls)
    from .bits import low_square
    from .movegen_tables import cannon_jumps
    from .position import Position

THREAT_SHARE: Final = 0.5
"""In a flip's expected gain, a piece attacked (not taken) counts this share of its value."""
FLIP_TABLES_MAX: Final = 4096
"""The cache of gain tables is emptied past this many pools."""
_NEIGHBOURS = list(NEIGHBOUR_MASKS)
"""NEIGHBOUR_MASKS (a C array in the compiled build, as ``_ALL_SQUARES`` a C number)."""
_ALL_SQUARES = ALL_SQUARES


class _Gains:
    """A gain table: per piece code, the expected gain of a flip next to it (a C array in
    the compiled build)."""

    def __init__(self, gains: list[float]) -> None:
        self.gains = gains


class FlipChoice:
    """Splits and ranks the flips of positions under one rule set (caches by pool)."""

    def __init__(self, rules: RuleSet, values: tuple[float, ...], max_flips: int) -> None:
        self.jump = rules.cannon_capture == "jump"
        self.steps = list(step_capture_masks(rules))
        self.values = list(values)
        self.max_flips = max_flips
        self.tables: dict[int, _Gains] = {}
        """Gain tables by pool key XOR side to move."""

    def trim(self) -> None:
        """Empty the cache if it has grown past ``FLIP_TABLES_MAX`` tables."""
        if len(self.tables) > FLIP_TABLES_MAX:
            self.tables.clear()

    def split(self, pos: Position) -> tuple[list[Square], list[Square]]:
        """Face-down squares split into those interacting with a face-up piece and the rest."""
        interacting = [0] * 32  # NUM_SQUARES (C arrays in the compiled build)
        quiet = [0] * 32
        n_quiet = [0]
        n = self.split_into(pos, interacting, quiet, n_quiet)
        return [interacting[i] for i in range(n)], [quiet[i] for i in range(n_quiet[0])]

    def split_into(
        self, pos: Position, interacting: list[Square], quiet: list[Square], n_quiet: list[int]
    ) -> int:
        """``split`` into buffers of 32 squares, each in rising order: returns how many
        interact and sets ``n_quiet[0]`` to how many do not."""
        face_up = pos.colour_bb[0] | pos.colour_bb[1]
        occupied = _ALL_SQUARES & ~pos.empty
        jump = self.jump and face_up != 0
        hidden = pos.hidden
        n = 0
        q = 0
        while hidden:
            square = low_square(hidden)
            hidden &= hidden - 1
            if _NEIGHBOURS[square] & face_up or (jump and _jump_contact(square, occupied, face_up)):
                interacting[n] = square
                n += 1
            else:
                quiet[q] = square
                q += 1
        n_quiet[0] = q
        return n

    def ranked(self, pos: Position, pool_key: int, squares: list[Square]) -> list[Square]:
        """The ``max_flips`` squares of ``squares`` whose flips gain most at once, best first
        (``pool_key`` names ``pos``'s face-down pool; ties go to the lower square).

        A flip's gain sums, over the face-up pieces next to it, the expected value of the
        piece that shows up meeting it (see ``gain_table``)."""
        n = len(squares)
        buffer = [0] * 32  # NUM_SQUARES
        for i in range(n):
            buffer[i] = squares[i]
        kept = self.rank_into(pos, pool_key, buffer, n)
        return [buffer[i] for i in range(kept)]

    def rank_into(self, pos: Position, pool_key: int, squares: list[Square], n: int) -> int:
        """``ranked`` in place: orders the first ``n`` (at most 32, distinct) of ``squares``
        best first and returns how many of them to keep (at most ``max_flips``)."""
        table = self._gains(pos, pool_key)
        board = pos.board
        face_up = pos.colour_bb[0] | pos.colour_bb[1]
        gains = [0.0] * 32  # NUM_SQUARES
        for i in range(n):
            square = squares[i]
            gain = 0.0
            near = _NEIGHBOURS[square] & face_up
            while near:
                gain += table.gains[board[low_square(near)]]
                near &= near - 1
            # insertion sort by falling gain, then rising square (a stable sort's order of
            # the (-gain, square) pairs)
            j = i
            while j > 0 and (
                gains[j - 1] < gain or (gains[j - 1] == gain and squares[j - 1] > square)
            ):
                gains[j] = gains[j - 1]
                squares[j] = squares[j - 1]
                j -= 1
            gains[j] = gain
            squares[j] = square
        return n if n < self.max_flips else max(self.max_flips, 0)

    def gain_table(self, pos: Position, pool_key: int) -> list[float]:
        """For each piece code, the expected gain for the side to move of flipping a square
        next to such a piece, over the pool (cached by pool and side).

        The other side moves next: a piece that shows up next to one that takes it by a step
        is lost (or takes), one that only attacks wins ``THREAT_SHARE`` of its target."""
        table = self._gains(pos, pool_key)
        return [table.gains[piece] for piece in range(NUM_PIECES)]

    def _gains(self, pos: Position, pool_key: int) -> _Gains:
        """``gain_table``'s entry (cached)."""
        key = pool_key ^ pos.side
        table: _Gains | None = self.tables.get(key)
        if table is None:
            table = self.tables[key] = _Gains(self._gain_list(pos))
        return table

    def _gain_list(self, pos: Position) -> list[float]:
        """``gain_table`` computed."""
        side = pos.side
        pool = [pos.pool[piece] for piece in range(NUM_PIECES)]
        total = sum(pool)
        steps = self.steps
        values = self.values
        table = []
        for piece in range(NUM_PIECES):
            kind = piece % 7
            own = piece // 7 == side
            gain = 0.0
            for shown in range(NUM_PIECES):
                count = pool[shown]
                if not count or (shown // 7 == side) == own:
                    continue
                other = shown % 7
                # ``mover`` moves next: the other side's piece of the two
                mover, target = (other, kind) if own else (kind, other)
                loss = values[target] if own else values[other]
                if steps[mover] >> target & 1:
                    gain -= count * loss
                elif steps[target] >> mover & 1:
                    gain += count * THREAT_SHARE * (values[other] if own else values[kind])
            table.append(gain / total if total else 0.0)
        return table


def _jump_contact(square: Square, occupied: Bitboard, face_up: Bitboard) -> bool:
    """Whether a face-up piece stands one screen away from ``square`` on a line."""
    return bool(cannon_jumps(square, occupied) & face_up)
