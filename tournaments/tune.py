"""SPSA tuning as fishtest runs it: the parameter file, the gain sequences, one iteration's
perturbation and update, and the state a tuning run keeps.

A parameter file (TOML) has a table per parameter, as a line of fishtest's SPSA form::

    [safe_factor]
    value = 1.2      # the start
    min = 1.0        # theta and every value played stay within [min, max]
    max = 2.0
    c_end = 0.05     # the perturbation at the last iteration
    r_end = 0.02     # the learning rate at the last iteration: a_end / c_end^2
    integer = true   # optional: the engine takes whole numbers (values played are rounded)

For a run of ``N`` iterations (pairs of games): ``A = 0.1 N``, ``c = c_end N^gamma``,
``a = r_end c_end^2 (A + N)^alpha`` with ``alpha = 0.602`` and ``gamma = 0.101``; iteration
``k`` (from 1) perturbs each parameter by ``c_k = c / k^gamma`` in the direction ``delta``
(a Rademacher vector: each ``+1`` or ``-1``, drawn from the run's seed and ``k``), plays the
engine at ``theta + c_k delta`` against the engine at ``theta - c_k delta`` and moves
``theta += r_k c_k result delta``, where ``r_k = a_k / c_k^2``, ``a_k = a / (A + k)^alpha``
and ``result`` is the plus engine's points less the minus engine's over the pair (-2 to 2).
Against a fixed opponent instead, each of the two plays a pair against it on the iteration's
deal, and ``result`` is again plus's points less minus's (-2 to 2).
The values played and theta are clipped to ``[min, max]``.
"""

import math
import random
import tomllib
from collections.abc import Mapping
from pathlib import Path
from typing import Any, ClassVar, Final, Literal, Self

import annotated_types
from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from banqi_common.errors import InputError
from banqi_common.write_errors import writing
from banqi_engine.eval_params import EvalParams, ParamsError, params_with
from referee.reasons import Reason

from .run_config import SignedState

ALPHA: Final = 0.602
"""Decay exponent of the step size ``a_k`` (fishtest's, Spall's)."""
GAMMA: Final = 0.101
"""Decay exponent of the perturbation ``c_k`` (fishtest's, Spall's)."""
A_RATIO: Final = 0.1
"""The stability constant ``A`` as a share of the run's iterations (fishtest's default)."""
C_END_SHARE: Final = 1 / 20
"""A starting file's ``c_end``: this share of ``max - min`` (Stockfish's tune.cpp default)."""
DEFAULT_R_END: Final = 0.02
"""A starting file's ``r_end``: ten times the 0.002 of Stockfish's tune.cpp, which is meant for
fishtest's runs of tens of thousands of pairs; about ``20 / N`` suits a run of N pairs."""


class ParamFileError(InputError):
    """A parameter file that cannot be read or does not hold valid parameters."""


class TuneParam(BaseModel):
    """One tuned parameter: its value (the start, or theta when written by a run), its bounds,
    and the perturbation and learning rate at the last iteration."""

    model_config = ConfigDict(frozen=True, extra="forbid", strict=True, allow_inf_nan=False)

    value: float = Field(description="The start (theta in a tuned file).")
    min: float = Field(description="Lowest value theta and the engines may take.")
    max: float = Field(description="Highest value theta and the engines may take.")
    c_end: float = Field(gt=0, description="Perturbation at the last iteration.")
    r_end: float = Field(gt=0, description="Learning rate a_end / c_end^2 at the last iteration.")
    integer: bool = Field(
        default=False, description="The engine takes whole numbers: values played are rounded."
    )

    @model_validator(mode="after")
    def _ordered(self) -> Self:
        if self.min >= self.max:
            raise ValueError(f"min {self.min:g} must be below max {self.max:g}")
        if not self.min <= self.value <= self.max:
            raise ValueError(
                f"value {self.value:g} is outside [min, max] = [{self.min:g}, {self.max:g}]"
            )
        if self.integer and not all(float(x).is_integer() for x in (self.min, self.max)):
            raise ValueError(f"integer: min {self.min:g} and max {self.max:g} must be whole")
        if self.c_end > self.max - self.min:
            raise ValueError(
                f"c_end {self.c_end:g} is larger than the whole range max - min = "
                f"{self.max - self.min:g}"
            )
        return self

    def clip(self, value: float) -> float:
        """``value`` within ``[min, max]``."""
        return min(max(value, self.min), self.max)

    def played(self, value: float) -> float:
        """What an engine is given for ``value``: clipped, and rounded if ``integer``."""
        clipped = self.clip(value)
        return float(round(clipped)) if self.integer else clipped


def _problems(error: ValidationError, name: str) -> str:
    """A parameter table's validation errors in one line, each naming the field."""
    problems = []
    for item in error.errors():
        where = ".".join(str(part) for part in item["loc"])
        message = str(item["msg"]).removeprefix("Value error, ")
        problems.append(f"{name}.{where}: {message}" if where else f"{name}: {message}")
    return "; ".join(problems)


def _load_toml(path: Path) -> dict[str, Any]:
    """The TOML document in ``path``; ParamFileError if it cannot be read or parsed."""
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as error:
        raise ParamFileError(
            f"cannot read the parameter file {path}: {error.strerror or error}"
        ) from None
    except UnicodeDecodeError:
        raise ParamFileError(f"the parameter file {path} is not UTF-8 text") from None
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        raise ParamFileError(f"the parameter file {path} is not valid TOML: {error}") from None


def _param(path: Path, name: str, table: Any) -> TuneParam:
    """The ``[name]`` table of a parameter file as a TuneParam."""
    if not isinstance(table, dict):
        raise ParamFileError(
            f"{path}: {name} must be a table [{name}] with value, min, max, c_end and r_end"
        )
    try:
        return TuneParam.model_validate(table)
    except ValidationError as error:
        raise ParamFileError(f"{path}: {_problems(error, name)}") from None


def read_param_file(path: Path) -> dict[str, TuneParam]:
    """The parameters of a tuning run's parameter file, in the file's order."""
    data = _load_toml(path)
    if not data:
        raise ParamFileError(f"the parameter file {path} has no parameters")
    return {name: _param(path, name, table) for name, table in data.items()}


def read_param_values(path: Path) -> dict[str, float]:
    """Each parameter's value in a file of either form: flat (``NAME = VALUE``) or tables of a
    tuning run (``[NAME]`` with ``value`` and the rest, as ``tuned.toml``)."""
    values = {}
    for name, entry in _load_toml(path).items():
        if isinstance(entry, dict):
            values[name] = _param(path, name, entry).value
        elif isinstance(entry, int | float) and not isinstance(entry, bool):
            if not math.isfinite(entry):
                raise ParamFileError(f"{path}: {name} = {entry} is not a finite number")
            values[name] = float(entry)
        else:
            raise ParamFileError(
                f"{path}: {name} = {entry!r} is neither a number nor a [{name}] table"
            )
    return values


def _toml_key(name: str) -> str:
    """A TOML key: bare if it can be, else quoted."""
    bare = name and all(c.isascii() and (c.isalnum() or c in "_-") for c in name)
    if bare:
        return name
    escaped = name.replace("\\", "\\\\").replace('"', '\\"')
    return f'"{escaped}"'


def param_file_text(params: Mapping[str, TuneParam], header: str = "") -> str:
    """A parameter file holding ``params`` (``header``: comment lines at the top); a
    parameter of the built-in engine gets its description as a comment."""
    lines = [f"# {line}" if line else "#" for line in header.splitlines()]
    for name, param in params.items():
        if lines:
            lines.append("")
        field = EvalParams.model_fields.get(name)
        if field is not None and field.description:
            lines.append(f"# {field.description}")
        lines.append(f"[{_toml_key(name)}]")
        for key in ("value", "min", "max", "c_end", "r_end"):
            lines.append(f"{key} = {float(getattr(param, key))!r}")
        if param.integer:
            lines.append("integer = true")
    return "\n".join(lines) + "\n"


def _number(bound: object) -> float:
    """A field's bound as a float (EvalParams' bounds are numbers)."""
    assert isinstance(bound, int | float)
    return float(bound)


def _bounds(name: str) -> tuple[float, float]:
    """The bounds a field of EvalParams gives a tuner (just inside an open bound), or (without
    them) ``[0, 2 v]`` as Stockfish's tune.cpp does (``[v - 1, v + 1]`` for a value of 0)."""
    field = EvalParams.model_fields[name]
    default = float(field.get_default(call_default_factory=True))
    low = high = None
    for rule in field.metadata:
        if isinstance(rule, annotated_types.Ge):
            low = _number(rule.ge)
        elif isinstance(rule, annotated_types.Gt):
            low = math.nextafter(_number(rule.gt), math.inf)
        elif isinstance(rule, annotated_types.Le):
            high = _number(rule.le)
        elif isinstance(rule, annotated_types.Lt):
            high = math.nextafter(_number(rule.lt), -math.inf)
    spread = abs(default) or 1.0
    return (
        default - spread if low is None else low,
        default + spread if high is None else high,
    )


def default_params() -> dict[str, TuneParam]:
    """A starting parameter file for the built-in engine: each EvalParams field at its
    default, within its bounds, ``c_end`` a twentieth of the range, ``r_end`` 0.02."""
    params = {}
    for name, field in EvalParams.model_fields.items():
        low, high = _bounds(name)
        params[name] = TuneParam(
            value=float(field.get_default(call_default_factory=True)),
            min=low,
            max=high,
            c_end=float(f"{(high - low) * C_END_SHARE:.6g}"),
            r_end=DEFAULT_R_END,
            integer=field.annotation is int,
        )
    return params


class Spsa:
    """The SPSA schedule of a run: ``iterations`` pairs over ``params``, the Rademacher
    vectors drawn from ``seed``."""

    def __init__(self, params: Mapping[str, TuneParam], iterations: int, seed: int) -> None:
        self.params = dict(params)
        self.iterations = iterations
        self.seed = seed
        self.big_a = A_RATIO * iterations
        """``A``: the stability constant, a tenth of the iterations."""
        self.c = {name: p.c_end * math.pow(iterations, GAMMA) for name, p in self.params.items()}
        """Each parameter's ``c``: ``c_k`` is ``c_end`` at the last iteration."""
        self.a = {
            name: p.r_end * p.c_end**2 * math.pow(self.big_a + iterations, ALPHA)
            for name, p in self.params.items()
        }
        """Each parameter's ``a``: ``a_k`` is ``r_end c_end^2`` at the last iteration."""

    def c_k(self, name: str, k: int) -> float:
        """The perturbation of parameter ``name`` at iteration ``k`` (from 1)."""
        return self.c[name] / math.pow(k, GAMMA)

    def a_k(self, name: str, k: int) -> float:
        """The step size of parameter ``name`` at iteration ``k``."""
        return self.a[name] / math.pow(self.big_a + k, ALPHA)

    def r_k(self, name: str, k: int) -> float:
        """The learning rate ``a_k / c_k^2`` of parameter ``name`` at iteration ``k``."""
        return self.a_k(name, k) / self.c_k(name, k) ** 2

    def delta(self, k: int) -> dict[str, int]:
        """Iteration ``k``'s Rademacher vector: +1 or -1 per parameter, the same for the same
        seed and ``k`` (so an iteration replayed after a resume perturbs the same way)."""
        draw = random.Random(f"banqi-spsa/{self.seed}/{k}")
        return {name: draw.choice((-1, 1)) for name in self.params}

    def perturbed(
        self, theta: Mapping[str, float], k: int
    ) -> tuple[dict[str, float], dict[str, float]]:
        """The values the plus and the minus engine of iteration ``k`` play: ``theta +- c_k
        delta``, clipped (and rounded where the engine takes whole numbers)."""
        delta = self.delta(k)
        plus, minus = {}, {}
        for name, param in self.params.items():
            step = self.c_k(name, k) * delta[name]
            plus[name] = param.played(theta[name] + step)
            minus[name] = param.played(theta[name] - step)
        return plus, minus

    def updated(self, theta: Mapping[str, float], k: int, result: float) -> dict[str, float]:
        """Theta after iteration ``k`` scored ``result`` (the plus engine's points less the
        minus engine's): ``theta + r_k c_k result delta``, clipped."""
        delta = self.delta(k)
        return {
            name: param.clip(
                theta[name] + self.r_k(name, k) * self.c_k(name, k) * result * delta[name]
            )
            for name, param in self.params.items()
        }


class TuneGame(BaseModel):
    """One game of an iteration: the points of the plus and the minus engine in it (None
    for the one that did not play it: a game against a fixed opponent)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    plus_points: float | None = Field(
        ge=0, le=1, description="1 win, 0.5 draw, 0 loss or void; None: did not play."
    )
    minus_points: float | None = Field(ge=0, le=1)
    reason: Reason
    plies: int = Field(ge=0)

    @model_validator(mode="after")
    def _played(self) -> Self:
        if self.plus_points is None and self.minus_points is None:
            raise ValueError("a game of a tuning run has the plus or the minus engine in it")
        return self


class PairResult(BaseModel):
    """One iteration: its games and the result the update used. Against each other the
    plus and the minus engine play two games (plus first, then minus first); against a
    fixed opponent each plays it two (plus's two games, then minus's), four in all."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    iteration: int = Field(ge=1)
    result: float = Field(
        ge=-2, le=2, description="Plus's points less minus's, over the iteration's games."
    )
    games: tuple[TuneGame, ...] = Field(min_length=2, max_length=4)

    @model_validator(mode="after")
    def _scheduled(self) -> Self:
        both = [
            game.plus_points is not None and game.minus_points is not None for game in self.games
        ]
        if len(self.games) == 2 and all(both):
            return self
        plus = [game.minus_points is None for game in self.games[:2]]
        minus = [game.plus_points is None for game in self.games[2:]]
        if len(self.games) == 4 and all(plus) and all(minus):
            return self
        raise ValueError(
            "an iteration is two games between plus and minus, or two of plus against the "
            "opponent then two of minus against it"
        )


class TuneState(SignedState):
    """What a tuning run has done: theta now, and every pair played, in the order their
    updates were made."""

    model_config = ConfigDict(frozen=True, extra="forbid")
    saved_order: ClassVar[tuple[str, ...]] = ("format", "theta", "pairs")

    format: Literal["banqi-tune-state/1"] = "banqi-tune-state/1"
    theta: dict[str, float]
    pairs: tuple[PairResult, ...] = ()

    def done(self) -> set[int]:
        """The iterations played."""
        return {pair.iteration for pair in self.pairs}

    def after(self, pair: PairResult, theta: Mapping[str, float]) -> "TuneState":
        """The state once ``pair`` has been played and theta updated to ``theta``."""
        return self.model_copy(update={"theta": dict(theta), "pairs": (*self.pairs, pair)})


def write_starting_file(path: Path) -> None:
    """Write the built-in engine's starting parameter file at ``path`` (never over a file)."""
    header = (
        "Parameters of banqi-engine's evaluation for 'banqi tune': each at its default and\n"
        "within its bounds; c_end a twentieth of max - min, r_end 0.02 (about 20 / N suits\n"
        "a run of N iterations). Delete the tables of parameters not to tune."
    )
    with writing(f"write parameter file {path}"):
        try:
            handle = path.open("x", encoding="utf-8")
        except FileExistsError:
            raise ParamFileError(
                f"{path} exists: not replaced (remove it or name another file)"
            ) from None
        with handle:
            handle.write(param_file_text(default_params(), header))


def check_builtin_params(params: dict[str, TuneParam], params_file: Path) -> None:
    """Refuse parameters the built-in engine does not have, or bounds beyond its own."""
    names = EvalParams.model_fields
    for name, param in params.items():
        if name not in names:
            raise ParamFileError(
                f"{params_file}: unknown parameter {name!r}: the built-in engine's parameters "
                f"are {', '.join(names)}"
            )
        for key in ("min", "max"):
            bound = getattr(param, key)
            try:
                params_with([f"{name}={bound!r}"])
            except ParamsError as error:
                raise ParamFileError(
                    f"{params_file}: {name}.{key} = {bound:g} is beyond the built-in engine's "
                    f"bounds ({error})"
                ) from None
