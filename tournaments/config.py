"""A tournament is data: engines, format, rounds, rules, clock, seed, workers.

It is read from a TOML file (``banqi tournament CONFIG.toml``) or built from flags,
validated as one pydantic model, and saved in the run folder so a resumed run can
be checked against it.

Formats: a round-robin pairs every two engines; a gauntlet pairs each gauntlet engine
(those marked ``gauntlet = true``, else the first) with every other engine, and gauntlet
engines not with each other. An engine's own ``time`` table is laid over the run's time
control for its side of the clock (time odds).
"""

import sys
import tomllib
from enum import StrEnum
from pathlib import Path
from typing import Any, ClassVar

from pydantic import (
    Field,
    ValidationError,
    ValidationInfo,
    field_validator,
    model_validator,
)

from banqi_common.errors import InputError
from banqi_engine.errors import RulesInputError
from banqi_engine.players import MAX_LEVEL
from banqi_engine.rules import PRESETS, RuleSet, resolve_rules, rules_from_data
from referee.engine_spec import EngineSpec, EngineSpecError, cwd_problem, split_command
from referee.timecontrol import TimeControl, TimeOverride

from .run_config import RunConfig
from .run_size import games_over_limit

MAX_ENGINES = 64

REMOTE_COMMAND = "(remote)"
"""The command a remote entrant's spec carries: it is never run (its engine connects)."""
LEVEL_NAMES = {0: "random", 1: "greedy", 2: "quick-search", 3: "search"}
"""Names of the built-in engine's levels in the demo field."""


class ConfigError(InputError):
    """A tournament configuration that cannot be used."""


class TournamentFormat(StrEnum):
    """Who plays whom."""

    ROUND_ROBIN = "round-robin"
    GAUNTLET = "gauntlet"


class EngineEntry(EngineSpec):
    """An engine of a tournament: how to start it, and what the tournament makes of it."""

    left_out_when_false: ClassVar[tuple[str, ...]] = (*EngineSpec.left_out_when_false, "remote")

    gauntlet: bool = Field(
        default=False,
        description="In a gauntlet: one of the engines that play every other engine "
        "(when no engine is marked, the first is).",
    )
    time: TimeOverride | None = Field(
        default=None,
        description="The engine's own time control: fields laid over the run's (time odds).",
    )
    remote: bool = Field(
        default=False,
        description="Played by whoever connects with the entrant's token to 'banqi serve' "
        "(no command: its engine runs on its own machine).",
    )

    def spec(self) -> EngineSpec:
        """How to start the engine, without the tournament's fields."""
        return EngineSpec.model_validate(self.model_dump(include=set(EngineSpec.model_fields)))


class TournamentConfig(RunConfig):
    """Everything that decides which games a tournament plays and how."""

    resumable: ClassVar[frozenset[str]] = RunConfig.resumable | {"cluster"}
    """Fields that may change on resume; ``rounds`` may grow too (``state.open_run``)."""
    saved_order: ClassVar[tuple[str, ...]] = (
        "format",
        "engines",
        "rounds",
        "rules",
        "time_control",
        "seed",
        "concurrency",
        "stall_timeout",
        "max_failures",
        "sandbox",
        "cluster",
    )

    format: TournamentFormat = Field(
        default=TournamentFormat.ROUND_ROBIN,
        description="round-robin: every two engines meet; gauntlet: the gauntlet engines "
        "meet every other engine, not each other.",
    )
    engines: tuple[EngineEntry, ...] = Field(
        description="At least two engines, at most 64, each with its own name."
    )
    rounds: int = Field(
        default=1,
        ge=1,
        le=10_000,
        description="Each pairing plays 2 games a round; a resumed run may add rounds. A run "
        "holds at most 1,000,000 games.",
    )
    rules: RuleSet = PRESETS["olympiad"]
    seed: int | None = Field(default=None, ge=0, description="Run seed; random when omitted.")
    max_failures: int = Field(
        default=3, ge=1, le=1000, description="Faults in a row that forfeit an engine's games."
    )
    cluster: str | None = Field(
        default=None,
        description="The Dask scheduler that plays the games (tcp://HOST:8786, or local:N); "
        "none: played here.",
    )

    @field_validator("engines")
    @classmethod
    def _field_of_engines(
        cls, engines: tuple[EngineEntry, ...], info: ValidationInfo
    ) -> tuple[EngineEntry, ...]:
        if not 2 <= len(engines) <= MAX_ENGINES:
            raise ValueError(f"a tournament needs 2 to {MAX_ENGINES} engines, not {len(engines)}")
        names = [e.name for e in engines]
        repeated = sorted({n for n in names if names.count(n) > 1})
        if repeated:
            raise ValueError(f"engine names must differ; repeated: {', '.join(repeated)}")
        marked = [e.name for e in engines if e.gauntlet]
        if marked and info.data.get("format") is not TournamentFormat.GAUNTLET:
            raise ValueError(f'gauntlet = true ({", ".join(marked)}) needs format = "gauntlet"')
        if len(marked) == len(engines):
            raise ValueError("every engine is marked gauntlet = true: none is left to play them")
        return engines

    @field_validator("rules", mode="before")
    @classmethod
    def _rules_by_name(cls, value: Any) -> Any:
        if isinstance(value, str):
            return resolve_rules(value)
        if isinstance(value, dict):
            return rules_from_data(value, "rules")
        return value

    @field_validator("engines", mode="before")
    @classmethod
    def _split_commands(cls, value: Any) -> Any:
        if isinstance(value, list | tuple):
            out = []
            for index, item in enumerate(value):
                if isinstance(item, EngineSpec) and not isinstance(item, EngineEntry):
                    item = item.model_dump()
                if isinstance(item, dict) and item.get("remote") is True:
                    who = item.get("name") or f"number {index + 1}"
                    if item.get("command", (REMOTE_COMMAND,)) not in (
                        (REMOTE_COMMAND,),
                        [REMOTE_COMMAND],
                    ):
                        raise ValueError(f"engine {who}: a remote entrant has no command")
                    item = {**item, "command": (REMOTE_COMMAND,)}
                if isinstance(item, dict) and isinstance(item.get("command"), str):
                    try:
                        item = {**item, "command": split_command(item["command"])}
                    except EngineSpecError as error:
                        who = item.get("name") or f"number {index + 1}"
                        raise ValueError(f"engine {who}: {error}") from None
                out.append(item)
            return out
        return value

    @model_validator(mode="after")
    def _within_size(self) -> "TournamentConfig":
        what = f"rounds = {self.rounds} with {len(self.engines)} engines"
        if self.format is TournamentFormat.GAUNTLET:
            what += f" ({len(self.gauntlet_indices())} in the gauntlet)"
        reason = games_over_limit(self.games_total(), what)
        if reason:
            raise ValueError(reason)
        return self

    def remote_names(self) -> frozenset[str]:
        """The names of the remote entrants (played by clients of ``banqi serve``)."""
        return frozenset(e.name for e in self.engines if e.remote)

    def gauntlet_indices(self) -> tuple[int, ...]:
        """The gauntlet engines, by index: those marked, else the first; none in a
        round-robin."""
        if self.format is not TournamentFormat.GAUNTLET:
            return ()
        return tuple(i for i, e in enumerate(self.engines) if e.gauntlet) or (0,)

    def gauntlet_names(self) -> tuple[str, ...]:
        """The names of the gauntlet engines (none in a round-robin)."""
        return tuple(self.engines[i].name for i in self.gauntlet_indices())

    def pairings(self) -> list[tuple[int, int]]:
        """Who meets whom, as engine indices ``i < j`` in schedule order: every two engines,
        or in a gauntlet each gauntlet engine and each other engine."""
        count = len(self.engines)
        pairs = [(i, j) for i in range(count) for j in range(i + 1, count)]
        gauntlet = self.gauntlet_indices()
        if gauntlet:
            pairs = [(i, j) for i, j in pairs if (i in gauntlet) != (j in gauntlet)]
        return pairs

    def own_time(self, index: int) -> TimeControl | None:
        """The time control of engine ``index`` when its own ``time`` makes it differ from
        the run's; None when it plays by the run's."""
        override = self.engines[index].time
        own = None if override is None else override.over(self.time_control)
        return None if own == self.time_control else own

    def pairing_count(self) -> int:
        """How many pairings a round has, counted without listing them: n(n-1)/2 in a
        round-robin of n engines, g(n-g) in a gauntlet of g gauntlet engines."""
        count = len(self.engines)
        gauntlet = len(self.gauntlet_indices())
        return gauntlet * (count - gauntlet) if gauntlet else count * (count - 1) // 2

    def games_total(self) -> int:
        """How many games the schedule holds: 2 a pairing a round."""
        return self.rounds * 2 * self.pairing_count()


def _describe(error: ValidationError, source: str, renamed: dict[str, str]) -> str:
    parts = []
    for item in error.errors():
        loc = [renamed.get(str(p), str(p)) if i == 0 else str(p) for i, p in enumerate(item["loc"])]
        message = str(item["msg"]).removeprefix("Value error, ")
        if item["type"] == "extra_forbidden":
            message = "unknown field"
        parts.append(f"{'.'.join(loc)}: {message}" if loc else message)
    return f"bad tournament config in {source}: " + "; ".join(parts)


def config_from_data(data: dict[str, Any], source: str) -> TournamentConfig:
    """Validate a mapping (from TOML, JSON or flags); ConfigError names each bad field, and
    an engine's ``cwd`` that is not an existing folder (``engines[N]`` counts from 1)."""
    data = dict(data)
    renamed: dict[str, str] = {}
    if "time" in data and "time_control" not in data:
        data["time_control"] = data.pop("time")
        renamed["time_control"] = "time"
    try:
        config = TournamentConfig.model_validate(data)
    except ValidationError as error:
        raise ConfigError(_describe(error, source, renamed)) from None
    except RulesInputError as error:
        raise ConfigError(f"bad tournament config in {source}: {error}") from None
    for number, engine in enumerate(config.engines, 1):
        problem = cwd_problem(engine)
        if problem:
            raise ConfigError(
                f"bad tournament config in {source}: engines[{number}].cwd: {problem} "
                f"(engine {engine.name!r}); give an existing folder"
            )
    return config


def load_config(path: Path) -> TournamentConfig:
    """Read a TOML tournament config; relative engine ``cwd`` is taken from the file's folder."""
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except OSError as error:
        raise ConfigError(f"cannot read {path}: {error}") from None
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as error:
        raise ConfigError(f"{path} is not valid TOML: {error}") from None
    for engine in data.get("engines", []) if isinstance(data.get("engines"), list) else []:
        if isinstance(engine, dict) and isinstance(engine.get("cwd"), str):
            engine["cwd"] = str((path.parent / engine["cwd"]).resolve())
    return config_from_data(data, str(path))


def builtin_engine_command(*args: str) -> tuple[str, ...]:
    """The command line of our own engine, by this Python, whatever is on PATH."""
    return (sys.executable, "-c", "from banqi_cli.engine import main; main()", *args)


def demo_engines() -> tuple[EngineEntry, ...]:
    """The demo field: our engine at each of its levels (level 0 is the random player)."""
    return tuple(
        EngineEntry(
            name=LEVEL_NAMES.get(level, f"level-{level}"),
            command=builtin_engine_command("--level", str(level)),
        )
        for level in range(MAX_LEVEL + 1)
    )
