"""Options and argument types shared by several commands."""

from collections.abc import Callable
from typing import Any, TypeVar

import click

from banqi_engine.errors import BanqiError
from banqi_engine.rules import DEFAULT_RULES, PRESETS, RuleSet, resolve_rules

F = TypeVar("F", bound=Callable[..., Any])


class RulesType(click.ParamType):  # type: ignore[type-arg]
    """A preset name or the path of a rule-set file, converted to a RuleSet."""

    name = "RULES"

    def convert(
        self, value: Any, param: click.Parameter | None, ctx: click.Context | None
    ) -> RuleSet:
        if isinstance(value, RuleSet):
            return value
        try:
            return resolve_rules(str(value))
        except BanqiError as error:
            self.fail(str(error), param, ctx)


def rules_option(function: F) -> F:
    """``--rules NAME|FILE``, default ``olympiad``."""
    return click.option(
        "--rules",
        type=RulesType(),
        default=DEFAULT_RULES,
        show_default=True,
        help=f"Rule set: {', '.join(PRESETS)}, or a .toml/.json rule-set file.",
    )(function)
