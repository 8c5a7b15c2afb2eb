"""What a new game is asked with (``PlaySettings``), and the engines the server offers.

The browser names an engine by its id among those the server was started with (the
built-in levels, ``--engine`` and ``--config`` engines): it can never make the server run
a command of its own. A rule set is a preset's name or the text of a rule-set file.
"""

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Final, Literal

from pydantic import BaseModel, ConfigDict, Field

from banqi_engine.players import MAX_LEVEL
from banqi_engine.rules import RuleSet, preset, rules_from_text
from referee.engine_spec import EngineSpec
from referee.engine_start import EngineFactory
from referee.timecontrol import TimeControl
from tournaments.config import LEVEL_NAMES, builtin_engine_command

UNTIMED_SECONDS: Final = 86_400.0
"""The clock of an untimed game (a day a side), as told to engines and kept in records."""
UNTIMED_ENGINE_MOVE_TIME: Final = 5.0
"""Seconds a move an engine has in a game with neither a clock nor a limit a move (the
person's time is unlimited): a reply within 5 s keeps a casual game moving, and the
built-in engine, which spends at most 60% of a limit a move, still searches 3 s (on a
day's clock it would take up to 20 s a move)."""
DEFAULT_ENGINE: Final = "level-2"
"""The opponent a new game offers first: the built-in short search."""


class PlaySettings(BaseModel):
    """The settings of a new game, as the page sends them."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    mode: Literal["engine", "people"] = Field(
        default="engine", description="A person against an engine, or two people."
    )
    engine: str = Field(default=DEFAULT_ENGINE, max_length=100, description="An engine's id.")
    rules: str = Field(default="olympiad", max_length=100, description="A preset's name.")
    rules_file: str | None = Field(
        default=None,
        max_length=20_000,
        description="The text of a .toml or .json rule-set file, used instead of the preset.",
    )
    first: Literal["you", "opponent", "random"] = Field(
        default="you", description="Who flips first: you (player 1), the engine or player 2."
    )
    time: float | None = Field(
        default=None, gt=0, le=UNTIMED_SECONDS, description="Seconds a side; none: untimed."
    )
    move_time: float | None = Field(
        default=None, gt=0, le=3_600, description="Most seconds one move may take."
    )

    def rule_set(self) -> RuleSet:
        """The rule set asked for; RulesError says what is wrong with it."""
        if self.rules_file is None:
            return preset(self.rules)
        text = self.rules_file
        return rules_from_text(text, text.lstrip().startswith("{"), "the rule-set file")

    def time_control(self) -> TimeControl:
        """The game's time control (a day a side when untimed)."""
        return TimeControl(time=self.time or UNTIMED_SECONDS, move_time=self.move_time)

    @property
    def timed(self) -> bool:
        """Whether a clock or a per-move limit was asked for."""
        return self.time is not None or self.move_time is not None

    def engine_time_control(self) -> TimeControl | None:
        """An engine's own time control: in an untimed game a limit a move
        (``UNTIMED_ENGINE_MOVE_TIME``), told before each of its moves, so that it never
        thinks unbounded; None (the game's) when the game is timed."""
        if self.timed:
            return None
        return TimeControl(time=UNTIMED_SECONDS, move_time=UNTIMED_ENGINE_MOVE_TIME)


class EngineChoice(BaseModel):
    """An engine a person may play: its id, a label for the page, how to start it."""

    model_config = ConfigDict(frozen=True)

    id: str
    label: str
    spec: EngineSpec
    level: int | None = None


def builtin_choices() -> list[EngineChoice]:
    """The built-in engine at each of its levels."""
    return [
        EngineChoice(
            id=f"level-{level}",
            label=f"level {level}: {LEVEL_NAMES.get(level, 'engine')}",
            spec=EngineSpec(
                name=f"level-{level}", command=builtin_engine_command("--level", str(level))
            ),
            level=level,
        )
        for level in range(MAX_LEVEL + 1)
    ]


def engine_choices(extra: Sequence[EngineSpec]) -> list[EngineChoice]:
    """The built-in levels, then the given engines (ids ``engine-1``, ...)."""
    choices = builtin_choices()
    for number, spec in enumerate(extra, start=1):
        choices.append(EngineChoice(id=f"engine-{number}", label=spec.name, spec=spec))
    return choices


@dataclass(frozen=True)
class PlayOptions:
    """What the server's play sessions share: the engines offered, how engines are
    started (the referee's factory: sandboxed processes by default), where records go."""

    engines: list[EngineChoice]
    factory: EngineFactory
    out: Path

    def choice(self, engine_id: str) -> EngineChoice | None:
        """The engine of that id, if the server offers it."""
        return next((c for c in self.engines if c.id == engine_id), None)
