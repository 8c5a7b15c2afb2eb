"""The search player (levels 2 and 3): a ``Searcher`` run on the game within a time budget.

``choose`` takes a budget per move (all of which may be spent); ``choose_on_clock``
takes the time a driver told (DCTP ``time_left``) and budgets it with a
``TimeManager``: a soft target and a hard limit, per-move limits noticed.
"""

import logging
import random
import time
from typing import Final

from .errors import MoveError
from .eval_params import DEFAULT_PARAMS, EvalParams
from .game import Game
from .movegen import make_ply
from .moves import Move, move_to
from .notation import format_move
from .pieces import EMPTY, UNDECIDED
from .rules import MAX_NO_PROGRESS_LIMIT, RuleSet
from .search import MAX_DEPTH, Searcher, SearchResult
from .search_config import DEFAULT_CONFIG, SearchConfig
from .time_manager import TimeBudget, TimeManager

log = logging.getLogger(__name__)

DEFAULT_SECONDS: Final = 1.0
"""Time per move when the caller gives no budget."""
TIME_SAFETY: Final = 0.9
"""Share of the budget the search gets (less ``TIME_MARGIN`` and the player's own time)."""
TABLE_BUILD_SHARE: Final = 0.5
"""Share of a move's hard time limit that building endgame tables may take (the tables
finished are kept for the rest of the game)."""
DEFAULT_TABLE_SECONDS: Final = 5.0
"""The hard limit assumed for building tables when a move has no time limit."""
TIME_MARGIN: Final = 0.003
"""Seconds kept back from the budget besides ``TIME_SAFETY``'s share."""


def search_rules(game: Game) -> RuleSet:
    """The rules to search ``game`` under: its own, but with the no-progress limit lifted
    once the game has gone past it (the driver that judges the game uses another)."""
    rules = game.rules
    if game.position.no_progress >= rules.no_progress_limit:
        return rules.model_copy(update={"no_progress_limit": MAX_NO_PROGRESS_LIMIT})
    return rules


def reversible_hashes(game: Game) -> set[int]:
    """Hashes of the game's positions since its last flip or capture, the current one included."""
    pos = game.start.copy()
    seen = {pos.hash}
    for ply in game.plies:
        if ply.piece is not None or pos.board[move_to(ply.move)] != EMPTY:
            seen = set()
        make_ply(pos, game.rules, ply.move, ply.piece)
        seen.add(pos.hash)
    return seen


class SearchPlayer:
    """Levels 2 and 3: iterative-deepening expectimax alpha-beta within a time budget.

    ``max_seconds`` caps the time per move whatever the budget; without a budget the
    player uses ``default_seconds``; ``config`` switches the search's features. It
    searches under the game's rules (see ``search_rules``), making its searcher again
    when they change. Ties are broken by a seeded RNG, so with no time or node cut-off
    the choice is a function of the seed and the game.
    """

    def __init__(
        self,
        rules: RuleSet,
        seed: int | None = None,
        *,
        max_depth: int = MAX_DEPTH,
        max_seconds: float | None = None,
        default_seconds: float | None = DEFAULT_SECONDS,
        max_nodes: int | None = None,
        params: EvalParams = DEFAULT_PARAMS,
        config: SearchConfig = DEFAULT_CONFIG,
    ) -> None:
        self.params = params
        self.config = config
        self.searcher = Searcher(rules, params, config)
        self.time_manager = TimeManager()
        self.max_depth = max_depth
        self.max_seconds = max_seconds
        self.default_seconds = default_seconds
        self.max_nodes = max_nodes
        self.last: SearchResult | None = None
        self._rng = random.Random(seed)

    def choose(self, game: Game, budget_seconds: float | None) -> Move:
        """The move the search prefers within the budget (all of which it may spend)."""
        start = time.perf_counter()
        seconds = self.default_seconds if budget_seconds is None else budget_seconds
        if self.max_seconds is not None:
            seconds = self.max_seconds if seconds is None else min(seconds, self.max_seconds)
        budget = None if seconds is None else TimeBudget.fixed(seconds)
        return self._choose(game, budget, start)

    def choose_on_clock(self, game: Game, remaining_ms: int | None) -> Move:
        """The move the search prefers with ``remaining_ms`` told for this move (the clock,
        or a per-move limit if less); None: no clock, as ``choose`` without a budget."""
        start = time.perf_counter()
        if remaining_ms is None:
            return self.choose(game, None)
        plies = len(game.plies)
        budget = self.time_manager.budget(remaining_ms, game.position, plies)
        if self.max_seconds is not None:
            cap = TimeBudget.fixed(self.max_seconds)
            budget = TimeBudget(min(budget.soft, cap.soft), min(budget.hard, cap.hard))
        move = self._choose(game, budget, start)
        self.time_manager.record(remaining_ms, plies, time.perf_counter() - start)
        return move

    def _choose(self, game: Game, budget: TimeBudget | None, start: float) -> Move:
        """Search ``game`` within ``budget`` (seconds from ``start``, less a safety share)."""
        rules = search_rules(game)
        if rules != self.searcher.rules:
            self.searcher = Searcher(rules, self.params, self.config)
        moves = game.legal_moves()
        if not moves:
            raise MoveError("no legal move to choose from: the side to move has none")
        pos = game.position
        if pos.side == UNDECIDED:
            return self._rng.choice(moves)
        if len(moves) == 1:
            return moves[0]
        seen = reversible_hashes(game)
        if not pos.hidden:
            hard = DEFAULT_TABLE_SECONDS if budget is None else budget.hard
            self.searcher.prepare_tables(pos, TABLE_BUILD_SHARE * hard)
        if budget is not None:
            spent = time.perf_counter() - start
            budget = TimeBudget(
                max(0.0, budget.soft * TIME_SAFETY - TIME_MARGIN - spent),
                max(0.0, budget.hard * TIME_SAFETY - TIME_MARGIN - spent),
            )
        self.last = self.searcher.search(
            pos,
            self._rng,
            max_depth=self.max_depth,
            max_nodes=self.max_nodes,
            seen=seen,
            budget=budget,
        )
        result = self.last
        log.info(
            "searched %s: depth %d, %d nodes in %.0f ms, score %+.2f (%d face down)",
            format_move(result.move),
            result.depth,
            result.nodes,
            result.seconds * 1000,
            result.score,
            pos.hidden.bit_count(),
        )
        return result.move
