"""A position as one side sees it: board, face-down pool, side to move, counters.

The board is kept twice, as a list of square states (``board``) and as bitboards
(one per piece code, one per colour, one for face-down squares, one for empty
squares), updated together by ``make_move``/``make_flip``/``make_reveal`` and
``unmake``. A
62-bit Zobrist ``hash`` of the board and side to move is updated incrementally.
"""

import random
from array import array
from typing import Final

from .errors import PositionError
from .moves import Move
from .pieces import (
    BLACK,
    EMPTY,
    FULL_POOL,
    HIDDEN,
    NUM_PIECES,
    PIECE_LETTERS,
    RED,
    SQUARE_LETTERS,
    UNDECIDED,
    Colour,
    Piece,
    SquareState,
    colour_of,
    is_piece,
)
from .rules import MAX_NO_PROGRESS_LIMIT, RuleSet
from .squares import (
    ALL_SQUARES,
    FILES,
    NUM_FILES,
    NUM_RANKS,
    NUM_SQUARES,
    Square,
    ranks_top_down,
    square_at,
    square_name,
)

ZOBRIST_BITS: Final = 62
"""Bits of a Zobrist key: 62, not 64, so that keys, hashes (XORs of keys) and the
search's table keys stay below 2**62: positive C ``long long`` values in the compiled
build with a bit to spare (the score cache marks its filled slots with bit 62)."""

_rng = random.Random(0xBA1C1)
ZOBRIST: Final = tuple(
    (*tuple(_rng.getrandbits(ZOBRIST_BITS) for _ in range(EMPTY)), 0) for _ in range(NUM_SQUARES)
)
"""Key of each square state (piece codes, HIDDEN; EMPTY, the last state, has key 0)
on each square."""
SIDE_KEYS: Final = tuple(_rng.getrandbits(ZOBRIST_BITS) for _ in (RED, BLACK, UNDECIDED))
del _rng

BITS: Final = tuple(1 << square for square in range(NUM_SQUARES))
"""The bitboard of each square (a table: in the compiled build, ``1 << square`` of a C
int would overflow past bit 31)."""
_ZOBRIST_FLAT = [key for keys in ZOBRIST for key in keys]
"""ZOBRIST flattened, square * 16 + state (a C array in the compiled build)."""
_SIDE_KEYS = list(SIDE_KEYS)
_NO_PIECES: Final = (0,) * NUM_PIECES
_UNDO_START: Final = bytes(8 * 128)
"""A new position's undo buffer: room for 64 plies."""

REVEAL_STAYED: Final = EMPTY + 1
"""In the undo history of a move onto a face-down piece after which the mover stayed: in
the place of the captured square state."""
REVEAL_TAKEN: Final = EMPTY + 2
"""In the undo history of a move onto a face-down piece that captured it: this plus the
captured piece, in the place of the captured square state."""

SIDE_LETTERS: Final = "rb-"
OPENING: Final = "XXXX/XXXX/XXXX/XXXX/XXXX/XXXX/XXXX/XXXX - 12222251222225 0 0"


class Position:
    """The full state of a game as one side sees it, with make and unmake.

    In the compiled build this is a C-level class (``position.pxd``): the board, pool
    and bitboards are C arrays there, read from Python as lists (copies: write through
    the make and unmake methods only).
    """

    def __init__(
        self,
        board: list[SquareState],
        pool: list[int],
        side: Colour,
        no_progress: int = 0,
        ply: int = 0,
    ) -> None:
        """Build from checked parts; use ``parse_position`` for untrusted text.

        ``pool`` is the face-down count of each piece code; ``side`` may be UNDECIDED.
        """
        self.board = list(board)
        self.pool = list(pool)
        self.side = side
        self.no_progress = no_progress
        self.ply = ply
        self.bb = list(_NO_PIECES)
        """Squares of each piece code."""
        self.colour_bb = list(_NO_PIECES[:2])
        """Squares of the face-up pieces of RED and of BLACK."""
        self.hidden = 0
        self.hash = SIDE_KEYS[side]
        for square in range(NUM_SQUARES):
            state = board[square]
            bit = BITS[square]
            if state == HIDDEN:
                self.hidden |= bit
            elif state != EMPTY:
                self.bb[state] |= bit
                self.colour_bb[colour_of(state)] |= bit
            self.hash ^= ZOBRIST[square][state]
        self.empty = ALL_SQUARES & ~(self.hidden | self.colour_bb[RED] | self.colour_bb[BLACK])
        self._undo = array("q", _UNDO_START)
        """Two entries per ply made (``_push``), the first ``_undo_count`` in use; grown
        by doubling (a C buffer in the compiled build)."""
        self._undo_count = 0

    @classmethod
    def opening(cls) -> "Position":
        """All 32 pieces face down, colours undecided."""
        return cls([HIDDEN] * NUM_SQUARES, list(FULL_POOL), UNDECIDED)

    def copy(self) -> "Position":
        """An independent copy without the undo history."""
        return Position(list(self.board), list(self.pool), self.side, self.no_progress, self.ply)

    # -- making and unmaking plies -------------------------------------------------
    # Called for every node of perft and the search: move and piece codes are read
    # with raw ``>> 5``, ``& 31``, ``* 33``, ``// 7`` and ``< 7`` (see ``moves`` and
    # ``pieces``), as a function call each costs measurably in CPython. Keys and bits
    # come from flat tables (C arrays in the compiled build).

    def _push(self, move: Move, undo_state: int) -> None:
        """Remember a ply for ``unmake``: the move, what it took (``undo_state``), the
        side and no-progress count before it, and the hash before it."""
        n = self._undo_count
        if n == len(self._undo):
            grown = array("q", bytes(16 * n))
            for index in range(n):
                grown[index] = self._undo[index]
            self._undo = grown
        self._undo[n] = move | undo_state << 10 | self.side << 15 | self.no_progress << 17
        self._undo[n + 1] = self.hash
        self._undo_count = n + 2

    def make_flip(self, square: Square, piece: Piece) -> None:
        """Turn ``square`` face up showing ``piece`` (caller checks legality)."""
        bit = BITS[square]
        self._push(square * 33, HIDDEN)
        self.board[square] = piece
        self.hidden ^= bit
        self.bb[piece] |= bit
        self.colour_bb[piece // 7] |= bit
        self.pool[piece] -= 1
        side = self.side
        new_side = (BLACK if piece < 7 else RED) if side == UNDECIDED else side ^ 1
        self.side = new_side
        z = _ZOBRIST_FLAT
        self.hash ^= z[square * 16 + HIDDEN] ^ z[square * 16 + piece]
        self.hash ^= _SIDE_KEYS[side] ^ _SIDE_KEYS[new_side]
        self.no_progress = 0
        self.ply += 1

    def make_reveal(self, move: Move, piece: Piece, takes: bool) -> None:
        """Move onto the face-down square ``to`` of ``move``, which shows ``piece``: the
        mover captures it and takes the square if ``takes``, else stays where it was and
        the piece stays face up (caller checks legality and decides ``takes``)."""
        frm = move >> 5
        to = move & 31
        mover = self.board[frm]
        frm_bit = BITS[frm]
        to_bit = BITS[to]
        z = _ZOBRIST_FLAT
        h = self.hash ^ z[to * 16 + HIDDEN]
        self.hidden ^= to_bit
        self.pool[piece] -= 1
        if takes:
            self._push(move, REVEAL_TAKEN + piece)
            self.bb[mover] ^= frm_bit | to_bit
            self.colour_bb[mover // 7] ^= frm_bit | to_bit
            self.empty |= frm_bit
            self.board[to] = mover
            self.board[frm] = EMPTY
            h ^= z[frm * 16 + mover] ^ z[to * 16 + mover]
        else:
            self._push(move, REVEAL_STAYED)
            self.bb[piece] |= to_bit
            self.colour_bb[piece // 7] |= to_bit
            self.board[to] = piece
            h ^= z[to * 16 + piece]
        side = self.side
        self.side = side ^ 1
        self.hash = h ^ _SIDE_KEYS[side] ^ _SIDE_KEYS[side ^ 1]
        self.no_progress = 0
        self.ply += 1

    def make_move(self, move: Move) -> None:
        """Play a move or capture code (caller checks legality)."""
        frm = move >> 5
        to = move & 31
        piece = self.board[frm]
        captured = self.board[to]
        self._push(move, captured)
        frm_bit = BITS[frm]
        to_bit = BITS[to]
        colour = piece // 7
        self.bb[piece] ^= frm_bit | to_bit
        self.colour_bb[colour] ^= frm_bit | to_bit
        z = _ZOBRIST_FLAT
        h = self.hash ^ z[frm * 16 + piece] ^ z[to * 16 + piece] ^ z[to * 16 + captured]
        if captured == EMPTY:
            self.empty ^= frm_bit | to_bit
            self.no_progress += 1
        else:
            self.bb[captured] ^= to_bit
            self.colour_bb[captured // 7] ^= to_bit
            self.empty |= frm_bit
            self.no_progress = 0
        self.board[to] = piece
        self.board[frm] = EMPTY
        side = self.side
        self.side = side ^ 1
        self.hash = h ^ _SIDE_KEYS[side] ^ _SIDE_KEYS[side ^ 1]
        self.ply += 1

    def unmake(self) -> None:
        """Take back the last ply made."""
        n = self._undo_count - 2
        self._undo_count = n
        packed = self._undo[n]
        old_hash = self._undo[n + 1]
        move = packed & 1023
        captured = packed >> 10 & 31
        frm = move >> 5
        to = move & 31
        if frm == to:
            piece = self.board[frm]
            bit = BITS[frm]
            self.board[frm] = HIDDEN
            self.hidden |= bit
            self.bb[piece] ^= bit
            self.colour_bb[piece // 7] ^= bit
            self.pool[piece] += 1
        elif captured > EMPTY:
            self._unmake_reveal(frm, to, captured)
        else:
            piece = self.board[to]
            frm_bit = BITS[frm]
            to_bit = BITS[to]
            self.bb[piece] ^= frm_bit | to_bit
            self.colour_bb[piece // 7] ^= frm_bit | to_bit
            self.board[frm] = piece
            self.board[to] = captured
            if captured == EMPTY:
                self.empty ^= frm_bit | to_bit
            else:
                self.bb[captured] |= to_bit
                self.colour_bb[captured // 7] |= to_bit
                self.empty ^= frm_bit
        self.side = packed >> 15 & 3
        self.no_progress = packed >> 17
        self.hash = old_hash
        self.ply -= 1

    def _unmake_reveal(self, frm: Square, to: Square, undo_state: int) -> None:
        """Take back a move onto a face-down piece (``undo_state``: REVEAL_STAYED if the
        mover stayed, ``REVEAL_TAKEN + piece`` if it captured ``piece``)."""
        frm_bit = BITS[frm]
        to_bit = BITS[to]
        if undo_state == REVEAL_STAYED:
            piece = self.board[to]
            self.bb[piece] ^= to_bit
            self.colour_bb[piece // 7] ^= to_bit
        else:
            piece = undo_state - REVEAL_TAKEN
            mover = self.board[to]
            self.bb[mover] ^= frm_bit | to_bit
            self.colour_bb[mover // 7] ^= frm_bit | to_bit
            self.empty ^= frm_bit
            self.board[frm] = mover
        self.board[to] = HIDDEN
        self.hidden |= to_bit
        self.pool[piece] += 1

    # -- views ---------------------------------------------------------------------

    def reveal_square(self, move: Move) -> Square | None:
        """The face-down square ``move`` turns up (a flip's square, or the target of a
        move onto a face-down piece), or None for a move or capture."""
        to = move & 31
        return to if self.board[to] == HIDDEN else None

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
        for rank in ranks_top_down():
            cells = " ".join(_rank_letters(self.board, rank))
            lines.append(f"{rank + 1} {cells}")
        lines.append("  " + " ".join(FILES))
        return "\n".join(lines)


def _rank_letters(board: list[SquareState] | tuple[SquareState, ...], rank: int) -> list[str]:
    """The letters of the square states of one rank, file a first."""
    return [SQUARE_LETTERS[board[square_at(file, rank)]] for file in range(NUM_FILES)]


def board_field(board: list[SquareState] | tuple[SquareState, ...]) -> str:
    """Format 32 square states as the board field of a position string."""
    return "/".join("".join(_rank_letters(board, rank)) for rank in ranks_top_down())


def parse_board_field(text: str, what: str = "board") -> list[SquareState]:
    """Parse a board field (8 groups of 4 letters, rank 8 first) to 32 square states."""
    groups = text.split("/")
    if len(groups) != NUM_RANKS:
        raise PositionError(
            f"{what}: expected {NUM_RANKS} ranks separated by '/', got {len(groups)} in {text!r}"
        )
    board = [EMPTY] * NUM_SQUARES
    for rank, group in zip(ranks_top_down(), groups, strict=True):
        if len(group) != NUM_FILES:
            raise PositionError(
                f"{what}: rank {rank + 1} ({group!r}) has {len(group)} squares, "
                f"expected {NUM_FILES}"
            )
        for file, letter in enumerate(group):
            state = SQUARE_LETTERS.find(letter)
            if state < 0:
                raise PositionError(
                    f"{what}: bad letter {letter!r} at {square_name(square_at(file, rank))}; "
                    f"allowed: {PIECE_LETTERS} (pieces), X (face down), - (empty)"
                )
            board[square_at(file, rank)] = state
    return board


PROGRESS_EVENTS: Final = NUM_SQUARES + NUM_SQUARES - 1
"""The most flips and captures a game has: each of the 32 pieces turned up once, and at
most 31 of them taken."""


def longest_game(no_progress_limit: int) -> int:
    """The most plies a game can last when ``no_progress_limit`` plies without a flip or a
    capture draw it: that many plies before each flip or capture and after the last."""
    return (PROGRESS_EVENTS + 1) * no_progress_limit + PROGRESS_EVENTS


def _parse_count(text: str, field: str, most: int, why: str) -> int:
    """A count field: a whole number from 0 to ``most`` (``why``: what bounds it)."""
    if not (text.isascii() and text.isdigit()):
        raise PositionError(f"{field}: expected a whole number >= 0, got {text!r}")
    if len(text) > len(str(most)) or int(text) > most:
        shown = text if len(text) <= 24 else text[:21] + "..."
        raise PositionError(f"{field}: {shown} is more than {most} ({why})")
    return int(text)


def parse_position(text: str, rules: RuleSet | None = None) -> Position:
    """Parse a position string; PositionError names the bad field and why. Its counts are
    bounded by ``rules``' no-progress limit (without rules, by the longest a rule set may
    have)."""
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
    if len(pool_text) != NUM_PIECES or not (pool_text.isascii() and pool_text.isdigit()):
        raise PositionError(
            f"pool: expected {NUM_PIECES} digits (face-down counts of {PIECE_LETTERS}), "
            f"got {pool_text!r}"
        )
    pool = [int(c) for c in pool_text]
    limit = MAX_NO_PROGRESS_LIMIT if rules is None else rules.no_progress_limit
    whose = "any rule set's" if rules is None else f"the rule set {rules.name}'s"
    no_progress, ply = 0, 0
    if len(fields) > 3:
        why = f"{whose} no-progress limit: that many plies without a flip or capture draw"
        no_progress = _parse_count(fields[3], "no-progress plies", limit, why)
    if len(fields) > 4:
        why = f"the longest game under {whose} no-progress limit of {limit}"
        ply = _parse_count(fields[4], "ply number", longest_game(limit), why)
    check_consistency(board, pool, side)
    return Position(board, pool, side, no_progress, ply)


def check_consistency(board: list[SquareState], pool: list[int], side: Colour) -> None:
    """Refuse a board and pool that no game could reach, and a side to move before the
    first flip has decided the colours."""
    if board.count(EMPTY) == NUM_SQUARES:
        raise PositionError("board: every square is empty; a game always has a piece on it")
    hidden = board.count(HIDDEN)
    if sum(pool) != hidden:
        raise PositionError(
            f"pool: counts add up to {sum(pool)} but the board has {hidden} face-down squares"
        )
    for piece in range(NUM_PIECES):
        on_board = board.count(piece)
        if on_board + pool[piece] > FULL_POOL[piece]:
            raise PositionError(
                f"pool: {on_board} face-up and {pool[piece]} face-down "
                f"{PIECE_LETTERS[piece]!r} is more than a set has ({FULL_POOL[piece]})"
            )
    face_up = sum(1 for state in board if is_piece(state))
    if side == UNDECIDED and face_up:
        raise PositionError(
            f"side: '-' (colours undecided) but {face_up} pieces are face up; "
            "colours are decided by the first flip"
        )
    if side != UNDECIDED and not face_up:
        raise PositionError(
            f"side: {SIDE_LETTERS[side]!r} to move but no piece is face up; the side to move "
            "is known only after the first flip: use '-'"
        )
