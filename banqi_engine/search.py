"""Iterative-deepening alpha-beta search with chance nodes for flips.

The tree alternates the side to move's choices with chance nodes: a flip's value
(and, where the rules allow moving onto a face-down piece, such a move's) is the
expectation, weighted by the face-down pool, over the piece types it may reveal
(expectimax), searched with Star1 windows so chance nodes still cut, after a
Star2 probing pass that bounds each outcome from above by one reply of the opponent.
Child values at chance nodes are clamped to ``CHANCE_BOUND``, the bound Star1 needs.
A flip costs ``1 + FLIP_REDUCTION`` plies of depth, and below the root only flips
that interact with a face-up piece at once (a neighbour, or a cannon jump over one
screen) are searched, plus one of the others standing for them all, ranked by a
cheap expected gain and capped (``search_flips``); where flips are not searched
(near the horizon) the side to move may stand pat on the static evaluation instead,
as a flip is nearly always available.

Positions are kept in a transposition table (see ``transposition``). Moves are
ordered TT move, captures by MVV-LVA, killer moves, quiet moves by history, moves onto
face-down pieces, flips;
moves after the first are searched with a null window (PVS), late quiet moves with
less depth (LMR); a node whose side could pass and still be above beta is cut
(null move, only while face-down pieces remain); a node where the side to move's
most valuable piece can be captured gets one more ply (bounded along a path). The
root uses aspiration windows. Each feature is switched by a ``SearchConfig``.
Leaves are resolved by a quiescence search over captures. Draw rules: a position
repeating one since the last flip or capture (in the game or along the search path)
scores as a draw, a little below 0 for the side the search plays for
(the parameter ``contempt``), so that a side that is ahead or level avoids it; the no-progress
limit scores as a draw and the evaluation fades towards 0 as it approaches (see
``evaluation``). Where nothing is face down and at most ``MAX_PIECES`` pieces are left,
positions whose endgame table is built score exactly (see ``endgame``).
"""

import random
import time
from array import array
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Final

from cython import compiled

from .endgame import DRAW, LOSS, MAX_PIECES, WIN, EndgameTables
from .errors import MoveError
from .eval_params import DEFAULT_PARAMS, EvalParams
from .evaluation import base_values
from .movegen import MOVE_BUFFER, generate_moves
from .moves import SQUARE_BITS, Move, flip_move, is_flip, move_from, move_to
from .pieces import BLACK, EMPTY, HIDDEN, NUM_KINDS, NUM_PIECES, RED, kind_of
from .position import SIDE_KEYS
from .rules import RuleSet, reveal_captures
from .search_config import DEFAULT_CONFIG, SearchConfig
from .squares import Bitboard
from .time_manager import IterationControl, TimeBudget
from .transposition import MATE, MATE_THRESHOLD, pool_key

if not compiled:  # the compiled build cimports these in search.pxd (C calls)
    from .bits import popcount
    from .evaluation import Evaluator
    from .movegen import generate_into
    from .movegen_tables import rule_tables
    from .position import BITS, Position
    from .search_flips import FlipChoice
    from .transposition import (
        EXACT,
        LOWER,
        POOL_STEPS,
        UPPER,
        TranspositionTable,
        from_tt,
        to_tt,
    )

INFINITY: Final = 1e12
CHANCE_BOUND: Final = 1_000.0
"""Child values at chance nodes are clamped to this, a bound on non-terminal scores."""
FLIP_REDUCTION: Final = 1
MAX_DEPTH: Final = 64
TIME_CHECK_MASK: Final = 31
"""The clock is read every 32 nodes."""

NULL_WINDOW: Final = 1e-6
"""Width of a null window (scores are floats)."""
ASPIRATION_MIN_DEPTH: Final = 3
LMR_MIN_DEPTH: Final = 3
LMR_CHANCE_MIN_DEPTH: Final = 5
"""Right below a chance node, moves are reduced only with at least this much depth."""
LMR_MIN_INDEX: Final = 3
"""Moves before this place in the order are never reduced."""
LMR_LATE_INDEX: Final = 8
LMR_DEEP: Final = 6
"""Moves from ``LMR_LATE_INDEX`` on are reduced by two plies with this much depth."""
NULL_MIN_DEPTH: Final = 3
NULL_REDUCTION: Final = 2
MAX_EXTENSIONS: Final = 2
"""Threat extensions along one path, at most."""
EXTENSION_MAX_DEPTH: Final = 2
"""Only nodes this near the horizon are extended (deeper ones see the threat anyway); an
extended node searches flips only if it would have without the extension."""
EXTENSION_SPACING: Final = 3
"""The n-th extension on a path needs at least ``n * EXTENSION_SPACING`` plies before it."""
STAR2_MIN_DEPTH: Final = 2
"""Chance nodes probe (Star2) only when their outcomes have this much depth."""
TABLE_WIN: Final = 800.0
"""Score of a won endgame-table position, less ``TABLE_PLY_COST`` per ply to the next
capture (the faster conversion first); above any evaluation, below ``CHANCE_BOUND``."""
TABLE_PLY_COST: Final = 0.5
TABLE_DRAW_SHARE: Final = 0.01
"""A drawn table position scores this share of its evaluation, without contempt: the side
ahead keeps a drawn ending going (the other side may still go wrong) rather than repeat."""
TABLE_MAX_PLIES: Final = 400

NORMAL: Final = 0
AFTER_NULL: Final = 1
AFTER_CHANCE: Final = 2
"""What led to a node: a move, a null move, or a flip's outcome."""
SIDE_SWAP: Final = SIDE_KEYS[RED] ^ SIDE_KEYS[BLACK]

NO_MOVE: Final[Move] = -1
MOVE_CODES: Final = 1 << (2 * SQUARE_BITS)
"""Size of the move-indexed history table (every from/to pair)."""
MAX_PLY: Final = MAX_DEPTH * 4
"""Plies below the root the killer table covers (``search.pxd`` sizes its arrays so)."""
NO_NODE_LIMIT: Final = -1
_NO_HISTORY: Final = (0,) * MOVE_CODES
_NO_KILLERS: Final = (NO_MOVE,) * (2 * MAX_PLY)
MVV_WEIGHT: Final = 64
"""MVV-LVA: the victim's value counts this many times the attacker's."""
KILLER_ORDER: Final = -(1 << 30)
"""The order key of a killer move among quiet moves (before any history)."""


def _insert_sorted(
    out: list[Move], keys: list[float], first: int, end: int, move: Move, key: float
) -> None:
    """Insert ``move`` with its order ``key`` into ``out[first:end]``, kept ascending by key
    and, between equal keys, by move (``keys`` beside it; both have room at ``end``)."""
    slot = end
    while slot > first and (
        keys[slot - 1] > key or (keys[slot - 1] == key and out[slot - 1] > move)
    ):
        out[slot] = out[slot - 1]
        keys[slot] = keys[slot - 1]
        slot -= 1
    out[slot] = move
    keys[slot] = key


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

    def __init__(
        self,
        rules: RuleSet,
        params: EvalParams = DEFAULT_PARAMS,
        config: SearchConfig = DEFAULT_CONFIG,
    ) -> None:
        self.rules = rules
        self.params = params
        self.config = config
        self.evaluator = Evaluator(rules, params)
        self.rule_tables = rule_tables(rules)
        values = base_values(rules, params)
        self.base = values
        self.values = list(values)
        """``base`` for the hot loops (a C array in the compiled build)."""
        takes = reveal_captures(rules)
        self.takes = [
            takes[mover][shown] for mover in range(NUM_PIECES) for shown in range(NUM_PIECES)
        ]
        """``reveal_captures`` flattened, mover * 14 + revealed piece."""
        self.kinds_by_value = sorted(range(NUM_KINDS), key=lambda k: -values[k])
        self.limit = rules.no_progress_limit
        self.contempt = params.contempt
        """A draw scores this much below 0 for the side the search plays for."""
        self.aspiration_window = params.aspiration_window
        """Half-width of the root's aspiration window (a Pawn is 2)."""
        self.use_tt = config.transposition
        self.want_threats = config.threat_extension or config.lmr or config.null_move
        self.pvs = config.pvs
        self.lmr = config.lmr
        self.null_move = config.null_move
        self.threat_extension = config.threat_extension
        self.star2 = config.star2
        self.flip_ordering = config.flip_ordering
        self.flip_min_depth = config.flip_min_depth
        self.tables = EndgameTables(rules) if config.endgame_tables else None
        self.tt = TranspositionTable()
        self.flips = FlipChoice(rules, values, config.max_flips)
        self.history = list(_NO_HISTORY)
        self.killers = list(_NO_KILLERS)
        """Two killer moves per ply, ply * 2 and ply * 2 + 1."""
        self.pos = Position.opening()
        self.rep_keys = array("q")
        """The hashes of the positions since the last flip or capture, in the game and
        along the search path (a stack; the current stretch from ``rep_base`` on)."""
        self.rep_base = 0
        self.rep_top = 0
        self.pool_key = 0
        self.nodes = 0
        self.deadline = INFINITY
        self.max_nodes = NO_NODE_LIMIT
        self.draw_scores = [0.0, 0.0]
        self.partial = (NO_MOVE, -INFINITY)
        """The best root move of the unfinished iteration and its score."""

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
        budget: TimeBudget | None = None,
    ) -> SearchResult:
        """Best move for the side to move of ``pos`` (colours decided; ``pos`` is not kept).

        ``seen`` holds the hashes of the positions since the last flip or capture;
        the search stops at ``max_depth`` (at most ``MAX_DEPTH``, which the per-ply tables
        are sized for), after ``max_nodes``, and on time: ``budget`` (soft target and hard
        limit), or ``seconds`` as a budget all of which may be spent.
        """
        start = time.perf_counter()
        max_depth = min(max_depth, MAX_DEPTH)
        if budget is None and seconds is not None:
            budget = TimeBudget.fixed(seconds)
        control = None if budget is None else IterationControl(budget, start)
        self._reset(pos, None if control is None else control.deadline, max_nodes, seen)
        moves = generate_moves(self.pos, self.rules)
        if not moves:
            raise MoveError("no legal move to choose from: the side to move has none")
        flips, groups = self._flip_choices(rng)
        root = [m for m in moves if not is_flip(m)] + flips
        root = self._table_root(root)
        rng.shuffle(root)
        root.sort(key=self._root_order)
        best_move, best_score, depth_done = self._deepen(root, max_depth, control)
        if best_move in groups:
            best_move = rng.choice(groups[best_move])
        return SearchResult(
            best_move, best_score, depth_done, self.nodes, time.perf_counter() - start
        )

    def _table_root(self, root: list[Move]) -> list[Move]:
        """Where a table knows the root is won or drawn, only the moves that keep that
        (a lost root keeps every move: a repetition the table does not see may still draw)."""
        if self.tables is None or self.pos.hidden:
            return root
        value = self.tables.probe(self.pos)
        if value is None or value.outcome == LOSS:
            return root
        keep = self.tables.best_moves(self.pos)
        kept = [move for move in root if keep is not None and move in keep]
        return kept or root

    def _reset(
        self, pos: Position, deadline: float | None, max_nodes: int | None, seen: set[int] | None
    ) -> None:
        """Set the limits and the tables up for a new search from ``pos``."""
        self.deadline = INFINITY if deadline is None else deadline
        self.max_nodes = NO_NODE_LIMIT if max_nodes is None else max_nodes
        self.pos = pos.copy()
        self.reset_repetitions(seen if seen else {pos.hash})
        self.pool_key = pool_key(pos.pool)
        self.nodes = 0
        self.draw_scores[RED] = -self.contempt if pos.side == RED else self.contempt
        self.draw_scores[BLACK] = -self.draw_scores[RED]
        self.flips.trim()
        for move in range(MOVE_CODES):
            self.history[move] >>= 2
        for slot in range(2 * MAX_PLY):
            self.killers[slot] = NO_MOVE

    def reset_repetitions(self, keys: Iterable[int]) -> None:
        """Start the repetition stack over with ``keys``, the hashes of the positions
        since the last flip or capture (room for a search's path on top)."""
        known = list(keys)
        self.rep_keys = array("q", known + [0] * (len(known) + 2 * MAX_PLY))
        self.rep_base = 0
        self.rep_top = len(known)

    def _repeats(self, key: int) -> bool:
        """Whether ``key`` is on the repetition stack's current stretch."""
        for index in range(self.rep_base, self.rep_top):  # noqa: SIM110 (no generator: C loop)
            if self.rep_keys[index] == key:
                return True
        return False

    def _deepen(
        self, root: list[Move], max_depth: int, control: IterationControl | None
    ) -> tuple[Move, float, int]:
        """Iterative deepening over the root moves, reordered by score after each
        iteration: the best move, its score, and the last depth completed."""
        best_move = root[0]
        best_score = -INFINITY
        depth_done = 0
        for depth in range(1, max_depth + 1):
            self.partial = (NO_MOVE, -INFINITY)
            try:
                best_move, best_score, scores = self._iterate(root, depth, best_score)
            except SearchTimeout:
                if self.partial[0] != NO_MOVE:
                    best_move, best_score = self.partial
                break
            depth_done = depth
            root.sort(key=lambda m: -scores.get(m, -INFINITY))
            if abs(best_score) > MATE_THRESHOLD or len(root) == 1:
                break
            if control is not None:
                control.after_iteration(best_move, best_score)
                self.deadline = control.deadline
                if not control.start_next():
                    break
        return best_move, best_score, depth_done

    def _iterate(
        self, root: list[Move], depth: int, previous: float
    ) -> tuple[Move, float, dict[Move, float]]:
        """One iteration, in an aspiration window around ``previous`` when that is on,
        searched again with the window open on the side it failed."""
        alpha, beta = -INFINITY, INFINITY
        if (
            self.config.aspiration
            and depth >= ASPIRATION_MIN_DEPTH
            and abs(previous) < MATE_THRESHOLD
        ):
            alpha, beta = previous - self.aspiration_window, previous + self.aspiration_window
        while True:
            move, score, scores = self._root_window(root, depth, alpha, beta)
            if score <= alpha and alpha > -INFINITY:
                alpha = -INFINITY
            elif score >= beta and beta < INFINITY:
                beta = INFINITY
            else:
                return move, score, scores

    def _root_window(
        self, root: list[Move], depth: int, alpha: float, beta: float
    ) -> tuple[Move, float, dict[Move, float]]:
        """The root moves searched in (alpha, beta): the best, its score, every score."""
        scores: dict[Move, float] = {}
        best_move = root[0]
        best = -INFINITY
        pvs = self.config.pvs
        for index, move in enumerate(root):
            if pvs and index:
                score = self._root_child(move, depth, alpha, alpha + NULL_WINDOW)
                if alpha < score < beta:
                    score = self._root_child(move, depth, alpha, beta)
            else:
                score = self._root_child(move, depth, alpha, beta)
            scores[move] = score
            if score > best:
                best, best_move = score, move
                if score > alpha:
                    alpha = score
                    self.partial = (move, score)
                    if score >= beta:
                        break
        return best_move, best, scores

    def _root_order(self, move: Move) -> float:
        """Captures by MVV-LVA, then quiet moves, then moves onto face-down pieces, then
        flips."""
        if is_flip(move):
            return 1.0
        board = self.pos.board
        attacker, victim = board[move_from(move)], board[move_to(move)]
        if victim == HIDDEN:
            return 0.5
        if victim == EMPTY:
            return 0.0
        return self.values[kind_of(attacker)] - self.values[kind_of(victim)] * MVV_WEIGHT

    def _root_child(self, move: Move, depth: int, alpha: float, beta: float) -> float:
        if self.pos.board[move_to(move)] == HIDDEN:
            return self._chance(move, depth, alpha, beta, 0, 0)
        return self._child_move(move, depth - 1, alpha, beta, 0, 0)

    def _flip_choices(self, rng: random.Random) -> tuple[list[Move], dict[Move, list[Move]]]:
        """Root flips: every interacting square, and one square standing for the rest."""
        interacting, quiet = self.flips.split(self.pos)
        flips = [flip_move(square) for square in interacting]
        groups: dict[Move, list[Move]] = {}
        if quiet:
            representative = flip_move(quiet[0])
            flips.append(representative)
            groups[representative] = [flip_move(square) for square in quiet]
        return flips, groups

    # -- interior --------------------------------------------------------------------
    # Per-node code: move and piece codes are read with raw ``>> 5``, ``& 31``, ``% 7``
    # and ``* 33`` (see ``moves``/``pieces``), as a function call per move costs
    # measurably in CPython's inner loops. ``ext`` counts the threat extensions on the
    # path to a node.

    def _tick(self) -> None:
        self.nodes += 1
        if not self.nodes & TIME_CHECK_MASK and (
            time.perf_counter() > self.deadline
            or (self.max_nodes != NO_NODE_LIMIT and self.nodes >= self.max_nodes)
        ):
            raise SearchTimeout

    def _child_move(
        self, move: Move, depth: int, alpha: float, beta: float, ply: int, ext: int
    ) -> float:
        """Value of a move or capture for the side making it."""
        pos = self.pos
        capture = pos.board[move & 31] != EMPTY
        pos.make_move(move)
        top = self.rep_top
        if capture:
            saved_base = self.rep_base
            self._start_stretch(top)
            score = -self._search(depth, -beta, -alpha, ply + 1, NORMAL, ext)
            self.rep_base = saved_base
        elif self._repeats(pos.hash):
            score = self.draw_scores[pos.side ^ 1]
        else:
            self.rep_keys[top] = pos.hash
            self.rep_top = top + 1
            score = -self._search(depth, -beta, -alpha, ply + 1, NORMAL, ext)
        self.rep_top = top
        pos.unmake()
        return score

    def _start_stretch(self, top: int) -> None:
        """After a flip's outcome, a capture or a move onto a face-down piece: the
        repetition stretch starts over at the position now on the board."""
        self.rep_base = top
        self.rep_keys[top] = self.pos.hash
        self.rep_top = top + 1

    def _make_outcome(self, move: Move, piece: int) -> None:
        """Make the outcome of a flip, or of a move onto a face-down piece, that shows
        ``piece``."""
        frm = move >> 5
        pos = self.pos
        if frm == move & 31:
            pos.make_flip(frm, piece)
        else:
            pos.make_reveal(move, piece, self.takes[pos.board[frm] * 14 + piece])

    def _chance(
        self, move: Move, depth: int, alpha: float, beta: float, ply: int, ext: int
    ) -> float:
        """Expected value of a flip, or of a move onto a face-down piece, for the side
        making it (Star2 probes, then Star1 bounds)."""
        pos = self.pos
        pool = pos.pool
        total = popcount(pos.hidden)
        child_depth = depth - 1 - FLIP_REDUCTION
        saved_base = self.rep_base
        saved_top = self.rep_top
        saved_key = self.pool_key
        bound = CHANCE_BOUND
        uppers: list[float] | None = None
        if self.star2 and child_depth >= STAR2_MIN_DEPTH and alpha > -bound:
            probed, uppers = self._star2_probe(move, child_depth, alpha, ply, ext)
            self.rep_base = saved_base
            self.rep_top = saved_top
            self.pool_key = saved_key
            if probed <= alpha:
                return probed
        acc = 0.0
        rest = 1.0
        if uppers:
            rest_up = 0.0
            for piece in range(NUM_PIECES):
                rest_up += pool[piece] * uppers[piece]
            rest_up /= total
        else:
            rest_up = bound
        have_result = False
        result = 0.0
        for piece in range(NUM_PIECES):
            count = pool[piece]
            if not count:
                continue
            p = count / total
            rest -= p
            if rest < 1e-9:
                rest = 0.0
            if uppers is None:
                rest_up = bound * rest
            else:
                rest_up = rest_up - p * uppers[piece] if rest else 0.0
            low = (alpha - acc - rest_up) / p
            high = (beta - acc + bound * rest) / p
            self.pool_key = saved_key ^ POOL_STEPS[piece * 6 + count]
            self._make_outcome(move, piece)
            self._start_stretch(saved_top)
            value = -self._search(child_depth, -high, -low, ply + 1, AFTER_CHANCE, ext)
            pos.unmake()
            if value > bound:
                value = bound
            elif value < -bound:
                value = -bound
            if value <= low:
                result = acc + p * value + rest_up
                have_result = True
                break
            if value >= high:
                result = acc + p * value - bound * rest
                have_result = True
                break
            acc += p * value
        self.rep_base = saved_base
        self.rep_top = saved_top
        self.pool_key = saved_key
        return result if have_result else acc

    def _star2_probe(
        self, move: Move, child_depth: int, alpha: float, ply: int, ext: int
    ) -> tuple[float, list[float]]:
        """Star2's probing pass over the outcomes of ``move`` (a flip, or a move onto a
        face-down piece): an upper bound on
        each (one reply of the opponent searched), and the expectation of the bounds
        (``CHANCE_BOUND`` for the outcomes not probed). Each outcome is probed against the
        average the outcomes left may reach for the whole to stay at most ``alpha``; the
        pass stops at the first that does not. The caller restores rep and pool key."""
        pos = self.pos
        pool = pos.pool
        total = popcount(pos.hidden)
        saved_key = self.pool_key
        top = self.rep_top
        bound = CHANCE_BOUND
        uppers = [bound] * NUM_PIECES
        acc = 0.0
        rest = 1.0
        for piece in range(NUM_PIECES):
            count = pool[piece]
            if not count:
                continue
            p = count / total
            target = (alpha - acc) / rest
            rest -= p
            if rest < 1e-9:
                rest = 0.0
            if not -bound < target < bound:
                return acc + bound * (rest + p), uppers
            self.pool_key = saved_key ^ POOL_STEPS[piece * 6 + count]
            self._make_outcome(move, piece)
            self._start_stretch(top)
            upper = self._probe_outcome(child_depth, target, ply + 1, ext)
            pos.unmake()
            uppers[piece] = upper
            acc += p * upper
            if upper > target:
                return acc + bound * rest, uppers
        return acc, uppers

    def _probe_outcome(self, depth: int, low: float, ply: int, ext: int) -> float:
        """An upper bound, for the side that flipped, on the value of the current position
        (the other side to move, ``depth`` left): from the table, or from the table's move
        or the best capture searched in a null window at ``low``."""
        pos = self.pos
        bound = CHANCE_BOUND
        probe = NO_MOVE
        if self.use_tt:
            slot = self.tt.find(pos.hash ^ self.pool_key)
            if slot >= 0:
                probe = self.tt.move(slot)
                if self.tt.depth(slot) >= depth and self.tt.flag(slot) != UPPER:
                    return max(-bound, min(bound, -from_tt(self.tt.score(slot), ply)))
        if probe == NO_MOVE:
            if not compiled:
                captures = [0] * MOVE_BUFFER
            count = generate_into(pos, self.rule_tables, False, captures)
            if not count:
                return bound
            board = pos.board
            best_key = INFINITY
            for index in range(count):
                move = captures[index]
                key = (
                    self.values[board[move >> 5] % 7]
                    - self.values[board[move & 31] % 7] * MVV_WEIGHT
                )
                if key < best_key:
                    best_key = key
                    probe = move
        if pos.board[probe & 31] == HIDDEN:
            reply = self._chance(probe, depth, -low - NULL_WINDOW, -low, ply, ext)
        else:
            reply = self._child_move(probe, depth - 1, -low - NULL_WINDOW, -low, ply, ext)
        if reply <= -low - NULL_WINDOW:
            return bound
        return max(-bound, min(bound, -reply))

    def _search(
        self, depth: int, alpha: float, beta: float, ply: int, parent: int, ext: int
    ) -> float:
        """Negamax value of the current position for the side to move."""
        pos = self.pos
        if pos.no_progress >= self.limit:
            return self.draw_scores[pos.side]
        if depth <= 0:
            return self._quiesce(alpha, beta, ply)
        self._tick()
        if not pos.hidden and self.tables is not None:
            exact = self._table_score()
            if exact is not None:
                return exact
        key = pos.hash ^ self.pool_key
        tt_move = NO_MOVE
        if self.use_tt:
            slot = self.tt.find(key)
            if slot >= 0:
                tt_move = self.tt.move(slot)
                flag = self.tt.flag(slot)
                if self.tt.depth(slot) >= depth:
                    score = from_tt(self.tt.score(slot), ply)
                    if (
                        flag == EXACT
                        or (flag == LOWER and score >= beta)
                        or (flag == UPPER and score <= alpha)
                    ):
                        return score
        if not compiled:
            moves = [0] * MOVE_BUFFER
            order = [0] * MOVE_BUFFER
        count = generate_into(pos, self.rule_tables, True, moves)
        if not count:
            return -MATE + ply
        side = pos.side
        pv_node = beta - alpha > NULL_WINDOW
        with_flips = depth >= self.flip_min_depth
        threatened = 0
        top_threat = False
        if self.want_threats:
            threatened = self._threatened()
            top_threat = bool(threatened) and bool(threatened & self._top_pieces(side))
            if (
                top_threat
                and self.threat_extension
                and depth <= EXTENSION_MAX_DEPTH
                and ext < MAX_EXTENSIONS
                and ext * EXTENSION_SPACING <= ply
            ):
                depth += 1
                ext += 1
        if (
            self.null_move
            and parent != AFTER_NULL
            and not pv_node
            and depth >= NULL_MIN_DEPTH
            and pos.hidden
            and not top_threat
            and -MATE_THRESHOLD < beta < MATE_THRESHOLD
            and self.evaluator.evaluate(pos) >= beta
        ):
            pos.side = side ^ 1
            pos.hash ^= SIDE_SWAP
            score = -self._search(
                depth - 1 - NULL_REDUCTION, -beta, NULL_WINDOW - beta, ply + 1, AFTER_NULL, ext
            )
            pos.side = side
            pos.hash ^= SIDE_SWAP
            if score >= beta:
                return beta if score > MATE_THRESHOLD else score
        alpha_start = alpha
        best = -INFINITY
        best_move = NO_MOVE
        if pos.hidden and not with_flips:
            best = self.evaluator.evaluate(pos)
            if best >= beta:
                return best
            if best > alpha:
                alpha = best
        board = pos.board
        killer0 = self.killers[ply * 2]
        killer1 = self.killers[ply * 2 + 1]
        pvs = self.pvs and pv_node
        lmr = (
            self.lmr
            and depth >= LMR_MIN_DEPTH
            and not top_threat
            and (parent != AFTER_CHANCE or depth >= LMR_CHANCE_MIN_DEPTH)
        )
        ordered = self._order_into(moves, count, tt_move, ply, with_flips, order)
        for index in range(ordered):
            move = order[index]
            frm = move >> 5
            to = move & 31
            if board[to] == HIDDEN:
                if pvs and index:
                    score = self._chance(move, depth, alpha, alpha + NULL_WINDOW, ply, ext)
                    if alpha < score < beta:
                        score = self._chance(move, depth, alpha, beta, ply, ext)
                else:
                    score = self._chance(move, depth, alpha, beta, ply, ext)
            else:
                reduced = (
                    lmr
                    and index >= LMR_MIN_INDEX
                    and board[to] == EMPTY
                    and move != tt_move
                    and move != killer0
                    and move != killer1
                    and not threatened >> frm & 1
                )
                score = alpha
                if reduced:
                    reduction = 2 if index >= LMR_LATE_INDEX and depth >= LMR_DEEP else 1
                    score = self._child_move(
                        move, depth - 1 - reduction, alpha, alpha + NULL_WINDOW, ply, ext
                    )
                if not reduced or score > alpha:
                    if pvs and index:
                        score = self._child_move(
                            move, depth - 1, alpha, alpha + NULL_WINDOW, ply, ext
                        )
                        if alpha < score < beta:
                            score = self._child_move(move, depth - 1, alpha, beta, ply, ext)
                    else:
                        score = self._child_move(move, depth - 1, alpha, beta, ply, ext)
            if score > best:
                best = score
                best_move = move
                if score > alpha:
                    alpha = score
                    if alpha >= beta:
                        if board[to] == EMPTY:
                            self._remember_cutoff(move, depth, ply)
                        break
        if self.use_tt:
            if best <= alpha_start:
                flag = UPPER
            elif best >= beta:
                flag = LOWER
            else:
                flag = EXACT
            self.tt.store(key, depth, flag, to_tt(best, ply), best_move)
        return best

    def _threatened(self) -> Bitboard:
        """The squares of the side to move's pieces that the other side could capture."""
        pos = self.pos
        if not compiled:
            captures = [0] * MOVE_BUFFER
        pos.side ^= 1
        count = generate_into(pos, self.rule_tables, False, captures)
        pos.side ^= 1
        mask = 0
        for index in range(count):
            mask |= BITS[captures[index] & 31]
        return mask

    def _top_pieces(self, side: int) -> Bitboard:
        """The squares of ``side``'s face-up pieces of its most valuable kind on the board."""
        bb = self.pos.bb
        base = side * 7
        for kind in self.kinds_by_value:
            pieces = bb[base + kind]
            if pieces:
                return pieces
        return 0

    def _remember_cutoff(self, move: Move, depth: int, ply: int) -> None:
        """A quiet move cut off: make it the first killer at ``ply``, raise its history."""
        slot = ply * 2
        if self.killers[slot] != move:
            self.killers[slot + 1] = self.killers[slot]
            self.killers[slot] = move
        self.history[move] += depth * depth

    def _order_into(
        self,
        moves: list[Move],
        count: int,
        tt_move: Move,
        ply: int,
        with_flips: bool,
        out: list[Move],
    ) -> int:
        """Write into ``out`` the TT move, captures by MVV-LVA, killers, quiet moves by
        history, then (where flips are searched) moves onto face-down pieces and flips, of
        the ``count`` generated ``moves``; return how many. Ties keep the lower move first."""
        if not compiled:
            keys = [0.0] * MOVE_BUFFER
            reveals = [0] * MOVE_BUFFER
            interacting = [0] * 32
            quiet_squares = [0] * 32
            quiet_count = [0]
        board = self.pos.board
        killer0 = self.killers[ply * 2]
        killer1 = self.killers[ply * 2 + 1]
        n = 0
        if tt_move != NO_MOVE:
            out[0] = tt_move
            n = 1
        first = n
        captures = 0
        reveal_count = 0
        for index in range(count):
            move = moves[index]
            frm = move >> 5
            to = move & 31
            if frm == to:
                break
            if move == tt_move:
                continue
            target = board[to]
            if target == HIDDEN:
                reveals[reveal_count] = move
                reveal_count += 1
            elif target != EMPTY:
                key = self.values[board[frm] % 7] - self.values[target % 7] * MVV_WEIGHT
                _insert_sorted(out, keys, first, first + captures, move, key)
                captures += 1
        n = first + captures
        first = n
        for index in range(count):
            move = moves[index]
            to = move & 31
            if move >> 5 == to:
                break
            if move == tt_move or board[to] != EMPTY:
                continue
            order_key = KILLER_ORDER if move in (killer0, killer1) else -self.history[move]
            _insert_sorted(out, keys, first, n, move, order_key)
            n += 1
        if with_flips and self.pos.hidden:
            for index in range(reveal_count):
                out[n] = reveals[index]
                n += 1
            flips = self.flips.split_into(self.pos, interacting, quiet_squares, quiet_count)
            if quiet_count[0]:
                interacting[flips] = quiet_squares[0]
                flips += 1
            if self.flip_ordering:
                flips = self.flips.rank_into(self.pos, self.pool_key, interacting, flips)
            for index in range(flips):
                move = interacting[index] * 33
                if move != tt_move:
                    out[n] = move
                    n += 1
        return n

    def _quiesce(self, alpha: float, beta: float, ply: int) -> float:
        """Stand pat on the evaluation or resolve captures."""
        self._tick()
        pos = self.pos
        side = pos.side
        if not pos.hidden:
            if not pos.colour_bb[side]:
                return -MATE + ply
            if self.tables is not None:
                exact = self._table_score()
                if exact is not None:
                    return exact
        best = self.evaluator.evaluate(pos)
        if best >= beta:
            return best
        if best > alpha:
            alpha = best
        if not compiled:
            captures = [0] * MOVE_BUFFER
            keys = [0.0] * MOVE_BUFFER
        count = generate_into(pos, self.rule_tables, False, captures)
        board = pos.board
        for index in range(count):  # a stable insertion sort by MVV-LVA
            move = captures[index]
            key = self.values[board[move >> 5] % 7] - self.values[board[move & 31] % 7] * MVV_WEIGHT
            slot = index
            while slot and keys[slot - 1] > key:
                captures[slot] = captures[slot - 1]
                keys[slot] = keys[slot - 1]
                slot -= 1
            captures[slot] = move
            keys[slot] = key
        for index in range(count):
            move = captures[index]
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

    def _table_score(self) -> float | None:
        """The endgame table's value of the current position (no piece face down) as a
        score, or None if no table covers it."""
        pos = self.pos
        assert self.tables is not None
        if popcount(pos.colour_bb[RED] | pos.colour_bb[BLACK]) > MAX_PIECES:
            return None
        value = self.tables.probe(pos)
        if value is None:
            return None
        if value.outcome == DRAW:
            return TABLE_DRAW_SHARE * self.evaluator.evaluate(pos)
        score = TABLE_WIN - TABLE_PLY_COST * min(value.plies, TABLE_MAX_PLIES)
        return score if value.outcome == WIN else -score

    def prepare_tables(self, pos: Position, seconds: float) -> bool:
        """Build, within ``seconds``, the endgame tables a search from ``pos`` can reach
        (only where nothing is face down and few pieces are left); whether they are ready."""
        if self.tables is None or pos.hidden:
            return False
        return self.tables.prepare(pos, seconds)
