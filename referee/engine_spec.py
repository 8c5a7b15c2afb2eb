"""How to start one engine: a command line, a working directory, extra environment."""

import shlex
from pathlib import Path
from typing import Any, ClassVar, Final

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    SerializerFunctionWrapHandler,
    ValidationInfo,
    field_validator,
    model_serializer,
)

from banqi_common.errors import InputError

from .deals import KEY_ENV
from .engine_limits import EngineLimits

OWN_PREFIX: Final = "BANQI_"
"""banqi's own variables (the referee key's path, an arena entrant's token): never passed
to an engine by name."""
NAME_LIMIT = 80
"""Longest engine name, in characters."""


class EngineSpecError(InputError):
    """An engine command line that cannot be used."""


class EngineSpec(BaseModel):
    """One engine: its display name and how to start its process."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    name: str = Field(min_length=1, max_length=NAME_LIMIT)
    command: tuple[str, ...] = Field(min_length=1, description="Program and arguments.")
    cwd: Path | None = Field(default=None, description="Working directory of the process.")
    env: dict[str, str] = Field(
        default_factory=dict,
        description="Variables the engine gets, over the few of the referee's it gets "
        "(referee.engine_env).",
    )
    pass_env: tuple[str, ...] = Field(
        default=(),
        description="Names of the referee's variables the engine gets as they are (one the "
        "referee does not have is left out); the referee's others stay out of its sight.",
    )
    read_only: tuple[Path, ...] = Field(
        default=(),
        description="Further paths the sandboxed engine may read (relative to cwd); the "
        "system's folders, its program, its Python and the files its command names need "
        "not be listed.",
    )
    network: bool = Field(
        default=False,
        description="Keep the host's network in the sandbox (else only a loopback of its own).",
    )
    limits: EngineLimits = Field(
        default_factory=EngineLimits, description="What the sandboxed engine may use."
    )

    left_out_when_false: ClassVar[tuple[str, ...]] = ("network",)
    """Flags written only when true (state files and configs written before them read back
    byte for byte); a subclass adds its own."""

    @model_serializer(mode="wrap")
    def _leave_out_defaults(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        """The flags of ``left_out_when_false`` only when true, ``limits`` only when not
        the defaults, ``pass_env`` only when it names any (state files and configs written
        before them read back as they were)."""
        data: dict[str, Any] = handler(self)
        for flag in self.left_out_when_false:
            if not getattr(self, flag):
                data.pop(flag, None)
        if self.limits == EngineLimits():
            data.pop("limits", None)
        if not self.pass_env:
            data.pop("pass_env", None)
        return data

    @field_validator("name")
    @classmethod
    def _plain_name(cls, value: str) -> str:
        if value != value.strip() or any(c in value for c in "\r\n\t/\\"):
            raise ValueError("must not have surrounding spaces, tabs, newlines or slashes")
        return value

    @field_validator("env")
    @classmethod
    def _plain_env(cls, env: dict[str, str], info: ValidationInfo) -> dict[str, str]:
        engine = f" of engine {info.data['name']!r}" if "name" in info.data else ""
        for key, value in env.items():
            problem = env_problem(key, value)
            if problem:
                raise ValueError(f"env variable {key!r}{engine}: {problem}")
        return env

    @field_validator("pass_env")
    @classmethod
    def _plain_names(cls, names: tuple[str, ...], info: ValidationInfo) -> tuple[str, ...]:
        engine = f" of engine {info.data['name']!r}" if "name" in info.data else ""
        for name in names:
            problem = pass_env_problem(name)
            if problem:
                raise ValueError(f"pass_env name {name!r}{engine}: {problem}")
        return names

    def describe(self) -> str:
        """The command line as a shell would show it."""
        return shlex.join(self.command)


def env_problem(name: str, value: str = "") -> str | None:
    """What makes ``name=value`` unusable as an engine's variable; None when it can be."""
    if not name or "=" in name or "\0" in name:
        return "a name must be non-empty, with no = and no NUL byte"
    if "\0" in value:
        return "its value has a NUL byte"
    return None


def pass_env_problem(name: str) -> str | None:
    """What makes the referee's variable ``name`` unusable for ``pass_env``; None when it
    can be passed."""
    if name.startswith(OWN_PREFIX):
        return (
            f"banqi's own variables (the referee key's path {KEY_ENV}, an arena token) are "
            "never passed to an engine"
        )
    return env_problem(name)


def cwd_problem(spec: EngineSpec) -> str | None:
    """What is wrong with the spec's working directory: ``<cwd> does not exist`` or ``<cwd>
    is not a folder``; None when it is a folder or not given."""
    if spec.cwd is None or spec.cwd.is_dir():
        return None
    return f"{spec.cwd} {'is not a folder' if spec.cwd.exists() else 'does not exist'}"


def split_command(text: str) -> tuple[str, ...]:
    """Split an engine command line like a POSIX shell does."""
    try:
        parts = tuple(shlex.split(text))
    except ValueError as error:
        raise EngineSpecError(f"engine command {text!r} does not parse: {error}") from None
    if not parts:
        raise EngineSpecError("engine command is empty")
    return parts


def default_name(command: tuple[str, ...]) -> str:
    """A readable name for a command: base names of the program and of path arguments."""
    words = [Path(word).name if "/" in word else word for word in command]
    return " ".join(words)[:NAME_LIMIT].replace("/", "_").strip() or "engine"
