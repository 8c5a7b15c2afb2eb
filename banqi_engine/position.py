"""A position as one side sees it: board, face-down pool, side to move, counters.

The board is kept twice, as a list of square states (``board``) and as bitboards
(one per piece code, one per colour, one for face-down squares, one for empty
squares), updated together by ``make_move``/``make_flip`` and ``unmake``. A
64-bit Zobrist ``hash`` of the board and side to move is updated incrementally.
"""

import random
from typing import Final

from .errors import PositionError
from .pieces import (
    BLACK,
    EMPTY,
    FULL_POOL,
    HIDDEN,
    PIECE_LETTERS,
    RED,
    SQUARE_LETTERS,
    UNDECIDED,
)
from .squares import ALL_SQUARES, NUM_SQUARES, square_name

_rng = random.Random(0xBA1C1)
ZOBRIST: Final = tuple(
    (*tuple(_rng.getrandbits(64) for _ in range(15)), 0) for _ in range(NUM_SQUARES)
)
"""Key of each square state (piece codes, HIDDEN; EMPTY has key 0) on each square."""
SIDE_KEYS: Final = tuple(_rng.getrandbits(64) for _ in range(3))
del _rng

SIDE_LETTERS: Final = "rb-"
OPENING: Final = "XXXX/XXXX/XXXX/XXXX/XXXX/XXXX/XXXX/XXXX - 12222251222225 0 0"


class Position:
    """The full state of a game as one side sees it, with make and unmake."""

    __slots__ = (
        "_undo",
        "bb",
        "board",
        "colour_bb",
        "empty",
        "hash",
        "hidden",
        "no_progress",
        "ply",
        "pool",
        "side",
    )

    def __init__(
        self,
        board: list[int],
        pool: list[int],
        side: int,
        no_progress: int = 0,
        ply: int = 0,
    ) -> None:
        """Build from checked parts; use ``parse_position`` for untrusted text."""
        self.board = list(board)
        self.pool = list(pool)
        self.side = side
        self.no_progress = no_progress
        self.ply = ply
        self.bb = [0] * 14
        self.colour_bb = [0, 0]
        self.hidden = 0
        self.hash = SIDE_KEYS[side]
        for square, state in enumerate(self.board):
            bit = 1 << square
            if state == HIDDEN:
                self.hidden |= bit
            elif state != EMPTY:
                self.bb[state] |= bit
                self.colour_bb[state // 7] |= bit
            self.hash ^= ZOBRIST[square][state]
        self.empty = ALL_SQUARES & ~(self.hidden | self.colour_bb[0] | self.colour_bb[1])
        self._undo: list[tuple[int, int, int, int, int]] = []

    @classmethod
    def opening(cls) -> "Position":
        """All 32 pieces face down, colours undecided."""
        return cls([HIDDEN] * NUM_SQUARES, list(FULL_POOL), UNDECIDED)

    def copy(self) -> "Position":
        """An independent copy without the undo history."""
        return Position(self.board, self.pool, self.side, self.no_progress, self.ply)

    # -- making and unmaking plies -------------------------------------------------

    def make_flip(self, square: int, piece: int) -> None:
        """Turn ``square`` face up showing ``piece`` (caller checks legality)."""
        bit = 1 << square
        self._undo.append((square * 33, HIDDEN, self.no_progress, self.hash, self.side))
        self.board[square] = piece
        self.hidden ^= bit
        self.bb[piece] |= bit
        self.colour_bb[piece // 7] |= bit
        self.pool[piece] -= 1
        side = self.side
        new_side = (BLACK if piece < 7 else RED) if side == UNDECIDED else side ^ 1
        self.side = new_side
        self.hash ^= ZOBRIST[square][HIDDEN] ^ ZOBRIST[square][piece]
        self.hash ^= SIDE_KEYS[side] ^ SIDE_KEYS[new_side]
        self.no_progress = 0
        self.ply += 1

    def make_move(self, move: int) -> None:
        """Play a move or capture code (caller checks legality)."""
        frm = move >> 5
        to = move & 31
        board = self.board
        piece = board[frm]
        captured = board[to]
        self._undo.append((move, captured, self.no_progress, self.hash, self.side))
        frm_bit = 1 << frm
        to_bit = 1 << to
        colour = piece // 7
        self.bb[piece] ^= frm_bit | to_bit
        self.colour_bb[colour] ^= frm_bit | to_bit
        z = ZOBRIST
        h = self.hash ^ z[frm][piece] ^ z[to][piece] ^ z[to][captured]
        if captured == EMPTY:
            self.empty ^= frm_bit | to_bit
            self.no_progress += 1
        else:
            self.bb[captured] ^= to_bit
            self.colour_bb[captured // 7] ^= to_bit
            self.empty |= frm_bit
            self.no_progress = 0
        board[to] = piece
        board[frm] = EMPTY
        side = self.side
        self.side = side ^ 1
        self.hash = h ^ SIDE_KEYS[side] ^ SIDE_KEYS[side ^ 1]
        self.ply += 1

    def unmake(self) -> None:
        """Take back the last ply made."""
        move, captured, no_progress, old_hash, side = self._undo.pop()
        frm = move >> 5
        to = move & 31
        board = self.board
        if frm == to:
            piece = board[frm]
            bit = 1 << frm
            board[frm] = HIDDEN
            self.hidden |= bit
            self.bb[piece] ^= bit
            self.colour_bb[piece // 7] ^= bit
            self.pool[piece] += 1
        else:
            piece = board[to]
            frm_bit = 1 << frm
            to_bit = 1 << to
            self.bb[piece] ^= frm_bit | to_bit
            self.colour_bb[piece // 7] ^= frm_bit | to_bit
            board[frm] = piece
            board[to] = captured
            if captured == EMPTY:
                self.empty ^= frm_bit | to_bit
            else:
                self.bb[captured] |= to_bit
                self.colour_bb[captured // 7] |= to_bit
                self.empty ^= frm_bit
        self.side = side
        self.no_progress = no_progress
        self.hash = old_hash
        self.ply -= 1

    # -- views ---------------------------------------------------------------------

    def key(self) -> bytes:
        """Exact identity for repetition: the 32 square states and the side to move."""
        return bytes(self.board) + bytes((self.side,))

    def board_field(self) -> str:
        """The board field of the position string (rank 8 first, '/' between ranks)."""
        return board_field(self.board)

    def to_string(self) -> str:
        """The full position string: board, side, pool, no-progress plies, ply number."""
        pool = "".join(str(n) for n in self.pool)
        return (
            f"{self.board_field()} {SIDE_LETTERS[self.side]} {pool} {self.no_progress} {self.ply}"
        )

    def __str__(self) -> str:
        return self.to_string()

    def __repr__(self) -> str:
        return f"Position({self.to_string()!r})"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Position) and self.to_string() == other.to_string()

    __hash__ = None  # type: ignore[assignment]

    def diagram(self) -> str:
        """A multi-line board for people, rank 8 at the top."""
        lines = []
        for rank in range(7, -1, -1):
            cells = " ".join(SQUARE_LETTERS[self.board[rank * 4 + f]] for f in range(4))
            lines.append(f"{rank + 1} {cells}")
        lines.append("  a b c d")
        return "\n".join(lines)


def board_field(board: list[int] | tuple[int, ...]) -> str:
    """Format 32 square states as the board field of a position string."""
    ranks = []
    for rank in range(7, -1, -1):
        ranks.append("".join(SQUARE_LETTERS[board[rank * 4 + f]] for f in range(4)))
    return "/".join(ranks)


def parse_board_field(text: str, what: str = "board") -> list[int]:
    """Parse a board field (8 groups of 4 letters, rank 8 first) to 32 square states."""
    groups = text.split("/")
    if len(groups) != 8:
        raise PositionError(
            f"{what}: expected 8 ranks separated by '/', got {len(groups)} in {text!r}"
        )
    board = [EMPTY] * NUM_SQUARES
    for index, group in enumerate(groups):
        rank = 7 - index
        if len(group) != 4:
            raise PositionError(
                f"{what}: rank {rank + 1} ({group!r}) has {len(group)} squares, expected 4"
            )
        for file, letter in enumerate(group):
            state = SQUARE_LETTERS.find(letter)
            if state < 0:
                raise PositionError(
                    f"{what}: bad letter {letter!r} at {square_name(rank * 4 + file)}; "
                    f"allowed: {PIECE_LETTERS} (pieces), X (face down), - (empty)"
                )
            board[rank * 4 + file] = state
    return board


def _parse_count(text: str, field: str) -> int:
    if not (text.isascii() and text.isdigit()):
        raise PositionError(f"{field}: expected a whole number >= 0, got {text!r}")
    return int(text)


def parse_position(text: str) -> Position:
    """Parse a position string; PositionError names the bad field and why."""
    fields = text.split()
    if not 3 <= len(fields) <= 5:
        raise PositionError(
            f"expected 3 to 5 fields '<board> <side> <pool> [<no-progress> [<ply>]]', "
            f"got {len(fields)}"
        )
    board = parse_board_field(fields[0])
    side = SIDE_LETTERS.find(fields[1]) if len(fields[1]) == 1 else -1
    if side < 0:
        raise PositionError(f"side: expected r, b or -, got {fields[1]!r}")
    pool_text = fields[2]
    if len(pool_text) != 14 or not (pool_text.isascii() and pool_text.isdigit()):
        raise PositionError(
            f"pool: expected 14 digits (face-down counts of {PIECE_LETTERS}), got {pool_text!r}"
        )
    pool = [int(c) for c in pool_text]
    no_progress = _parse_count(fields[3], "no-progress plies") if len(fields) > 3 else 0
    ply = _parse_count(fields[4], "ply number") if len(fields) > 4 else 0
    check_consistency(board, pool, side)
    return Position(board, pool, side, no_progress, ply)


def check_consistency(board: list[int], pool: list[int], side: int) -> None:
    """Refuse a board and pool that no game could reach."""
    hidden = board.count(HIDDEN)
    if sum(pool) != hidden:
        raise PositionError(
            f"pool: counts add up to {sum(pool)} but the board has {hidden} face-down squares"
        )
    for code in range(14):
        on_board = board.count(code)
        if on_board + pool[code] > FULL_POOL[code]:
            raise PositionError(
                f"pool: {on_board} face-up and {pool[code]} face-down "
                f"{PIECE_LETTERS[code]!r} is more than a set has ({FULL_POOL[code]})"
            )
    face_up = sum(1 for state in board if state < HIDDEN)
    if side == UNDECIDED and face_up:
        raise PositionError(
            f"side: '-' (colours undecided) but {face_up} pieces are face up; "
            "colours are decided by the first flip"
        )
