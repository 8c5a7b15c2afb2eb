"""Iterative-deepening alpha-beta search with chance nodes for flips.

The tree alternates the side to move's choices with chance nodes: a flip's value
is the expectation, weighted by the face-down pool, over the piece types it may
reveal (expectimax), searched with Star1 windows so chance nodes still cut. Child
values at chance nodes are clamped to ``CHANCE_BOUND``, the bound Star1 needs.
A flip costs ``1 + FLIP_REDUCTION`` plies of depth, and below the root only
flips that interact with a face-up piece at once (a neighbour, or a cannon jump
over one screen) are searched, plus one of the others standing for them all;
where flips are not searched (near the horizon) the side to move may stand pat on
the static evaluation instead, as a flip is nearly always available.

Positions are kept in a transposition table (see ``transposition``). Moves are
ordered TT move, captures by MVV-LVA, killer moves, quiet moves by history, flips;
leaves are resolved by a quiescence search over captures. Draw rules: a position
repeating one since the last flip or capture (in the game or along the search path)
scores as a draw, a little below 0 for the side the search plays for
(``CONTEMPT``), so that a side that is ahead or level avoids it; the no-progress
limit scores as a draw and the evaluation fades towards 0 as it approaches (see
``evaluation``).
"""

import random
import time
from dataclasses import dataclass
from typing import Final

from .errors import MoveError
from .eval_params import DEFAULT_PARAMS, EvalParams
from .evaluation import Evaluator, base_values
from .movegen import generate_captures, generate_moves, jump_targets
from .moves import SQUARE_BITS, Move, flip_move, is_flip, move_from, move_to
from .pieces import BLACK, EMPTY, NUM_PIECES, RED, kind_of
from .position import Position
from .rules import RuleSet
from .squares import NEIGHBOUR_MASKS, NUM_SQUARES, Bitboard, Square
from .transposition import (
    EXACT,
    LOWER,
    MATE,
    MATE_THRESHOLD,
    POOL_KEYS,
    TT_MAX_ENTRIES,
    UPPER,
    from_tt,
    pool_key,
    to_tt,
)

INFINITY: Final = 1e12
CHANCE_BOUND: Final = 1_000.0
"""Child values at chance nodes are clamped to this, a bound on non-terminal scores."""
FLIP_REDUCTION: Final = 1
FLIP_MIN_DEPTH: Final = 2
"""Below the root, flips are searched only with at least this much depth left."""
MAX_DEPTH: Final = 64
TIME_CHECK_MASK: Final = 31
"""The clock is read every 32 nodes."""
NEXT_ITERATION_FRACTION: Final = 0.5
"""No new iteration starts once this fraction of the budget is spent."""
CONTEMPT: Final = 2.0
"""A draw scores this much below 0 for the side the search plays for."""

NO_MOVE: Final[Move] = -1
MOVE_CODES: Final = 1 << (2 * SQUARE_BITS)
"""Size of the move-indexed history table (every from/to pair)."""
MVV_WEIGHT: Final = 64
"""MVV-LVA: the victim's value counts this many times the attacker's."""


class SearchTimeout(Exception):
    """The deadline or node limit was reached inside the search."""


@dataclass(frozen=True, slots=True)
class SearchResult:
    """The outcome of one search."""

    move: Move
    score: float
    depth: int
    nodes: int
    seconds: float


class Searcher:
    """The search machinery for one rule set; keeps its tables between searches."""

    def __init__(self, rules: RuleSet, params: EvalParams = DEFAULT_PARAMS) -> None:
        self.rules = rules
        self.params = params
        self.evaluator = Evaluator(rules, params)
        self.values = base_values(rules, params)
        self.jump = rules.cannon_capture == "jump"
        self.limit = rules.no_progress_limit
        self.tt: dict[int, tuple[int, int, float, Move]] = {}
        self.history = [0] * MOVE_CODES
        self.killers = [[NO_MOVE, NO_MOVE] for _ in range(MAX_DEPTH * 4)]
        self.pos = Position.opening()
        self.rep: set[int] = set()
        self.pool_key = 0
        self.nodes = 0
        self.deadline = INFINITY
        self.max_nodes: int | None = None
        self.draw_scores = (0.0, 0.0)

    # -- root ------------------------------------------------------------------------

    def search(
        self,
        pos: Position,
        rng: random.Random,
        *,
        max_depth: int = MAX_DEPTH,
        seconds: float | None = None,
        max_nodes: int | None = None,
        seen: set[int] | None = None,
    ) -> SearchResult:
        """Best move for the side to move of ``pos`` (colours decided; ``pos`` is not kept).

        ``seen`` holds the hashes of the positions since the last flip or capture;
        the search stops at ``max_depth``, after ``seconds`` or after ``max_nodes``.
        """
        start = time.perf_counter()
        self._reset(pos, None if seconds is None else start + seconds, max_nodes, seen)
        moves = generate_moves(self.pos, self.rules)
        if not moves:
            raise MoveError("no legal move to choose from: the side to move has none")
        flips, groups = self._flip_choices(rng)
        root = [m for m in moves if not is_flip(m)] + flips
        rng.shuffle(root)
        root.sort(key=self._root_order)
        best_move, best_score, depth_done = self._deepen(root, max_depth, seconds, start)
        if best_move in groups:
            best_move = rng.choice(groups[best_move])
        return SearchResult(
            best_move, best_score, depth_done, self.nodes, time.perf_counter() - start
        )

    def _reset(
        self, pos: Position, deadline: float | None, max_nodes: int | None, seen: set[int] | None
    ) -> None:
        """Set the limits and the tables up for a new search from ``pos``."""
        self.deadline = INFINITY if deadline is None else deadline
        self.max_nodes = max_nodes
        self.pos = pos.copy()
        self.rep = set(seen) if seen else {pos.hash}
        self.pool_key = pool_key(pos.pool)
        self.nodes = 0
        self.draw_scores = (-CONTEMPT, CONTEMPT) if pos.side == RED else (CONTEMPT, -CONTEMPT)
        if len(self.tt) > TT_MAX_ENTRIES:
            self.tt.clear()
        self.history = [h >> 2 for h in self.history]
        self.killers = [[NO_MOVE, NO_MOVE] for _ in range(MAX_DEPTH * 4)]

    def _deepen(
        self, root: list[Move], max_depth: int, seconds: float | None, start: float
    ) -> tuple[Move, float, int]:
        """Iterative deepening over the root moves, reordered by score after each
        iteration: the best move, its score, and the last depth completed."""
        best_move = root[0]
        best_score = -INFINITY
        depth_done = 0
        for depth in range(1, max_depth + 1):
            scores: dict[Move, float] = {}
            iteration_best = NO_MOVE
            alpha = -INFINITY
            try:
                for move in root:
                    score = self._root_child(move, depth, alpha)
                    scores[move] = score
                    if score > alpha:
                        alpha = score
                        iteration_best = move
            except SearchTimeout:
                if iteration_best != NO_MOVE:
                    best_move, best_score = iteration_best, alpha
                break
            best_move, best_score, depth_done = iteration_best, alpha, depth
            root.sort(key=lambda m: -scores[m])
            if abs(best_score) > MATE_THRESHOLD or len(root) == 1:
                break
            elapsed = time.perf_counter() - start
            if seconds is not None and elapsed > seconds * NEXT_ITERATION_FRACTION:
                break
        return best_move, best_score, depth_done

    def _root_order(self, move: Move) -> float:
        """Captures by MVV-LVA, then quiet moves, then flips."""
        if is_flip(move):
            return 1.0
        board = self.pos.board
        attacker, victim = board[move_from(move)], board[move_to(move)]
        if victim == EMPTY:
            return 0.0
        return self.values[kind_of(attacker)] - self.values[kind_of(victim)] * MVV_WEIGHT

    def _root_child(self, move: Move, depth: int, alpha: float) -> float:
        if is_flip(move):
            return self._chance(move_from(move), depth, alpha, INFINITY, 0)
        return self._child_move(move, depth - 1, alpha, INFINITY, 0)

    def _flip_choices(self, rng: random.Random) -> tuple[list[Move], dict[Move, list[Move]]]:
        """Root flips: every interacting square, and one square standing for the rest."""
        interacting, quiet = self._split_flips()
        flips = [flip_move(square) for square in interacting]
        groups: dict[Move, list[Move]] = {}
        if quiet:
            representative = flip_move(quiet[0])
            flips.append(representative)
            groups[representative] = [flip_move(square) for square in quiet]
        return flips, groups

    def _split_flips(self) -> tuple[list[Square], list[Square]]:
        """Face-down squares split into those interacting with a face-up piece and the rest."""
        pos = self.pos
        face_up = pos.colour_bb[RED] | pos.colour_bb[BLACK]
        empty = pos.empty
        hidden = pos.hidden
        interacting: list[Square] = []
        quiet: list[Square] = []
        for square in range(NUM_SQUARES):
            if not hidden >> square & 1:
                continue
            if NEIGHBOUR_MASKS[square] & face_up or (
                self.jump and face_up and self._jump_contact(square, empty, face_up)
            ):
                interacting.append(square)
            else:
                quiet.append(square)
        return interacting, quiet

    @staticmethod
    def _jump_contact(square: Square, empty: Bitboard, face_up: Bitboard) -> bool:
        """Whether a face-up piece stands one screen away from ``square`` on a line."""
        return bool(jump_targets(square, ~empty) & face_up)

    # -- interior --------------------------------------------------------------------
    # Per-node code: move and piece codes are read with raw ``>> 5``, ``& 31``, ``% 7``
    # and ``* 33`` (see ``moves``/``pieces``), as a function call per move costs
    # measurably in CPython's inner loops.

    def _tick(self) -> None:
        self.nodes += 1
        if not self.nodes & TIME_CHECK_MASK and (
            time.perf_counter() > self.deadline
            or (self.max_nodes is not None and self.nodes >= self.max_nodes)
        ):
            raise SearchTimeout

    def _child_move(self, move: Move, depth: int, alpha: float, beta: float, ply: int) -> float:
        """Value of a move or capture for the side making it."""
        pos = self.pos
        capture = pos.board[move & 31] != EMPTY
        pos.make_move(move)
        if capture:
            saved = self.rep
            self.rep = {pos.hash}
            score = -self._search(depth, -beta, -alpha, ply + 1)
            self.rep = saved
        else:
            key = pos.hash
            if key in self.rep:
                score = self.draw_scores[pos.side ^ 1]
            else:
                self.rep.add(key)
                score = -self._search(depth, -beta, -alpha, ply + 1)
                self.rep.discard(key)
        pos.unmake()
        return score

    def _chance(self, square: Square, depth: int, alpha: float, beta: float, ply: int) -> float:
        """Expected value of flipping ``square`` for the side flipping (Star1 bounds)."""
        pos = self.pos
        pool = pos.pool
        total = pos.hidden.bit_count()
        child_depth = depth - 1 - FLIP_REDUCTION
        saved_rep = self.rep
        saved_key = self.pool_key
        acc = 0.0
        rest = 1.0
        result: float | None = None
        for piece in range(NUM_PIECES):
            count = pool[piece]
            if not count:
                continue
            p = count / total
            rest -= p
            if rest < 1e-9:
                rest = 0.0
            low = (alpha - acc - CHANCE_BOUND * rest) / p
            high = (beta - acc + CHANCE_BOUND * rest) / p
            self.pool_key = saved_key ^ POOL_KEYS[piece][count] ^ POOL_KEYS[piece][count - 1]
            pos.make_flip(square, piece)
            self.rep = {pos.hash}
            value = -self._search(child_depth, -high, -low, ply + 1)
            pos.unmake()
            if value > CHANCE_BOUND:
                value = CHANCE_BOUND
            elif value < -CHANCE_BOUND:
                value = -CHANCE_BOUND
            if value <= low:
                result = acc + p * value + CHANCE_BOUND * rest
                break
            if value >= high:
                result = acc + p * value - CHANCE_BOUND * rest
                break
            acc += p * value
        self.rep = saved_rep
        self.pool_key = saved_key
        return acc if result is None else result

    def _search(self, depth: int, alpha: float, beta: float, ply: int) -> float:
        """Negamax value of the current position for the side to move."""
        pos = self.pos
        if pos.no_progress >= self.limit:
            return self.draw_scores[pos.side]
        if depth <= 0:
            return self._quiesce(alpha, beta, ply)
        self._tick()
        key = pos.hash ^ self.pool_key
        entry = self.tt.get(key)
        tt_move = NO_MOVE
        if entry is not None:
            entry_depth, flag, stored, tt_move = entry
            if entry_depth >= depth:
                score = from_tt(stored, ply)
                if (
                    flag == EXACT
                    or (flag == LOWER and score >= beta)
                    or (flag == UPPER and score <= alpha)
                ):
                    return score
        moves = generate_moves(pos, self.rules)
        if not moves:
            return -MATE + ply
        alpha_start = alpha
        best = -INFINITY
        best_move = NO_MOVE
        with_flips = depth >= FLIP_MIN_DEPTH
        if pos.hidden and not with_flips:
            best = self.evaluator.evaluate(pos)
            if best >= beta:
                return best
            if best > alpha:
                alpha = best
        board = pos.board
        for move in self._ordered(moves, tt_move, ply, with_flips):
            frm = move >> 5
            to = move & 31
            if frm == to:
                score = self._chance(frm, depth, alpha, beta, ply)
            else:
                score = self._child_move(move, depth - 1, alpha, beta, ply)
            if score > best:
                best = score
                best_move = move
                if score > alpha:
                    alpha = score
                    if alpha >= beta:
                        if frm != to and board[to] == EMPTY:
                            self._remember_cutoff(move, depth, ply)
                        break
        if best <= alpha_start:
            flag = UPPER
        elif best >= beta:
            flag = LOWER
        else:
            flag = EXACT
        self.tt[key] = (depth, flag, to_tt(best, ply), best_move)
        return best

    def _remember_cutoff(self, move: Move, depth: int, ply: int) -> None:
        """A quiet move cut off: make it the first killer at ``ply``, raise its history."""
        killers = self.killers[ply]
        if killers[0] != move:
            killers[1] = killers[0]
            killers[0] = move
        self.history[move] += depth * depth

    def _ordered(self, moves: list[Move], tt_move: Move, ply: int, with_flips: bool) -> list[Move]:
        """TT move, captures by MVV-LVA, killers, quiet moves by history, then flips."""
        board = self.pos.board
        values = self.values
        history = self.history
        killers = self.killers[ply]
        mvv = MVV_WEIGHT
        captures: list[tuple[float, Move]] = []
        quiet: list[tuple[int, Move]] = []
        for move in moves:
            frm = move >> 5
            to = move & 31
            if frm == to:
                break
            if move == tt_move:
                continue
            target = board[to]
            if target != EMPTY:
                captures.append((values[board[frm] % 7] - values[target % 7] * mvv, move))
            elif move == killers[0] or move == killers[1]:
                quiet.append((-(1 << 30), move))
            else:
                quiet.append((-history[move], move))
        captures.sort()
        quiet.sort()
        ordered = [move for _, move in captures]
        ordered.extend(move for _, move in quiet)
        if tt_move != NO_MOVE:
            ordered.insert(0, tt_move)
        if with_flips and self.pos.hidden:
            interacting, others = self._split_flips()
            if others:
                interacting.append(others[0])
            ordered.extend(square * 33 for square in interacting if square * 33 != tt_move)
        return ordered

    def _quiesce(self, alpha: float, beta: float, ply: int) -> float:
        """Stand pat on the evaluation or resolve captures."""
        self._tick()
        pos = self.pos
        side = pos.side
        if not pos.colour_bb[side] and not pos.hidden:
            return -MATE + ply
        best = self.evaluator.evaluate(pos)
        if best >= beta:
            return best
        if best > alpha:
            alpha = best
        captures = self._captures()
        if not captures:
            return best
        if len(captures) > 1:
            board = pos.board
            values = self.values
            mvv = MVV_WEIGHT
            captures.sort(key=lambda m: values[board[m >> 5] % 7] - values[board[m & 31] % 7] * mvv)
        for move in captures:
            pos.make_move(move)
            score = -self._quiesce(-beta, -alpha, ply + 1)
            pos.unmake()
            if score > best:
                best = score
                if score > alpha:
                    alpha = score
                    if alpha >= beta:
                        break
        return best

    def _captures(self) -> list[Move]:
        """The captures of the side to move."""
        return generate_captures(self.pos, self.rules)
