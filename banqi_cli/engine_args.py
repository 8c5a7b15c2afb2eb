"""Engines given on the command line as ``[NAME=]COMMAND``."""

import functools
import re
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Any, Final, TypeVar, cast

import click
from pydantic import ValidationError

from banqi_common.errors import InputError
from referee.engine_env import BASE_VARIABLES
from referee.engine_limits import EngineLimits
from referee.engine_spec import (
    NAME_LIMIT,
    EngineSpec,
    default_name,
    env_problem,
    pass_env_problem,
    split_command,
)

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


def distinct_specs(texts: Sequence[str]) -> list[EngineSpec]:
    """Engines from ``[NAME=]COMMAND`` texts; unnamed engines of one name are told apart as
    ``NAME #1``, ``NAME #2``; two given the same name are an error."""
    specs = [engine_spec(text) for text in texts]
    named = [spec.name for spec, text in zip(specs, texts, strict=True) if ENGINE_NAME.match(text)]
    for name in named:
        if named.count(name) > 1:
            which = "both" if len(texts) == 2 else "two"
            raise click.ClickException(f"{which} engines are named {name!r}")
    for name in {spec.name for spec in specs}:
        same = [index for index, spec in enumerate(specs) if spec.name == name]
        if len(same) > 1:
            base = name[: NAME_LIMIT - 4].rstrip()
            for number, index in enumerate(same, 1):
                specs[index] = specs[index].model_copy(update={"name": f"{base} #{number}"})
    return specs


def engine_specs(engine_a: str, engine_b: str) -> tuple[EngineSpec, EngineSpec]:
    """The two engines of a match or an SPRT (``distinct_specs``)."""
    first, second = distinct_specs([engine_a, engine_b])
    return first, second


def limits_from(assignments: tuple[str, ...]) -> EngineLimits | None:
    """The limits ``--limit KEY=VALUE`` sets (None without any); a clean error naming the
    assignment that cannot be used."""
    if not assignments:
        return None
    values: dict[str, str] = {}
    for text in assignments:
        key, sep, value = text.partition("=")
        if not sep or key.strip() not in EngineLimits.model_fields:
            allowed = ", ".join(EngineLimits.model_fields)
            raise click.BadParameter(
                f"{text!r}: expected KEY=VALUE, KEY one of {allowed}", param_hint="--limit"
            )
        values[key.strip()] = value.strip()
    try:
        return EngineLimits.model_validate(values)
    except ValidationError as error:
        problem = error.errors()[0]
        where = ".".join(str(part) for part in problem["loc"])
        raise click.BadParameter(f"{where}: {problem['msg']}", param_hint="--limit") from None


def env_from(assignments: tuple[str, ...]) -> dict[str, str]:
    """``--env NAME=VALUE``: the variables set, each checked as an engine's ``env`` is."""
    env: dict[str, str] = {}
    for text in assignments:
        name, sep, value = text.partition("=")
        problem = env_problem(name, value) if sep else "expected NAME=VALUE"
        if problem:
            raise click.BadParameter(f"{text!r}: {problem}", param_hint="--env")
        env[name] = value
    return env


def pass_env_from(names: tuple[str, ...]) -> tuple[str, ...]:
    """``--pass-env NAME``: the names, each checked as an engine's ``pass_env`` is."""
    for name in names:
        problem = pass_env_problem(name)
        if problem:
            raise click.BadParameter(f"{name!r}: {problem}", param_hint="--pass-env")
    return names


def check_names(given: Iterable[str], names: Sequence[str], option: str) -> None:
    """A clean error for a name given to ``option`` that is not one of the run's engines."""
    for name in given:
        if name not in names:
            raise click.BadParameter(
                f"{name!r} is not an engine of this run ({', '.join(map(repr, names))})",
                param_hint=option,
            )


def rooms_from(values: tuple[str, ...]) -> dict[str, Path]:
    """``--cwd NAME=DIR``: each named engine's room, an existing folder."""
    rooms = {}
    for value in values:
        name, sep, folder = value.partition("=")
        if not sep or not name or not folder:
            raise click.BadParameter(f"{value!r}: expected NAME=DIR", param_hint="--cwd")
        path = Path(folder).resolve()
        if not path.is_dir():
            raise click.BadParameter(f"{value!r}: {path} is not a folder", param_hint="--cwd")
        rooms[name] = path
    return rooms


CWD_HELP = (
    "Run the engine NAME in DIR, its room, writable by it alone (repeatable); engines run in "
    "a fresh empty folder otherwise."
)


def sandboxed_as_asked(
    engines: tuple[EngineSpec, EngineSpec], options: dict[str, tuple[str, ...]]
) -> tuple[EngineSpec, EngineSpec]:
    """The engines with the network given to those ``--network`` names, ``--limit``'s
    limits, ``--cwd``'s rooms, and ``--env`` and ``--pass-env``'s variables; a clean error
    for a name that is not one of them."""
    names = [spec.name for spec in engines]
    check_names(options["network"], names, "--network")
    rooms = rooms_from(options["cwd"])
    check_names(rooms, names, "--cwd")
    limits = limits_from(options["limit"])
    env, passed = env_from(options["env"]), pass_env_from(options["pass_env"])
    changed = [
        spec.model_copy(
            update={
                "network": spec.name in options["network"],
                "cwd": rooms.get(spec.name, spec.cwd),
                "env": {**spec.env, **env},
                "pass_env": (*spec.pass_env, *passed),
                **({"limits": limits} if limits else {}),
            }
        )
        for spec in engines
    ]
    return changed[0], changed[1]


LIMIT_HELP: Final = (
    "A sandbox limit (repeatable): "
    + ", ".join(
        f"{name} (default {field.default})" for name, field in EngineLimits.model_fields.items()
    )
    + "."
)


def limit_option(whose: str) -> Callable[[F], F]:
    """``--limit KEY=VALUE`` (repeatable), for the engines ``whose`` names."""
    return click.option("--limit", multiple=True, metavar="KEY=VALUE", help=f"{LIMIT_HELP} {whose}")


ENV_HELP: Final = (
    "Set the variable NAME to VALUE in every engine's environment (repeatable); an engine "
    f"gets only {', '.join(BASE_VARIABLES)} and LC_* of banqi's own, and HOME in its room."
)
PASS_ENV_HELP: Final = (
    "Pass banqi's own variable NAME to every engine as it is (repeatable; left out where "
    "banqi's environment does not have it)."
)


def env_options(function: F) -> F:
    """``--env NAME=VALUE`` and ``--pass-env NAME``, both repeatable."""
    with_env = click.option("--env", multiple=True, metavar="NAME=VALUE", help=ENV_HELP)(function)
    return click.option("--pass-env", multiple=True, metavar="NAME", help=PASS_ENV_HELP)(with_env)


SANDBOX_OPTIONS: Final = ("network", "limit", "cwd", "env", "pass_env")
"""The options of ``engine_pair_arguments`` that ``sandboxed_as_asked`` applies."""


def engine_pair_arguments(first: str, second: str) -> Callable[[F], F]:
    """Two engine arguments, ``[NAME=]COMMAND_<first>`` and ``[NAME=]COMMAND_<second>``, with
    ``--network NAME``, ``--limit KEY=VALUE``, ``--cwd NAME=DIR``, ``--env NAME=VALUE`` and
    ``--pass-env NAME``; the callback receives them as ``engines`` (``engine_specs``, then
    ``sandboxed_as_asked``)."""

    def decorate(function: F) -> F:
        @functools.wraps(function)
        def wrapper(
            *args: Any,
            engine_1: str,
            engine_2: str,
            **kwargs: Any,
        ) -> Any:
            options = {key: kwargs.pop(key) for key in SANDBOX_OPTIONS}
            engines = sandboxed_as_asked(engine_specs(engine_1, engine_2), options)
            return function(*args, engines=engines, **kwargs)

        with_limit = limit_option("Of both engines.")(env_options(wrapper))
        with_network = click.option(
            "--network",
            multiple=True,
            metavar="NAME",
            help="Give the engine NAME the host's network in the sandbox (repeatable); "
            "engines have only a loopback of their own otherwise.",
        )(with_limit)
        with_cwd = click.option("--cwd", multiple=True, metavar="NAME=DIR", help=CWD_HELP)(
            with_network
        )
        with_second = click.argument("engine_2", metavar=f"[NAME=]COMMAND_{second}")(with_cwd)
        return cast(F, click.argument("engine_1", metavar=f"[NAME=]COMMAND_{first}")(with_second))

    return decorate
