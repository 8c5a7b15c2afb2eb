"""A plain second implementation of the banqi rules, used to check the fast one.

Everything here is written straight from the rules text: the board is a list of
32 letters (``a1`` is index 0, ``d8`` index 31), ``X`` face down, ``-`` empty,
``KGMRNCP`` red and ``kgmrncp`` black. A move is a pair ``(from, to)`` of square
indices; a flip is ``(square, square)``; a move onto a face-down piece (where the rule
set allows it) is a pair whose ``to`` is face down. Nothing is imported from the engine.
"""

from dataclasses import dataclass

PIECE_ORDER = "KGMRNCPkgmrncp"
"""The order of the pool field of a position string."""

FILES = "abcd"

PlainRules = tuple[str, str, str, bool]
"""Capture order (high to low), cannon capture, cannon move, and whether a piece may
move onto a face-down piece."""

PLAIN_PRESETS: dict[str, PlainRules] = {
    "olympiad": ("KGMRNCP", "jump", "step", False),
    "hong-kong": ("KRNCGMP", "step", "step", False),
    "taiwan-sliding-cannon": ("KGMRNCP", "jump", "slide", False),
    "casual": ("KGMRNCP", "jump", "step", False),
    "hong-kong-forum": ("KRNCGMP", "step", "step", True),
}
"""The rules of each preset."""

DIRECTIONS = ((1, 0), (-1, 0), (0, 1), (0, -1))
"""(file step, rank step) of the four orthogonal directions."""


@dataclass(frozen=True)
class PlainState:
    """A board of 32 letters, the side to move ('r', 'b' or '-') and the face-down pool."""

    board: tuple[str, ...]
    side: str
    pool: tuple[int, ...]


def square_index(file: int, rank: int) -> int:
    """Index of the square on file 0..3 and rank 0..7."""
    return rank * 4 + file


def square_text(square: int) -> str:
    """Name like ``b6`` of a square index."""
    return FILES[square % 4] + str(square // 4 + 1)


def on_board(file: int, rank: int) -> bool:
    """Whether file and rank are inside the 4 by 8 board."""
    return 0 <= file <= 3 and 0 <= rank <= 7


def parse_state(text: str) -> PlainState:
    """Read board, side and pool from a position string (assumed well formed)."""
    parts = text.split(" ")
    rows = parts[0].split("/")
    assert len(rows) == 8
    board = ["-"] * 32
    for row_number, row in enumerate(rows):
        rank = 7 - row_number
        assert len(row) == 4
        for file in range(4):
            board[square_index(file, rank)] = row[file]
    side = parts[1]
    assert side in ("r", "b", "-")
    pool = tuple(int(digit) for digit in parts[2])
    assert len(pool) == 14
    return PlainState(tuple(board), side, pool)


def board_text(board: tuple[str, ...]) -> str:
    """The board field of a position string: rank 8 first, files a to d."""
    rows = []
    for rank in range(7, -1, -1):
        rows.append("".join(board[square_index(file, rank)] for file in range(4)))
    return "/".join(rows)


def state_text(state: PlainState) -> str:
    """Board, side and pool fields of a position string."""
    return f"{board_text(state.board)} {state.side} {''.join(str(n) for n in state.pool)}"


def colour_of(letter: str) -> str:
    """'r' for an upper-case letter, 'b' for a lower-case one."""
    return "r" if letter.isupper() else "b"


def is_face_up_piece(letter: str) -> bool:
    """Whether the square shows a piece (not face down, not empty)."""
    return letter not in ("X", "-")


def can_take_by_step(attacker: str, target: str, order: str) -> bool:
    """Whether a piece of kind ``attacker`` may take a neighbouring enemy ``target``.

    Both are upper-case kind letters. Cannons that jump are handled elsewhere.
    """
    if attacker == "K" and target == "P":
        return False
    if attacker == "P" and target == "K":
        return True
    return order.index(attacker) <= order.index(target)


def legal_moves(
    state: PlainState,
    order: str,
    cannon_capture: str,
    cannon_move: str,
    onto_face_down: bool = False,
) -> list[tuple[int, int]]:
    """Every legal action of the side to move, as (from, to) pairs; flips are (sq, sq).

    With ``onto_face_down``, a face-up piece may also step onto a neighbouring
    face-down piece, unless it is a cannon that captures only by jumping.
    """
    board = state.board
    moves: list[tuple[int, int]] = []
    for square in range(32):
        if board[square] == "X":
            moves.append((square, square))
    if state.side == "-":
        return moves
    for square in range(32):
        letter = board[square]
        if not is_face_up_piece(letter) or colour_of(letter) != state.side:
            continue
        kind = letter.upper()
        file = square % 4
        rank = square // 4
        for file_step, rank_step in DIRECTIONS:
            near_file = file + file_step
            near_rank = rank + rank_step
            if not on_board(near_file, near_rank):
                continue
            near = square_index(near_file, near_rank)
            target = board[near]
            if target == "-":
                moves.append((square, near))
                if kind == "C" and cannon_move == "slide":
                    far_file = near_file + file_step
                    far_rank = near_rank + rank_step
                    while on_board(far_file, far_rank):
                        far = square_index(far_file, far_rank)
                        if board[far] != "-":
                            break
                        moves.append((square, far))
                        far_file += file_step
                        far_rank += rank_step
            elif (
                is_face_up_piece(target)
                and colour_of(target) != state.side
                and not (kind == "C" and cannon_capture == "jump")
                and can_take_by_step(kind, target.upper(), order)
            ) or (
                target == "X" and onto_face_down and not (kind == "C" and cannon_capture == "jump")
            ):
                moves.append((square, near))
            if kind == "C" and cannon_capture == "jump":
                jump = jump_target(board, file, rank, file_step, rank_step)
                if jump is not None:
                    target = board[jump]
                    if is_face_up_piece(target) and colour_of(target) != state.side:
                        moves.append((square, jump))
    return moves


def jump_target(
    board: tuple[str, ...], file: int, rank: int, file_step: int, rank_step: int
) -> int | None:
    """The square a cannon on (file, rank) could land on by jumping in one direction.

    That is the first occupied square after the first occupied square (the screen),
    or None if there is no such square.
    """
    seen_screen = False
    file += file_step
    rank += rank_step
    while on_board(file, rank):
        square = square_index(file, rank)
        if board[square] != "-":
            if seen_screen:
                return square
            seen_screen = True
        file += file_step
        rank += rank_step
    return None


def after_move(state: PlainState, move: tuple[int, int]) -> PlainState:
    """The state after a move or capture (not a flip)."""
    frm, to = move
    board = list(state.board)
    board[to] = board[frm]
    board[frm] = "-"
    other = "b" if state.side == "r" else "r"
    return PlainState(tuple(board), other, state.pool)


def after_flip(state: PlainState, square: int, letter: str) -> PlainState:
    """The state after flipping ``square`` and finding ``letter`` there."""
    board = list(state.board)
    board[square] = letter
    pool = list(state.pool)
    pool[PIECE_ORDER.index(letter)] -= 1
    if state.side == "-":
        other = "b" if colour_of(letter) == "r" else "r"
    else:
        other = "b" if state.side == "r" else "r"
    return PlainState(tuple(board), other, tuple(pool))


def after_reveal(state: PlainState, move: tuple[int, int], letter: str, order: str) -> PlainState:
    """The state after moving onto the face-down ``to`` of ``move`` and finding ``letter``.

    An enemy the mover takes by a step is captured and the mover takes its square;
    otherwise the mover stays and the letter stays face up on ``to``.
    """
    frm, to = move
    mover = state.board[frm]
    board = list(state.board)
    if colour_of(letter) != colour_of(mover) and can_take_by_step(
        mover.upper(), letter.upper(), order
    ):
        board[to] = mover
        board[frm] = "-"
    else:
        board[to] = letter
    pool = list(state.pool)
    pool[PIECE_ORDER.index(letter)] -= 1
    other = "b" if state.side == "r" else "r"
    return PlainState(tuple(board), other, tuple(pool))


def letters_face_down(state: PlainState) -> list[str]:
    """Each distinct piece letter that is still face down somewhere."""
    return [PIECE_ORDER[i] for i in range(14) if state.pool[i] > 0]


def perft(
    state: PlainState,
    depth: int,
    order: str,
    cannon_capture: str,
    cannon_move: str,
    onto_face_down: bool = False,
) -> int:
    """Leaves of the game tree ``depth`` plies below ``state``.

    A flip, and a move onto a face-down piece, has one child per distinct piece letter
    face down; draw rules are ignored. At depth 1 the children are counted from the
    move list instead of being built.
    """
    if depth == 0:
        return 1
    rules = (order, cannon_capture, cannon_move, onto_face_down)
    moves = legal_moves(state, *rules)
    hidden_letters = letters_face_down(state)
    if depth == 1:
        # flips and moves onto face-down pieces: both go to a face-down square
        turning_up = sum(1 for _, to in moves if state.board[to] == "X")
        return len(moves) - turning_up + turning_up * len(hidden_letters)
    total = 0
    for frm, to in moves:
        if frm == to:
            for letter in hidden_letters:
                total += perft(after_flip(state, frm, letter), depth - 1, *rules)
        elif state.board[to] == "X":
            for letter in hidden_letters:
                total += perft(after_reveal(state, (frm, to), letter, order), depth - 1, *rules)
        else:
            total += perft(after_move(state, (frm, to)), depth - 1, *rules)
    return total


def preset_perft(text: str, depth: int, rules: str = "olympiad") -> int:
    """``perft`` of a position string under a named rule set."""
    return perft(parse_state(text), depth, *PLAIN_PRESETS[rules])
