"""Engines given on the command line as ``[NAME=]COMMAND``."""

import functools
import re
from collections.abc import Callable
from typing import Any, TypeVar, cast

import click
from pydantic import ValidationError

from banqi_common.errors import InputError
from referee.engine_spec import NAME_LIMIT, EngineSpec, default_name, split_command

ENGINE_NAME = re.compile(r"^([^\s=/\\]+)=(.+)$", re.DOTALL)
"""``NAME=COMMAND``: a name with no space, ``=`` or slash, then the command."""

F = TypeVar("F", bound=Callable[..., Any])


def engine_spec(text: str) -> EngineSpec:
    """An engine from ``[NAME=]COMMAND`` (unnamed: named after its program); a clean error
    saying what is wrong if it cannot be used."""
    named = ENGINE_NAME.match(text)
    try:
        command = split_command(named.group(2) if named else text)
    except InputError as error:
        raise click.ClickException(str(error)) from None
    name = named.group(1) if named else default_name(command)
    try:
        return EngineSpec(name=name, command=command)
    except ValidationError as error:
        reason = str(error.errors()[0]["msg"]).removeprefix("Value error, ")
        raise click.ClickException(f"engine name {name!r}: {reason}") from None


def engine_specs(engine_a: str, engine_b: str) -> tuple[EngineSpec, EngineSpec]:
    """The two engines of a match or an SPRT; two unnamed engines of one name are told apart
    as ``NAME #1`` and ``NAME #2``."""
    specs = [engine_spec(engine_a), engine_spec(engine_b)]
    if specs[0].name == specs[1].name:
        if ENGINE_NAME.match(engine_a) and ENGINE_NAME.match(engine_b):
            raise click.ClickException(f"both engines are named {specs[0].name!r}")
        base = specs[0].name[: NAME_LIMIT - 3].rstrip()
        specs = [
            spec.model_copy(update={"name": f"{base} #{n}"}) for n, spec in enumerate(specs, 1)
        ]
    return specs[0], specs[1]


def engine_pair_arguments(first: str, second: str) -> Callable[[F], F]:
    """Two engine arguments, ``[NAME=]COMMAND_<first>`` and ``[NAME=]COMMAND_<second>``; the
    callback receives them as ``engines`` (``engine_specs``)."""

    def decorate(function: F) -> F:
        @functools.wraps(function)
        def wrapper(*args: Any, engine_1: str, engine_2: str, **kwargs: Any) -> Any:
            return function(*args, engines=engine_specs(engine_1, engine_2), **kwargs)

        with_second = click.argument("engine_2", metavar=f"[NAME=]COMMAND_{second}")(wrapper)
        return cast(F, click.argument("engine_1", metavar=f"[NAME=]COMMAND_{first}")(with_second))

    return decorate
