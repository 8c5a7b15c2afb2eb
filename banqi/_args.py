"""The arguments of the API, checked and turned into the project's types (rules, seconds,
engine specs); ``ArgumentError`` says what is wrong with one."""

import math
import os
from collections.abc import Sequence
from pathlib import Path

from pydantic import ValidationError

from banqi_engine.errors import RulesInputError
from banqi_engine.rules import RuleSet, resolve_rules
from referee.engine_spec import NAME_LIMIT, EngineSpec, default_name
from referee.sandbox import SandboxMode
from referee.timecontrol import TimeControl

from .errors import ArgumentError

RulesLike = str | os.PathLike[str] | RuleSet
"""A preset name (``"olympiad"``), a ``.toml``/``.json`` rule-set file, or a ``RuleSet``."""
EngineLike = str | os.PathLike[str] | Sequence[str] | EngineSpec
"""An engine to start: a program's path, a command (program and arguments), or a spec."""


def rule_set(rules: RulesLike) -> RuleSet:
    """The rule set ``rules`` names: a preset name, a rule-set file, or itself."""
    if isinstance(rules, RuleSet):
        return rules
    if not isinstance(rules, str | os.PathLike):
        raise ArgumentError(f"rules must be a preset name, a file or a RuleSet, not {rules!r}")
    try:
        return resolve_rules(os.fspath(rules))
    except RulesInputError as error:
        raise ArgumentError(str(error)) from None


def seconds(name: str, value: float | None, *, zero: bool = False) -> float | None:
    """``value`` checked as a finite number of seconds, above 0 (or at least 0)."""
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise ArgumentError(f"{name} must be a number of seconds, not {value!r}")
    if not math.isfinite(value) or value < 0 or (value == 0 and not zero):
        least = "0 or more" if zero else "more than 0"
        raise ArgumentError(f"{name} must be a finite number of seconds, {least}: got {value!r}")
    return float(value)


def command_of(engine: str | os.PathLike[str] | Sequence[str]) -> tuple[str, ...]:
    """The command line of an engine given as a path (one word) or a command."""
    if isinstance(engine, str | os.PathLike):
        return (os.fspath(engine),)
    command = tuple(engine)
    if not command or not all(isinstance(word, str) for word in command):
        raise ArgumentError(f"an engine command is a non-empty list of strings, not {engine!r}")
    return command


def engine_spec(
    engine: EngineLike,
    *,
    name: str | None = None,
    cwd: str | os.PathLike[str] | None = None,
    env: dict[str, str] | None = None,
) -> EngineSpec:
    """The spec of ``engine`` (a spec is kept as it is); ``name`` defaults to the command's
    program and path arguments by their base names."""
    if isinstance(engine, EngineSpec):
        return engine
    command = command_of(engine)
    try:
        return EngineSpec(
            name=name or default_name(command),
            command=command,
            cwd=None if cwd is None else Path(cwd),
            env=dict(env or {}),
        )
    except ValidationError as error:
        raise ArgumentError(f"engine {list(command)!r}: {error.errors()[0]['msg']}") from None


def distinct(specs: tuple[EngineSpec, EngineSpec]) -> tuple[EngineSpec, EngineSpec]:
    """Two specs with different names: the same name gets ``#1`` and ``#2``."""
    first, second = specs
    if first.name != second.name:
        return specs
    base = first.name[: NAME_LIMIT - 3].rstrip()
    return (
        first.model_copy(update={"name": f"{base} #1"}),
        second.model_copy(update={"name": f"{base} #2"}),
    )


def time_control(time: float, increment: float, move_time: float | None) -> TimeControl:
    """The clock of each player; ArgumentError for a bad value."""
    try:
        return TimeControl(time=time, increment=increment, move_time=move_time)
    except ValidationError as error:
        raise ArgumentError(field_words(error, "time")) from None


def field_words(error: ValidationError, what: str) -> str:
    """A pydantic error as one line: ``first: Input should be less than or equal to 1``."""
    parts = [
        f"{'.'.join(str(part) for part in item['loc']) or what}: {item['msg']}"
        for item in error.errors()
    ]
    return "; ".join(parts)


def sandbox_mode(sandbox: str) -> SandboxMode:
    """The sandbox mode named ``sandbox``; ArgumentError for another word."""
    try:
        return SandboxMode(sandbox)
    except ValueError:
        allowed = ", ".join(mode.value for mode in SandboxMode)
        raise ArgumentError(f"unknown sandbox {sandbox!r}; allowed: {allowed}") from None
