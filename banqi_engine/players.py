"""Players: something that picks a legal move in a game, behind one small interface.

Level 0 is ``RandomPlayer``; level 1 is ``GreedyPlayer``, a one-ply player that
weighs material it wins now (at the evaluation's ``base_values``) against the best
capture the opponent gets in reply; levels 2 and 3 are the search's ``SearchPlayer``.
"""

import random
from typing import Final, Protocol

from .errors import MoveError
from .eval_params import DEFAULT_PARAMS, EvalParams
from .evaluation import base_values
from .game import Game
from .movegen import generate_captures, generate_moves, has_legal_move
from .moves import Move, is_flip, move_from, move_to
from .pieces import BLACK, HIDDEN, RED, UNDECIDED, colour_of, is_piece, kind_of, opponent
from .position import Position
from .rules import RuleSet, step_capture_masks, takes_revealed
from .search_player import SearchPlayer
from .squares import CROSS_MASKS, Square, square_distance


class Player(Protocol):
    """Chooses the move to play in a game, under the game's rules."""

    def choose(self, game: Game, budget_seconds: float | None) -> Move:
        """A legal move code for the side to move; ``budget_seconds`` is the time it may use."""
        ...


def _legal_moves(game: Game) -> list[Move]:
    moves = game.legal_moves()
    if not moves:
        raise MoveError("no legal move to choose from: the side to move has none")
    return moves


class RandomPlayer:
    """Level 0: a uniformly random legal move (seeded)."""

    def __init__(self, seed: int | None = None) -> None:
        self._rng = random.Random(seed)

    def choose(self, game: Game, budget_seconds: float | None) -> Move:
        """A random legal move."""
        return self._rng.choice(_legal_moves(game))


WIN_BONUS: Final = 1000.0
APPROACH_WEIGHT: Final = 0.1


def _on_line_with_face_up(pos: Position, square: Square) -> bool:
    """Whether a face-up piece shares the rank or file of ``square``."""
    return bool(CROSS_MASKS[square] & (pos.colour_bb[RED] | pos.colour_bb[BLACK]))


class GreedyPlayer:
    """Level 1: best material now, minus the best capture left to the opponent.

    Every move is scored as the value it captures minus the opponent's best net
    capture afterwards (a capture the mover could answer by retaking counts only
    the difference). A flip is scored by the expected opponent capture over the
    pieces that may appear, so a flip next to an enemy that could take what shows
    up scores badly; a move onto a face-down piece by the value it captures on average.
    On equal scores a capture beats a flip, which beats a quiet
    move; quiet moves prefer to approach an enemy piece they can take; the rest is
    a seeded random tie-break.
    """

    def __init__(self, rules: RuleSet, seed: int | None = None) -> None:
        """``rules``: the rules its piece values are first made for."""
        self._rules = rules
        self._values = base_values(rules)
        self._rng = random.Random(seed)

    def choose(self, game: Game, budget_seconds: float | None) -> Move:
        """The best-scoring legal move (piece values made again if the game's rules differ)."""
        if game.rules != self._rules:
            self._rules, self._values = game.rules, base_values(game.rules)
        moves = _legal_moves(game)
        pos = game.position.copy()
        if pos.side == UNDECIDED:
            return self._rng.choice(moves)
        rules = game.rules
        waiting = Position(pos.board, pos.pool, opponent(pos.side), pos.no_progress, pos.ply)
        standing_threat = self._best_capture_gain(waiting, rules)
        best_key: tuple[float, int, float, float] | None = None
        best_move = moves[0]
        for move in moves:
            if is_flip(move):
                square = move_from(move)
                if _on_line_with_face_up(pos, square):
                    score = -self._expected_flip_threat(pos, rules, square)
                else:
                    score = -standing_threat
                key = (round(score, 6), 1, 0.0, self._rng.random())
            elif pos.board[move_to(move)] == HIDDEN:
                score = self._expected_reveal_gain(pos, rules, move) - standing_threat
                key = (round(score, 6), 1, 0.0, self._rng.random())
            else:
                key = self._score_step(pos, rules, move)
            if best_key is None or key > best_key:
                best_key, best_move = key, move
        return best_move

    def _score_step(
        self, pos: Position, rules: RuleSet, move: Move
    ) -> tuple[float, int, float, float]:
        frm, to = move_from(move), move_to(move)
        target = pos.board[to]
        capture = is_piece(target)
        gain = self._values[kind_of(target)] if capture else 0.0
        approach = 0.0 if capture else self._approach(pos, rules, frm, to)
        pos.make_move(move)
        if has_legal_move(pos, rules):
            score = gain - self._best_capture_gain(pos, rules)
        else:
            score = gain + WIN_BONUS
        pos.unmake()
        return (round(score, 6), 2 if capture else 0, approach, self._rng.random())

    def _approach(self, pos: Position, rules: RuleSet, frm: Square, to: Square) -> float:
        """How much closer a quiet move brings the piece to an enemy it can take."""
        piece = pos.board[frm]
        mask = step_capture_masks(rules)[kind_of(piece)]
        enemy = opponent(colour_of(piece))
        targets = [
            square
            for square, state in enumerate(pos.board)
            if is_piece(state) and colour_of(state) == enemy and mask >> kind_of(state) & 1
        ]
        if not targets:
            return 0.0
        before = min(square_distance(frm, square) for square in targets)
        after = min(square_distance(to, square) for square in targets)
        return APPROACH_WEIGHT * (before - after)

    def _expected_reveal_gain(self, pos: Position, rules: RuleSet, move: Move) -> float:
        """The value a move onto a face-down piece captures, on average over the pool."""
        mover = pos.board[move_from(move)]
        gained = sum(
            count * self._values[kind_of(piece)]
            for piece, count in enumerate(pos.pool)
            if count and takes_revealed(rules, mover, piece)
        )
        return gained / sum(pos.pool)

    def _expected_flip_threat(self, pos: Position, rules: RuleSet, square: Square) -> float:
        total = sum(pos.pool)
        expected = 0.0
        for piece, count in enumerate(pos.pool):
            if count:
                pos.make_flip(square, piece)
                expected += count * self._best_capture_gain(pos, rules)
                pos.unmake()
        return expected / total

    def _best_capture_gain(self, pos: Position, rules: RuleSet) -> float:
        """The side to move's best capture value, less its piece if it can be retaken."""
        board = pos.board
        values = self._values
        best = 0.0
        for move in generate_moves(pos, rules):
            to = move_to(move)
            target = board[to]
            if not is_piece(target):
                break
            gain = values[kind_of(target)]
            if gain <= best:
                continue
            mover = board[move_from(move)]
            pos.make_move(move)
            if _can_capture_on(pos, rules, to):
                gain -= values[kind_of(mover)]
            pos.unmake()
            best = max(best, gain)
        return best


def _can_capture_on(pos: Position, rules: RuleSet, square: Square) -> bool:
    """Whether the side to move can take the piece on ``square``."""
    return any(move_to(move) == square for move in generate_captures(pos, rules))


MAX_LEVEL: Final = 3


def make_player(
    level: int, seed: int | None, rules: RuleSet, params: EvalParams = DEFAULT_PARAMS
) -> Player:
    """The player of a level: 0 random, 1 greedy, 2 short search, 3 full search;
    ``params`` weigh the search's evaluation."""
    if level == 0:
        return RandomPlayer(seed)
    if level == 1:
        return GreedyPlayer(rules, seed)
    if level == 2:
        return SearchPlayer(rules, seed, max_depth=3, max_seconds=0.1, params=params)
    if level == 3:
        return SearchPlayer(rules, seed, params=params)
    raise ValueError(f"unknown player level {level}; allowed: 0 (random) to {MAX_LEVEL} (search)")
