"""The evaluation's tunable parameters: one validated model, its defaults, and parsing.

Every weight the evaluation uses is a field of ``EvalParams`` with the bounds a tuner
may move it within (``ge``/``le``). ``banqi-engine --param NAME=VALUE`` and
``banqi tune`` set them by name.
"""

import math
from collections.abc import Iterable
from typing import Final

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from .errors import RulesInputError


class ParamsError(RulesInputError):
    """An unknown parameter name, or a value that is not a number within its bounds."""


class EvalParams(BaseModel):
    """Weights of the evaluation (material units: a Pawn of the Olympiad order is 2)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    jumping_cannon_value: float = Field(
        default=24.0, ge=4.0, le=64.0, description="Base value of a cannon that jumps."
    )
    king_pawn_discount: float = Field(
        default=0.08, ge=0.0, le=0.2, description="Share of the King's value lost per enemy Pawn."
    )
    pawn_king_bonus: float = Field(
        default=6.0, ge=0.0, le=20.0, description="Value of Pawns while the enemy King lives."
    )
    safe_factor: float = Field(
        default=1.2, ge=1.0, le=2.0, description="Factor on a piece nothing left can capture."
    )
    mobility_weight: float = Field(
        default=0.15, ge=0.0, le=2.0, description="Value of each step a face-up piece can make."
    )
    chase_weight: float = Field(
        default=0.3, ge=0.0, le=3.0, description="Pull towards prey that cannot hit back."
    )
    chase_max_hidden: float = Field(
        default=10.0, ge=0.0, le=32.0, description="Chase counts once at most this many face down."
    )
    enemy_weight: float = Field(
        default=0.2,
        ge=0.0,
        le=2.0,
        description="Gain of a piece's value as the enemies able to take it are captured.",
    )
    prey_weight: float = Field(
        default=0.0,
        ge=0.0,
        le=0.9,
        description="Share of a piece's value lost as the enemies it can take are captured.",
    )
    cannon_screen_weight: float = Field(
        default=0.3,
        ge=0.0,
        le=0.9,
        description="Share of a jumping cannon's value lost as pieces (screens) leave the board.",
    )
    threat_stm_weight: float = Field(
        default=0.2,
        ge=0.0,
        le=1.0,
        description="Share of the best gain the side to move threatens that it is credited.",
    )
    threat_opp_weight: float = Field(
        default=0.1,
        ge=0.0,
        le=1.0,
        description="Share of the best gain the opponent threatens that the side to move loses.",
    )
    trapped_weight: float = Field(
        default=0.4,
        ge=0.0,
        le=1.0,
        description="Share of the side to move's attacked pieces with no safe square it loses.",
    )
    parity_weight: float = Field(
        default=1.0,
        ge=0.0,
        le=8.0,
        description="Chaser with the right distance parity (no face down left), per chaser.",
    )
    flip_risk_weight: float = Field(
        default=0.1,
        ge=0.0,
        le=1.0,
        description="Share of a piece's value at risk next to face-down squares, times the chance "
        "it hides an enemy that takes it by a step.",
    )
    progress_window: float = Field(
        default=30.0,
        ge=1.0,
        le=200.0,
        description="Plies before the no-progress draw over which the score fades to 0.",
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
