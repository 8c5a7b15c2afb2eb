"""What every run shares: the fields of its config, and which of them may change on resume.

A match, a tournament, an SPRT and a tuning run each extend :class:`RunConfig` (a run played
in its own folder, under a seed it is given, extends :class:`FolderRunConfig`; one between
two engines, :class:`PairRunConfig`). A saved config keeps the field order its kind has
always written (``saved_order``), so a run folder's files read the same before and after;
a state file (:class:`SignedState`) ends with its MAC.
"""

from pathlib import Path
from typing import Any, ClassVar, Final

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    SerializerFunctionWrapHandler,
    model_serializer,
)

from banqi_engine.rules import RuleSet
from referee.engine_spec import EngineSpec
from referee.game_setup import DEFAULT_STALL_TIMEOUT, StallTimeout
from referee.macs import MAC_PATTERN
from referee.sandbox import SandboxMode
from referee.timecontrol import TimeControl


class SavedOrder(BaseModel):
    """A model written to a run folder with its fields in the order its file has always had
    them (``saved_order``; fields not named follow)."""

    saved_order: ClassVar[tuple[str, ...]] = ()
    left_out_when_none: ClassVar[frozenset[str]] = frozenset()
    """Fields not written while they are None."""

    @model_serializer(mode="wrap")
    def _in_saved_order(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        data: dict[str, Any] = handler(self)
        for name in self.left_out_when_none:
            if data.get(name, "") is None:
                del data[name]
        return {name: data[name] for name in self.saved_order if name in data} | data


class SignedState(SavedOrder):
    """A run folder's state file: its ``mac`` (``referee.macs``) after the fields
    ``saved_order`` names, left out while it has none (as in the files of runs made before
    files were signed)."""

    left_out_when_none: ClassVar[frozenset[str]] = frozenset({"mac"})

    mac: str | None = Field(default=None, pattern=MAC_PATTERN)


class RunConfig(SavedOrder):
    """The rules, clock and engine isolation of a run, and how many games it plays at once."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    resumable: ClassVar[frozenset[str]] = frozenset({"concurrency", "sandbox"})
    """Fields that may change on resume: they do not change which games are played (each
    record says how its engines were isolated)."""

    rules: RuleSet
    time_control: TimeControl = TimeControl()
    stall_timeout: StallTimeout = DEFAULT_STALL_TIMEOUT
    sandbox: SandboxMode = Field(
        default=SandboxMode.AUTO, description="How engines are isolated: auto, required, off."
    )
    concurrency: int = Field(default=1, ge=1, le=64, description="Games at once.")


class FolderRunConfig(RunConfig):
    """A run that knows its folder and seed, and whether it keeps its games' DCTP traffic."""

    resumable: ClassVar[frozenset[str]] = RunConfig.resumable | {"log_traffic", "out"}

    seed: int
    out: Path
    log_traffic: bool = False


PAIR_RUN_ORDER: Final = (
    "rules",
    "time_control",
    "seed",
    "out",
    "log_traffic",
    "stall_timeout",
    "sandbox",
    "concurrency",
)
"""The saved order of a match's and an SPRT's fields after their own."""


class PairRunConfig(FolderRunConfig):
    """A run between two engines (a match, an SPRT)."""

    engines: tuple[EngineSpec, EngineSpec]
