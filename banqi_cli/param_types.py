"""Argument types of the commands: a rule set, a finite float, a position string, an option
shaped by a model's field, a points scheme."""

import math
import re
from collections.abc import Callable
from enum import StrEnum
from pathlib import Path
from typing import Any, TypeVar

import annotated_types
import click
from pydantic import BaseModel

from banqi_engine.rules import RuleSet, resolve_rules
from tournaments.match_score import PointsScheme, parse_points

F = TypeVar("F", bound=Callable[..., Any])


class ParsedType(click.ParamType):  # type: ignore[type-arg]
    """A value parsed from its text by ``parse``; what ``parse`` raises (a ValueError) is
    click's one-line error about the option."""

    def __init__(self, name: str, kind: type, parse: Callable[[str], Any]) -> None:
        self.name = name
        self.kind = kind
        self.parse = parse

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        if isinstance(value, self.kind):
            return value
        try:
            return self.parse(str(value))
        except ValueError as error:
            self.fail(str(error), param, ctx)


def rules_type() -> ParsedType:
    """A preset name or the path of a rule-set file, converted to a RuleSet."""
    return ParsedType("RULES", RuleSet, resolve_rules)


def points_type() -> ParsedType:
    """``--points WIN,DRAW,LOSS``: three finite numbers, a win above a loss, a draw between."""
    return ParsedType("WIN,DRAW,LOSS", PointsScheme, parse_points)


POSITION_LIKE = re.compile(r"-[-A-Za-z]*[/\s]")
"""An argument that starts like a position string whose first square is empty
(``-M-P/GX-c/...``): dashes and letters up to a ``/`` or a space, which no option has."""


NEGATIVE = re.compile(r"^-[0-9]+$")


class PositionCommand(click.Command):
    """A command taking a position string, which may start with ``-`` (an empty square)
    with no ``--`` before it, and numbers, which may be negative (to be refused by their
    range, not read as an unknown option).

    Such an argument is given to click with a leading space, so that it is never read as
    options; the position parser and int() ignore the space.
    """

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        return super().parse_args(
            ctx,
            [f" {arg}" if POSITION_LIKE.match(arg) or NEGATIVE.match(arg) else arg for arg in args],
        )


class FiniteFloatRange(click.FloatRange):
    """A float within bounds that also refuses ``nan`` and the infinities (``nan`` compares
    false with both bounds, so a plain range lets it through)."""

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        number = click.FLOAT.convert(value, param, ctx)
        if not math.isfinite(number):
            self.fail(f"{value!r} is not a finite number", param, ctx)
        return super().convert(number, param, ctx)


def field_option(
    *declarations: str, model: type[BaseModel], field: str, help: str
) -> Callable[[F], F]:
    """A click option whose type, bounds and default are those of a model's field."""
    info = model.model_fields[field]
    bounds: dict[str, Any] = {}
    for rule in info.metadata:
        if isinstance(rule, annotated_types.Gt):
            bounds.update(min=rule.gt, min_open=True)
        elif isinstance(rule, annotated_types.Ge):
            bounds.update(min=rule.ge)
        elif isinstance(rule, annotated_types.Lt):
            bounds.update(max=rule.lt, max_open=True)
        elif isinstance(rule, annotated_types.Le):
            bounds.update(max=rule.le)
    kind = click.IntRange(**bounds) if info.annotation is int else FiniteFloatRange(**bounds)
    default = info.get_default(call_default_factory=True)
    return click.option(
        *declarations, type=kind, default=default, show_default=default is not None, help=help
    )


def shown_option(*declarations: str, **settings: Any) -> Callable[[F], F]:
    """A click option whose default ``--help`` shows."""
    return click.option(*declarations, show_default=True, **settings)


def path_option(
    *declarations: str, folder: bool = False, exists: bool = False, **settings: Any
) -> Callable[[F], F]:
    """A click option naming a file (or, with ``folder``, a folder) as a Path, by default
    none."""
    kind = click.Path(exists=exists, file_okay=not folder, dir_okay=folder, path_type=Path)
    settings.setdefault("default", None)
    return click.option(*declarations, type=kind, **settings)


def choice_option(
    *declarations: str, choices: type[StrEnum], default: StrEnum, **settings: Any
) -> Callable[[F], F]:
    """A click option taking one of an enum's values (the callback receives the text),
    its default shown in ``--help``."""
    return shown_option(
        *declarations,
        type=click.Choice([choice.value for choice in choices]),
        default=default.value,
        **settings,
    )
