"""Piece values (one table for every player) and the search's static evaluation.

The evaluation is from the side to move's view. Material counts every piece a
colour still owns, face up or face down (the pool says how many of each kind are
still hidden), at a value that depends on the rule set and on what is left, so
that a trade which raises the worth of one's other pieces scores as such: a
piece's base value (``base_values``) comes from its place in the capture order (a
jumping cannon gets a fixed high value since it reaches any order); it grows as
the enemies able to take it (its natural enemies) are captured, most when none is
left, and shrinks as the enemies it can take are captured; a King loses value
while enemy Pawns remain, Pawns gain value while the enemy King lives, and a
jumping cannon loses value as the screens it jumps over leave the board.

Face-up pieces add mobility, threats (see ``evaluation_tactics``), a risk for
pieces next to face-down squares that may hide an enemy able to take them, and,
late in the game, a pull towards the nearest enemy each can take by a step and
that cannot take it back, with a bonus when no face-down piece is left and the
distance has the parity that lets the chaser catch it, and the hunt: with few pieces
face down, a share of a piece's value for each enemy that chases it, by distance. The
score fades to 0 over the last plies before the no-progress draw, for the side ahead
and behind alike.

Two terms of the face-up game count only where their weights are set (0 by default):
confinement (``evaluation_tactics``; more as fewer pieces are face down) and the
pressure of plies without a capture (with nothing face down the score shrinks as they
pass, so that the side ahead presses for one and the side behind plays for time).
"""

from array import array
from typing import Final

from cython import compiled

from .eval_params import DEFAULT_PARAMS, EvalParams
from .pieces import (
    BLACK,
    CANNON,
    COLOURS,
    FULL_POOL,
    KIND_LETTERS,
    KING,
    NUM_KINDS,
    NUM_PIECES,
    PAWN,
    RED,
    Piece,
    make_piece,
    opponent,
)
from .rules import RuleSet, step_capture_masks
from .squares import ALL_SQUARES, FILE_A, FILE_D, NUM_SQUARES, Bitboard, square_distance

if not compiled:  # the compiled build cimports these in the .pxd (C calls)
    from .bits import low_square, popcount
    from .evaluation_tactics import confinement, threat_terms
    from .movegen_tables import adjacent, rule_tables
    from .position import Position

ORDER_VALUES: Final = (64.0, 32.0, 16.0, 8.0, 4.0, 3.0, 2.0)
"""Base material value by place in the capture order, highest first: each place is
worth twice the next, as every higher order preys on a piece."""
FULL_COUNT: Final = sum(FULL_POOL)
"""Pieces on the board at the start (the screens a jumping cannon may use)."""

PROGRESS_PLIES: Final = 20
"""Plies without a capture after which ``progress_pressure`` has taken its whole share."""
SCORE_CACHE_BITS: Final = 18
"""The score cache has ``2 ** SCORE_CACHE_BITS`` slots (4 MiB: a key and a score each)."""
FILLED: Final = 1 << 62
"""Set in a stored score cache key (keys are below it), so that an empty slot matches none."""

COUNT_RADIX: Final = 6
"""One more than the most pieces of a code (5 Pawns): piece counts and pools read as
digits of this base (the first piece code the most significant) make the integer keys
of the evaluation's caches."""
POOL_KEY_SHIFT: Final = 25
"""A pool's digits (below 6**14 < 2**37) shifted by this stay below 2**62 and XOR into
the position's hash as the score cache's key."""

_NOT_FILE_A: Final = ALL_SQUARES & ~FILE_A
_NOT_FILE_D: Final = ALL_SQUARES & ~FILE_D
CHASE_RANGE: Final = 6
"""Targets farther than this many steps do not count."""
_RINGS: Final = tuple(
    tuple(
        (
            sum(1 << b for b in range(NUM_SQUARES) if square_distance(a, b) == d),
            CHASE_RANGE + 1 - d,
            1 - d % 2,
        )
        for d in range(1, CHASE_RANGE + 1)
    )
    for a in range(NUM_SQUARES)
)
"""For each square, the squares 1, 2, ... CHASE_RANGE steps away, each ring with the
chase bonus of a target there and whether its step count is even."""
_RING_MASKS = [ring for rings in _RINGS for ring, _, _ in rings]
"""_RINGS' squares flattened, square * CHASE_RANGE + steps - 1 (C arrays in the compiled
build, as the two below)."""
_RING_BONUS = [bonus for _, bonus, _ in _RINGS[0]]
"""The chase bonus of a target steps - 1 away (the same from every square)."""
_RING_EVEN = [steps_even for _, _, steps_even in _RINGS[0]]
"""Whether steps is even, by steps - 1."""
_HUNT_NEAR = [0.64**steps for steps in range(CHASE_RANGE)]
"""The share of a hunted piece's value a chaser steps + 1 away is credited, by steps."""


def base_values(rules: RuleSet, params: EvalParams = DEFAULT_PARAMS) -> tuple[float, ...]:
    """Base value of each kind K G M R N C P under a rule set."""
    values = [ORDER_VALUES[rules.capture_order.index(letter)] for letter in KIND_LETTERS]
    if rules.cannon_capture == "jump":
        values[CANNON] = params.jumping_cannon_value
    return tuple(values)


def prey_masks(rules: RuleSet) -> tuple[int, ...]:
    """For each kind, the mask (bit per kind) of enemy kinds it can capture in some way."""
    masks = list(step_capture_masks(rules))
    if rules.cannon_capture == "jump":
        masks[CANNON] = (1 << NUM_KINDS) - 1
    return tuple(masks)


def material_key(counts: tuple[int, ...]) -> int:
    """The material cache's key of the piece counts: their digits in ``COUNT_RADIX``
    (``_score`` computes the same inline)."""
    key = 0
    for count in counts:
        key = key * COUNT_RADIX + count
    return key


def _step_pairs(pieces: Bitboard, targets: Bitboard) -> int:
    """Number of (piece, target) pairs one orthogonal step apart."""
    # A rank step is a shift by 4 (NUM_FILES) written as a literal: this runs twice per
    # evaluation, where two global lookups measurably cost (about 4%).
    return (
        popcount((pieces << 4) & targets)
        + popcount((pieces >> 4) & targets)
        + popcount(((pieces & _NOT_FILE_D) << 1) & targets)
        + popcount(((pieces & _NOT_FILE_A) >> 1) & targets)
    )


class _Material:
    """A material cache entry: red's material minus black's, and the value of each piece
    code (red's kinds, then black's; a C array in the compiled build)."""

    def __init__(self, score: float, values: list[float]) -> None:
        self.score = score
        self.values = values


class _Risks:
    """A flip risk cache entry: the pieces at risk next to face-down squares with, signed
    for red, the value each risks (C arrays in the compiled build)."""

    def __init__(self, risks: tuple[tuple[Piece, float], ...]) -> None:
        self.n = len(risks)
        pieces = [0] * NUM_PIECES
        values = [0.0] * NUM_PIECES
        for index, (piece, risk) in enumerate(risks):
            pieces[index] = piece
            values[index] = risk
        self.pieces = pieces
        self.risks = values


class Evaluator:
    """Evaluates positions under one rule set.

    In the compiled build this is a C-level class (``evaluation.pxd``) whose ``evaluate``
    the search calls at C speed."""

    def __init__(self, rules: RuleSet, params: EvalParams = DEFAULT_PARAMS) -> None:
        self.params = params
        self.base = list(base_values(rules, params))
        self.tables = rule_tables(rules)
        self.jump = rules.cannon_capture == "jump"
        prey = prey_masks(rules)
        self.predators = [
            sum(1 << j for j in range(NUM_KINDS) if prey[j] >> k & 1) for k in range(NUM_KINDS)
        ]
        self.prey = list(prey)
        step_prey = step_capture_masks(rules)
        self.step_prey = list(step_prey)
        self.step_predators = tuple(
            tuple(j for j in range(NUM_KINDS) if step_prey[j] >> k & 1) for k in range(NUM_KINDS)
        )
        chase_kinds = [
            [t for t in range(NUM_KINDS) if step_prey[k] >> t & 1 and not step_prey[t] >> k & 1]
            for k in range(NUM_KINDS)
        ]
        self.chasers: tuple[tuple[tuple[Piece, tuple[Piece, ...]], ...], ...] = tuple(
            tuple(
                (make_piece(colour, kind), tuple(make_piece(opponent(colour), t) for t in targets))
                for kind, targets in enumerate(chase_kinds)
                if targets
            )
            for colour in COLOURS
        )
        """Per colour, each piece that chases something with the enemy pieces it chases:
        those it takes by a step and that cannot take it back."""
        chase_pieces = [0] * NUM_PIECES
        chase_targets = [0] * (NUM_PIECES * NUM_KINDS)
        n_targets = [0] * NUM_PIECES
        for colour, chasers in zip(COLOURS, self.chasers, strict=True):
            for index, (piece, target_pieces) in enumerate(chasers):
                chaser = colour * NUM_KINDS + index
                chase_pieces[chaser] = piece
                n_targets[chaser] = len(target_pieces)
                for number, target in enumerate(target_pieces):
                    chase_targets[chaser * NUM_KINDS + number] = target
        self._chase_pieces = chase_pieces
        """``chasers`` flattened: the chasing pieces of a colour from colour * 7 on ..."""
        self._chase_targets = chase_targets
        """... the pieces chaser i chases from i * 7 on ..."""
        self._n_targets = n_targets
        """... how many they are ..."""
        self._n_chasers = [len(chasers) for chasers in self.chasers]
        """... and how many chasers a colour has."""
        self._material: dict[int, _Material] = {}
        """Material entries by ``material_key`` of the piece counts."""
        slots = 1 << SCORE_CACHE_BITS
        self._score_mask = slots - 1
        self._score_keys = array("q", bytes(8 * slots))
        """The score cache: in the slot of a key's low bits, the key (with ``FILLED``) and the
        score before the fade; the key is the position's hash (board and side) XOR its
        pool's digits in ``COUNT_RADIX`` shifted by ``POOL_KEY_SHIFT``. A store replaces
        what its slot held."""
        self._score_values = array("d", bytes(8 * slots))
        self._flip_risk: dict[int, _Risks] = {}
        """Flip risks by the pool's digits in ``COUNT_RADIX``."""
        self.mobility_weight = params.mobility_weight
        self.chase_weight = params.chase_weight
        self.chase_max_hidden = params.chase_max_hidden
        self.parity_weight = params.parity_weight
        self.threat_stm_weight = params.threat_stm_weight
        self.threat_opp_weight = params.threat_opp_weight
        self.trapped_weight = params.trapped_weight
        self.confine_weight = params.confine_weight
        self.hunt_weight = params.hunt_weight
        self.threats_on = bool(
            params.threat_stm_weight or params.threat_opp_weight or params.trapped_weight
        )
        self.flip_risk_weight = params.flip_risk_weight
        self.limit = rules.no_progress_limit
        self.window = max(1.0, min(params.progress_window, self.limit / 2))
        self.pressure_plies = PROGRESS_PLIES
        self.pressure_step = params.progress_pressure / PROGRESS_PLIES
        """The share of the score ``progress_pressure`` takes a ply without a capture."""

    def _kind_counts(self, counts: tuple[int, ...], colour: int, mask: int) -> int:
        """How many pieces of ``colour`` of the kinds in ``mask`` are left."""
        first = colour * NUM_KINDS
        return sum(counts[first + j] for j in range(NUM_KINDS) if mask >> j & 1)

    def kind_values(self, counts: tuple[int, ...]) -> tuple[list[float], list[float]]:
        """Value of each kind for red and for black, given how many of each piece are left."""
        params = self.params
        full = FULL_POOL
        screens = sum(counts) / FULL_COUNT
        result: list[list[float]] = []
        for colour in COLOURS:
            enemy = opponent(colour)
            own_pawns = counts[make_piece(colour, PAWN)]
            values = list(self.base)
            values[KING] *= 1.0 - params.king_pawn_discount * counts[make_piece(enemy, PAWN)]
            if counts[make_piece(enemy, KING)] and own_pawns:
                values[PAWN] += params.pawn_king_bonus / own_pawns
            for kind in range(NUM_KINDS):
                predators: int = self.predators[kind]
                enemies = self._kind_counts(counts, enemy, predators)
                all_enemies = self._kind_counts(full, enemy, predators)
                values[kind] *= 1.0 + params.enemy_weight * (1.0 - enemies / all_enemies)
                if not enemies:
                    values[kind] *= params.safe_factor
                prey: int = self.prey[kind]
                left = self._kind_counts(counts, enemy, prey)
                all_prey = self._kind_counts(full, enemy, prey)
                if all_prey:
                    values[kind] *= 1.0 - params.prey_weight * (1.0 - left / all_prey)
            if self.jump:
                values[CANNON] *= 1.0 - params.cannon_screen_weight * (1.0 - screens)
            result.append(values)
        return result[RED], result[BLACK]

    def material(self, counts: tuple[int, ...]) -> float:
        """Red's material minus black's, given how many of each piece are left (cached)."""
        entry: _Material = self._material_entry(counts)
        return entry.score

    def _material_entry(self, counts: tuple[int, ...]) -> _Material:
        """Material and the kind values of red and black for these counts (cached)."""
        key = material_key(counts)
        entry: _Material | None = self._material.get(key)
        if entry is None:
            red, black = self.kind_values(counts)
            score = sum(
                counts[make_piece(RED, k)] * red[k] - counts[make_piece(BLACK, k)] * black[k]
                for k in range(NUM_KINDS)
            )
            entry = self._material[key] = _Material(score, red + black)
        return entry

    def evaluate(self, pos: Position) -> float:
        """Score for the side to move (positive is good for it)."""
        pool = pos.pool
        # raw numbers, as each global costs: 14 piece codes, COUNT_RADIX 6 and
        # POOL_KEY_SHIFT 25
        digits = 0
        for piece in range(14):
            digits = digits * 6 + pool[piece]
        key = (pos.hash ^ digits << 25) | FILLED
        slot = key & self._score_mask
        if self._score_keys[slot] == key:
            score = self._score_values[slot]
        else:
            score = self._score(pos, digits)
            self._score_keys[slot] = key
            self._score_values[slot] = score
        remaining = self.limit - pos.no_progress
        if remaining < self.window:
            score *= remaining / self.window
        if self.pressure_step and not pos.hidden:
            score *= 1.0 - self.pressure_step * min(pos.no_progress, self.pressure_plies)
        return score

    def _score(self, pos: Position, pool_digits: int) -> float:
        """The score for the side to move before the no-progress fade (``pool_digits``: the
        pool's digits in ``COUNT_RADIX``)."""
        bb = pos.bb
        pool = pos.pool
        material = 0
        for piece in range(14):  # material_key inline
            material = material * 6 + popcount(bb[piece]) + pool[piece]
        entry: _Material | None = self._material.get(material)
        if entry is None:
            counts = [popcount(bb[piece]) + pool[piece] for piece in range(14)]
            entry = self._material_entry(tuple(counts))
        score = entry.score
        empty = pos.empty
        colour_bb = pos.colour_bb
        score += self.mobility_weight * (
            _step_pairs(colour_bb[0], empty) - _step_pairs(colour_bb[1], empty)
        )
        hidden = pos.hidden
        side = pos.side
        if hidden and self.flip_risk_weight:
            score += self._flip_risk_term(bb, hidden, pool, pool_digits)
        if popcount(hidden) <= self.chase_max_hidden:
            score += self._chase(bb, side, not hidden)
            if self.hunt_weight:
                score += self.hunt_weight * self._hunt(bb, entry.values)
        if self.confine_weight:
            score += (
                self.confine_weight
                * (1.0 - popcount(hidden) / 32)  # FULL_COUNT
                * confinement(pos, self.tables, entry.values)
            )
        if side == 1:  # BLACK
            score = -score
        if self.threats_on:
            ours, theirs, trapped = threat_terms(pos, self.tables, self.step_prey, entry.values)
            score += (
                self.threat_stm_weight * ours
                - self.threat_opp_weight * theirs
                - self.trapped_weight * trapped
            )
        return score

    def _flip_risk_term(
        self, bb: list[Bitboard], hidden: Bitboard, pool: list[int], pool_digits: int
    ) -> float:
        """Red's minus black's risk of a face-down neighbour turning out an enemy that takes
        (``pool_digits``: the pool's digits in ``COUNT_RADIX``)."""
        risks: _Risks | None = self._flip_risk.get(pool_digits)
        if risks is None:
            risks = self._flip_risk[pool_digits] = _Risks(
                self._risks([pool[piece] for piece in range(14)])
            )
        near = adjacent(hidden)
        score = 0.0
        for index in range(risks.n):
            pieces = bb[risks.pieces[index]] & near
            if pieces:
                score -= risks.risks[index] * popcount(pieces)
        return score

    def _risks(self, pool: list[int]) -> tuple[tuple[Piece, float], ...]:
        """Per piece, signed for red, its value at risk next to face-down squares."""
        total = sum(pool)
        risks = []
        for colour in COLOURS:
            enemy = opponent(colour) * NUM_KINDS
            sign = 1.0 if colour == RED else -1.0
            for kind in range(NUM_KINDS):
                chance = sum(pool[enemy + j] for j in self.step_predators[kind]) / total
                if chance:
                    base: float = self.base[kind]
                    risk = self.flip_risk_weight * base * chance
                    risks.append((make_piece(colour, kind), sign * risk))
        return tuple(risks)

    def _hunt(self, bb: list[Bitboard], values: list[float]) -> float:
        """Red's hunt less black's: over each chaser and each enemy piece it chases (takes
        by a step and cannot be taken back by) at most ``CHASE_RANGE`` steps away, the
        prey's value times ``_HUNT_NEAR`` of their distance (``values``: by piece code)."""
        score = 0.0
        for colour in range(2):
            total = 0.0
            first = colour * 7
            for index in range(first, first + self._n_chasers[colour]):
                pieces = bb[self._chase_pieces[index]]
                first_target = index * 7
                while pieces:
                    rings = low_square(pieces) * 6  # CHASE_RANGE
                    pieces &= pieces - 1
                    for target in range(first_target, first_target + self._n_targets[index]):
                        prey = self._chase_targets[target]
                        targets = bb[prey]
                        if not targets:
                            continue
                        near = 0.0
                        for steps in range(6):
                            found = popcount(_RING_MASKS[rings + steps] & targets)
                            if found:
                                near += found * _HUNT_NEAR[steps]
                        total += near * values[prey]
            score += total if colour == 0 else -total  # RED's minus BLACK's
        return score

    def _chase(self, bb: list[Bitboard], side: int, parity: bool) -> float:
        """Reward pieces for standing near enemies they take and that cannot take them back;
        with ``parity`` (nothing face down), also for the distance parity that catches."""
        score = 0.0
        matched = 0
        for colour in range(2):
            total = found = even = 0
            first = colour * 7
            for index in range(first, first + self._n_chasers[colour]):
                pieces = bb[self._chase_pieces[index]]
                if not pieces:
                    continue
                targets = 0
                first_target = index * 7
                for target in range(first_target, first_target + self._n_targets[index]):
                    targets |= bb[self._chase_targets[target]]
                if not targets:
                    continue
                while pieces:
                    rings = low_square(pieces) * 6  # CHASE_RANGE
                    pieces &= pieces - 1
                    for steps in range(6):
                        if _RING_MASKS[rings + steps] & targets:
                            total += _RING_BONUS[steps]
                            found += 1
                            even += _RING_EVEN[steps]
                            break
            # odd steps with the chaser to move (even with the prey to move) catch
            right = found - 2 * even if colour == side else 2 * even - found
            score += total if colour == 0 else -total  # RED's minus BLACK's
            matched += right if colour == 0 else -right
        if not parity:
            matched = 0
        return self.chase_weight * score + self.parity_weight * matched
