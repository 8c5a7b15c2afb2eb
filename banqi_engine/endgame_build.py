# cython: infer_types=False
# (compiled as plain Python: its bytearray slices must stay Python objects)
"""Retrograde analysis of one material on sets of placements (see ``endgame_bits``).

A material is the sorted tuple of its piece codes; slot ``i`` holds piece
``material[i]`` (two pieces of one code are two slots, and the table holds both
orders). ``MaterialMoves`` is the move generator of the tables: per colour, each way
one slot can move or capture (a direction, a number of steps, the slot taken) with
the set of placements where it is legal under the rule set, as ``movegen`` decides
(the tests compare the two on random positions of every rule set).

``build_table`` then labels every placement with each side to move, level by level:
level 0 is the side to move having no legal move (a loss); a win at level ``k`` has a
move to a loss at level ``k - 1`` (for the other side), or, at level 1, a capture into
a position its own table calls lost for the side then to move; a loss at level ``k``
has captures only into positions won by the side then to move and quiet moves only
into wins at levels below ``k``, one of them at ``k - 1`` (or, at level 1, no quiet
move). Levels stop at the rule set's no-progress limit: anything not labelled by
then is a draw, since no side can force a capture or the end in time.
"""

import math
import time
from array import array
from dataclasses import dataclass
from math import factorial
from typing import Final, TypeAlias

from .endgame_bits import (
    DIRECTIONS,
    Space,
    exactly_one,
    line_squares,
    shift,
    spread_values,
    square_delta,
)
from .pieces import CANNON, NUM_KINDS, Piece
from .rules import RuleSet, step_capture_masks

Material: TypeAlias = tuple[Piece, ...]
"""The piece codes of a material, sorted."""

MAX_STEPS: Final = 7
"""The longest line on the board, in steps."""


class BuildTimeout(Exception):
    """A table's deadline passed before it was finished."""


@dataclass(frozen=True, slots=True)
class SlotMove:
    """One way the piece of ``slot`` moves: ``steps`` squares in ``direction``, taking the
    piece of slot ``captured`` (-1: a quiet move), legal at the placements in ``mask``."""

    slot: int
    direction: tuple[int, int]
    steps: int
    captured: int
    mask: int

    @property
    def square_step(self) -> int:
        """How the square of the moving piece changes."""
        return self.steps * square_delta(self.direction)


def can_take(attacker: Piece, target: Piece, rules: RuleSet) -> bool:
    """Whether ``attacker`` may ever capture ``target`` under ``rules`` (by kinds only)."""
    if attacker // NUM_KINDS == target // NUM_KINDS:
        return False
    kind = attacker % NUM_KINDS
    if kind == CANNON and rules.cannon_capture == "jump":
        return True
    return bool(step_capture_masks(rules)[kind] >> (target % NUM_KINDS) & 1)


def capture_children(material: Material, rules: RuleSet) -> set[Material]:
    """The materials one capture away from ``material`` under ``rules``."""
    return {
        material[:j] + material[j + 1 :]
        for i, attacker in enumerate(material)
        for j, target in enumerate(material)
        if can_take(attacker, target, rules)
    }


class MaterialMoves:
    """The move generator of one material: ``actions[colour]`` for each side to move."""

    def __init__(
        self, material: Material, rules: RuleSet, space: Space, deadline: float = math.inf
    ) -> None:
        """Raise BuildTimeout once ``time.perf_counter()`` passes ``deadline``."""
        self.material = material
        self.space = space
        self.actions: tuple[list[SlotMove], list[SlotMove]] = ([], [])
        jump = rules.cannon_capture == "jump"
        slide = rules.cannon_move == "slide"
        for slot, piece in enumerate(material):
            if time.perf_counter() > deadline:
                raise BuildTimeout
            reach = MAX_STEPS if slide and piece % NUM_KINDS == CANNON else 1
            for direction in DIRECTIONS:
                self._quiet(slot, direction, reach)
                for target in range(len(material)):
                    if can_take(piece, material[target], rules):
                        if piece % NUM_KINDS == CANNON and jump:
                            self._jumps(slot, target, direction)
                        else:
                            self._add(
                                slot, direction, 1, target, space.on(slot, target, direction, 1)
                            )

    def _add(
        self, slot: int, direction: tuple[int, int], steps: int, captured: int, mask: int
    ) -> None:
        mask &= self.space.valid
        if mask:
            colour = self.material[slot] // NUM_KINDS
            self.actions[colour].append(SlotMove(slot, direction, steps, captured, mask))

    def _quiet(self, slot: int, direction: tuple[int, int], reach: int) -> None:
        space = self.space
        others = [k for k in range(space.slots) if k != slot]
        blocked = 0
        for steps in range(1, reach + 1):
            origins = line_squares(direction, steps)
            if not origins:
                return
            for other in others:
                blocked |= space.on(slot, other, direction, steps)
            self._add(slot, direction, steps, -1, space.slot_in(slot, origins) & ~blocked)

    def _jumps(self, slot: int, target: int, direction: tuple[int, int]) -> None:
        space = self.space
        others = [k for k in range(space.slots) if k not in (slot, target)]
        screens = [0] * len(others)
        for steps in range(2, MAX_STEPS + 1):
            if not line_squares(direction, steps):
                return
            screens = [
                between | space.on(slot, other, direction, steps - 1)
                for between, other in zip(screens, others, strict=True)
            ]
            on_line = space.on(slot, target, direction, steps)
            self._add(slot, direction, steps, target, on_line & exactly_one(screens))


@dataclass(slots=True)
class MaterialTable:
    """The labels of every placement of one material, both sides to move."""

    material: Material
    values: "array[int]"
    """Per ``side * size + index``: 0 draw, ``2k`` win at level k, ``2k + 1`` loss at level k."""
    valid: int
    wins: tuple[int, int]
    """Per side to move, the placements it wins."""
    losses: tuple[int, int]
    """Per side to move, the placements it loses."""
    longest_win: int
    seconds: float

    def same_positions(self) -> int:
        """How many placements show each position (orders of pieces of one code)."""
        count = 1
        for piece in set(self.material):
            count *= factorial(self.material.count(piece))
        return count


def _predecessors(steps: list[tuple[int, int]], targets: int) -> int:
    """The placements with a move (index change, legal mask) into ``targets``."""
    found = 0
    for offset, mask in steps:
        found |= (targets >> offset if offset > 0 else targets << -offset) & mask
    return found


def _record(planes: list[int], code: int, members: int) -> None:
    """Give ``members`` the value ``code``: add them to the planes of its set bits."""
    for bit in range(len(planes)):
        if code >> bit & 1:
            planes[bit] |= members


@dataclass(slots=True)
class _SideMoves:
    """What the retrograde needs of one side to move's moves."""

    quiet: list[tuple[int, int]]
    """(index change, legal placements) of each quiet action."""
    has_quiet: int = 0
    has_move: int = 0
    capture_wins: int = 0
    """Placements with a capture into a position lost for the side then to move."""
    not_lost: int = 0
    """Placements with a capture into a position drawn or lost for the side then to move."""


def _side_moves(
    moves: MaterialMoves, colour: int, children: dict[Material, MaterialTable], deadline: float
) -> _SideMoves:
    """Sort ``colour``'s actions into quiet ones and the outcomes of its captures."""
    space = moves.space
    side = _SideMoves([])
    draws = 0
    expanded: dict[tuple[int, int], tuple[int, int]] = {}
    for action in moves.actions[colour]:
        offset = action.square_step * space.weight(action.slot)
        side.has_move |= action.mask
        if action.captured < 0:
            side.quiet.append((offset, action.mask))
            side.has_quiet |= action.mask
            continue
        if time.perf_counter() > deadline:
            raise BuildTimeout
        pair = (action.slot, action.captured)
        if pair not in expanded:
            expanded[pair] = _after_capture(space, children, moves.material, pair, colour)
        won, drawn = expanded[pair]
        landing = space.slot_in(
            action.slot, shift(line_squares(action.direction, action.steps), action.square_step)
        )
        side.capture_wins |= action.mask & shift(won & landing, -offset)
        draws |= action.mask & shift(drawn & landing, -offset)
    side.not_lost = side.capture_wins | draws
    return side


def build_table(
    material: Material, rules: RuleSet, children: dict[Material, MaterialTable], deadline: float
) -> MaterialTable:
    """Label ``material`` (its capture children already built in ``children``); raise
    BuildTimeout once ``time.perf_counter()`` passes ``deadline``."""
    start = time.perf_counter()
    space = Space(len(material))
    moves = MaterialMoves(material, rules, space, deadline)
    sides = [_side_moves(moves, colour, children, deadline) for colour in (0, 1)]
    space.forget()
    valid = space.valid
    limit = rules.no_progress_limit
    planes = [[0] * (2 * limit + 1).bit_length() for _ in (0, 1)]
    loss_new = [valid & ~side.has_move for side in sides]
    win_new = [0, 0]
    resolved = list(loss_new)
    wins_all = [0, 0]
    losses_all = list(loss_new)
    for colour in (0, 1):
        _record(planes[colour], 1, loss_new[colour])
    longest = 0
    for level in range(1, limit + 1):
        if time.perf_counter() > deadline:
            raise BuildTimeout
        found_w = [0, 0]
        found_l = [0, 0]
        for colour, side in enumerate(sides):
            other = 1 - colour
            open_ = valid & ~resolved[colour]
            won = _predecessors(side.quiet, loss_new[other])
            if level == 1:
                won |= side.capture_wins
                lost = open_ & ~side.not_lost & ~side.has_quiet
            else:
                lost = open_ & ~side.not_lost & _predecessors(side.quiet, win_new[other])
                if lost:
                    lost &= ~_predecessors(side.quiet, valid & ~wins_all[other])
            found_w[colour] = won & open_
            found_l[colour] = lost
        if not any(found_w) and not any(found_l):
            break
        for colour in (0, 1):
            resolved[colour] |= found_w[colour] | found_l[colour]
            wins_all[colour] |= found_w[colour]
            losses_all[colour] |= found_l[colour]
            _record(planes[colour], 2 * level, found_w[colour])
            _record(planes[colour], 2 * level + 1, found_l[colour])
        if any(found_w):
            longest = level
        win_new, loss_new = found_w, found_l
    if time.perf_counter() > deadline:
        raise BuildTimeout
    values = spread_values(planes[0], space.size)
    values.extend(spread_values(planes[1], space.size))
    return MaterialTable(
        material,
        values,
        valid,
        (wins_all[0], wins_all[1]),
        (losses_all[0], losses_all[1]),
        longest,
        time.perf_counter() - start,
    )


def _after_capture(
    space: Space,
    children: dict[Material, MaterialTable],
    material: Material,
    pair: tuple[int, int],
    colour: int,
) -> tuple[int, int]:
    """The placements, with the taken slot on the taker's square, whose child position
    (the other side to move) is lost, and those that are drawn, for that side."""
    taker, taken = pair
    child = children[material[:taken] + material[taken + 1 :]]
    other = 1 - colour
    lost = child.losses[other]
    drawn = child.valid & ~lost & ~child.wins[other]
    same = space.same(taker, taken)
    return space.expand(lost, taken) & same, space.expand(drawn, taken) & same
