"""Which flips the search tries: those that meet a face-up piece at once, ranked.

Every face-down square is a legal flip, far too many to search. The search tries the
squares that interact with a face-up piece at once (a neighbour, or a jumping cannon one
screen away on a line), plus one of the others standing for them all; below the root it
ranks them by a cheap expected gain and keeps the best ``max_flips``.
"""

from typing import Final

from .movegen import jump_targets
from .pieces import BLACK, NUM_PIECES, RED
from .position import Position
from .rules import RuleSet, step_capture_masks
from .squares import NEIGHBOUR_MASKS, NUM_SQUARES, Bitboard, Square

THREAT_SHARE: Final = 0.5
"""In a flip's expected gain, a piece attacked (not taken) counts this share of its value."""
FLIP_TABLES_MAX: Final = 4096
"""The cache of gain tables is emptied past this many pools."""


class FlipChoice:
    """Splits and ranks the flips of positions under one rule set (caches by pool)."""

    def __init__(self, rules: RuleSet, values: tuple[float, ...], max_flips: int) -> None:
        self.jump = rules.cannon_capture == "jump"
        self.steps = step_capture_masks(rules)
        self.values = values
        self.max_flips = max_flips
        self.tables: dict[int, list[float]] = {}

    def trim(self) -> None:
        """Empty the cache if it has grown past ``FLIP_TABLES_MAX`` tables."""
        if len(self.tables) > FLIP_TABLES_MAX:
            self.tables.clear()

    def split(self, pos: Position) -> tuple[list[Square], list[Square]]:
        """Face-down squares split into those interacting with a face-up piece and the rest."""
        face_up = pos.colour_bb[RED] | pos.colour_bb[BLACK]
        empty = pos.empty
        hidden = pos.hidden
        interacting: list[Square] = []
        quiet: list[Square] = []
        for square in range(NUM_SQUARES):
            if not hidden >> square & 1:
                continue
            if NEIGHBOUR_MASKS[square] & face_up or (
                self.jump and face_up and _jump_contact(square, empty, face_up)
            ):
                interacting.append(square)
            else:
                quiet.append(square)
        return interacting, quiet

    def ranked(self, pos: Position, pool_key: int, squares: list[Square]) -> list[Square]:
        """The ``max_flips`` squares of ``squares`` whose flips gain most at once, best first
        (``pool_key`` names ``pos``'s face-down pool).

        A flip's gain sums, over the face-up pieces next to it, the expected value of the
        piece that shows up meeting it (see ``gain_table``)."""
        table = self.gain_table(pos, pool_key)
        board = pos.board
        face_up = pos.colour_bb[RED] | pos.colour_bb[BLACK]
        ranked: list[tuple[float, Square]] = []
        for square in squares:
            gain = 0.0
            near = NEIGHBOUR_MASKS[square] & face_up
            while near:
                low = near & -near
                near ^= low
                gain += table[board[low.bit_length() - 1]]
            ranked.append((-gain, square))
        ranked.sort()
        return [square for _, square in ranked[: self.max_flips]]

    def gain_table(self, pos: Position, pool_key: int) -> list[float]:
        """For each piece code, the expected gain for the side to move of flipping a square
        next to such a piece, over the pool (cached by pool and side).

        The other side moves next: a piece that shows up next to one that takes it by a step
        is lost (or takes), one that only attacks wins ``THREAT_SHARE`` of its target."""
        side = pos.side
        key = pool_key ^ side
        table = self.tables.get(key)
        if table is not None:
            return table
        pool = pos.pool
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
        self.tables[key] = table
        return table


def _jump_contact(square: Square, empty: Bitboard, face_up: Bitboard) -> bool:
    """Whether a face-up piece stands one screen away from ``square`` on a line."""
    return bool(jump_targets(square, ~empty) & face_up)
