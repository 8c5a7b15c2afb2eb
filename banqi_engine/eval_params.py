"""The evaluation's tunable parameters: one validated model, its defaults, and parsing.

Every weight the evaluation uses is a field of ``EvalParams`` with the bounds a tuner
may move it within (``ge``/``le``). ``banqi-engine --param NAME=VALUE`` and
``banqi tune`` set them by name.
"""

from collections.abc import Iterable
from typing import Final

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from .errors import BanqiError


class ParamsError(BanqiError):
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
            values[name] = float(text)
        except ValueError:
            raise ParamsError(f"parameter {name}: {text.strip()!r} is not a number") from None
    try:
        return base.model_validate({**base.model_dump(), **values})
    except ValidationError as error:
        problems = "; ".join(
            f"{'.'.join(str(p) for p in e['loc'])}: {e['msg']}" for e in error.errors()
        )
        raise ParamsError(f"bad parameter value: {problems}") from None
