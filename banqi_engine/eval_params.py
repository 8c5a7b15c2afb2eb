"""The engine's tunable parameters: one validated model, its defaults, and parsing.

Every weight the evaluation uses, and the two numbers of the search a tuner may move (the
draw's contempt and the root's aspiration window), is a field of ``EvalParams`` with the
bounds a tuner may move it within (``ge``/``le``). ``banqi-engine --param NAME=VALUE`` and
``banqi tune`` set them by name.
"""

import math
from collections.abc import Iterable
from typing import Final

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from .errors import RulesInputError


class ParamsError(RulesInputError):
    """An unknown parameter name, or a value that is not a number within its bounds."""


def _param(default: float, low: float, high: float, description: str) -> float:
    """A tunable weight: its default and the closed bounds ``[low, high]`` a value must lie in."""
    value: float = Field(default=default, ge=low, le=high, description=description)
    return value


class EvalParams(BaseModel):
    """Weights of the evaluation, then the search's tunable numbers (material units: a Pawn
    of the Olympiad order is 2)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    jumping_cannon_value: float = _param(
        24.0,
        4.0,
        64.0,
        "Base value of a cannon that jumps.",
    )
    king_pawn_discount: float = _param(
        0.08,
        0.0,
        0.2,
        "Share of the King's value lost per enemy Pawn.",
    )
    pawn_king_bonus: float = _param(
        6.0,
        0.0,
        20.0,
        "Value of Pawns while the enemy King lives.",
    )
    safe_factor: float = _param(
        1.2,
        1.0,
        2.0,
        "Factor on a piece nothing left can capture.",
    )
    mobility_weight: float = _param(
        0.15,
        0.0,
        2.0,
        "Value of each step a face-up piece can make.",
    )
    chase_weight: float = _param(
        0.3,
        0.0,
        3.0,
        "Pull towards prey that cannot hit back.",
    )
    chase_max_hidden: float = _param(
        10.0,
        0.0,
        32.0,
        "Chase counts once at most this many face down.",
    )
    enemy_weight: float = _param(
        0.2,
        0.0,
        2.0,
        "Gain of a piece's value as the enemies able to take it are captured.",
    )
    prey_weight: float = _param(
        0.0,
        0.0,
        0.9,
        "Share of a piece's value lost as the enemies it can take are captured.",
    )
    cannon_screen_weight: float = _param(
        0.3,
        0.0,
        0.9,
        "Share of a jumping cannon's value lost as pieces (screens) leave the board.",
    )
    threat_stm_weight: float = _param(
        0.2,
        0.0,
        1.0,
        "Share of the best gain the side to move threatens that it is credited.",
    )
    threat_opp_weight: float = _param(
        0.1,
        0.0,
        1.0,
        "Share of the best gain the opponent threatens that the side to move loses.",
    )
    trapped_weight: float = _param(
        0.4,
        0.0,
        1.0,
        "Share of the side to move's attacked pieces with no safe square it loses.",
    )
    confine_weight: float = _param(
        0.0,
        0.0,
        1.0,
        "Share of a piece's value lost when an enemy can take it and it has no safe square "
        "(half with one, less with more), times the share of the pieces face up.",
    )
    hunt_weight: float = _param(
        0.25,
        0.0,
        1.0,
        "Share of a piece's value credited to each enemy that chases it (takes it by a step, "
        "cannot be taken back) next to it, 0.64 times less a step farther; counted with "
        "chase_max_hidden or fewer pieces face down.",
    )
    parity_weight: float = _param(
        0.0,
        0.0,
        8.0,
        "Chaser with the right distance parity (no face down left), per chaser (off by "
        "default: no bonus scored better against jlc and in self-play).",
    )
    flip_risk_weight: float = _param(
        0.1,
        0.0,
        1.0,
        "Share of a piece's value at risk next to face-down squares, times the chance "
        "it hides an enemy that takes it by a step.",
    )
    progress_window: float = _param(
        30.0,
        1.0,
        200.0,
        "Plies before the no-progress draw over which the score fades to 0.",
    )
    progress_pressure: float = _param(
        0.0,
        0.0,
        0.5,
        "With nothing face down, share of the score lost as plies pass without a capture "
        "(all of it after 20): the side ahead presses for captures.",
    )
    contempt: float = _param(
        2.0,
        0.0,
        8.0,
        "Search: how far below 0 a draw by repetition or no progress scores for the engine.",
    )
    aspiration_window: float = _param(
        1.5,
        0.25,
        8.0,
        "Search: half-width of the root's aspiration window around the last score.",
    )


DEFAULT_PARAMS: Final = EvalParams()


def param_names() -> list[str]:
    """Names of the tunable parameters, in the model's order."""
    return list(EvalParams.model_fields)


def params_with(assignments: Iterable[str], base: EvalParams = DEFAULT_PARAMS) -> EvalParams:
    """``base`` with each ``NAME=VALUE`` assignment applied; ParamsError says what is wrong."""
    values: dict[str, float] = {}
    for item in assignments:
        name, sep, text = item.partition("=")
        name = name.strip()
        if not sep or not name:
            raise ParamsError(f"bad parameter {item!r}: expected NAME=VALUE")
        if name not in EvalParams.model_fields:
            raise ParamsError(f"unknown parameter {name!r}; allowed: {', '.join(param_names())}")
        try:
            value = float(text)
        except ValueError:
            raise ParamsError(f"parameter {name}: {text.strip()!r} is not a number") from None
        if not math.isfinite(value):
            raise ParamsError(f"parameter {name}: {text.strip()!r} is not a finite number")
        values[name] = value
    try:
        return base.model_validate({**base.model_dump(), **values})
    except ValidationError as error:
        problems = "; ".join(
            f"{'.'.join(str(p) for p in e['loc'])}: {e['msg']}" for e in error.errors()
        )
        raise ParamsError(f"bad parameter value: {problems}") from None
