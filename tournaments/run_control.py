"""An organiser's hold on a run while it plays: the run paused, entrants paused, entrants
forfeited for good.

The state is kept in the run folder (``control.json``, written atomically at each change),
so that it holds across a stop and a resume. The runner asks :meth:`RunControl.startable`
which queued game to start next: none while the run is paused, none with a paused entrant
(the other games go on), and a forfeited entrant's games come up as usual to be recorded
as lost by forfeit. Games already being played are played to their end.
"""

import asyncio
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Final, Literal

from pydantic import BaseModel, ConfigDict

from banqi_common.atomic import write_atomic
from banqi_common.errors import InputError
from banqi_common.model_files import read_model_file

from .pairs import ScheduledGame

CONTROL_FILE: Final = "control.json"
CONTROL_FORMAT: Final = "banqi-control/1"
ORGANISER_FORFEIT_DETAIL: Final = "the organiser forfeited the engine for the rest of the event"
"""The detail of the record of a game lost because the organiser forfeited an entrant."""


class ControlError(InputError):
    """A control file that does not read, or an action on an engine the run does not have."""


class ControlState(BaseModel):
    """What ``control.json`` holds."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    format: Literal["banqi-control/1"] = CONTROL_FORMAT
    paused: bool = False
    """No new game starts while the run is paused."""
    paused_entrants: tuple[str, ...] = ()
    """Engines none of whose games starts until they are resumed."""
    forfeited: tuple[str, ...] = ()
    """Engines that lose every game of theirs not yet played, for good."""


class RunControl:
    """The organiser's state of one run, and the waits of the runner's workers on it."""

    def __init__(self, out: Path, names: Sequence[str]) -> None:
        self.path = out / CONTROL_FILE
        self.names = tuple(names)
        self.state = ControlState()
        if self.path.exists():
            self.state = read_model_file(self.path, ControlState, ControlError, "control file")
            unknown = sorted(
                set(self.state.paused_entrants + self.state.forfeited) - set(self.names)
            )
            if unknown:
                raise ControlError(
                    f"control file {self.path} names engines this run does not have: "
                    f"{', '.join(unknown)} (engines: {', '.join(self.names)})"
                )
        self._changed = asyncio.Condition()

    @property
    def paused(self) -> bool:
        """Whether the run is paused."""
        return self.state.paused

    def entrant_paused(self, name: str) -> bool:
        """Whether an engine is paused."""
        return name in self.state.paused_entrants

    def forfeited(self) -> frozenset[str]:
        """The engines forfeited for good."""
        return frozenset(self.state.forfeited)

    def startable(self, queue: Sequence[ScheduledGame]) -> int | None:
        """The index in ``queue`` of the first game that may start now, None if none may."""
        if self.state.paused:
            return None
        paused = set(self.state.paused_entrants)
        for index, game in enumerate(queue):
            if not paused & {spec.name for spec in game.setup.players}:
                return index
        return None

    async def changed(self) -> None:
        """Wait for the next change of the state."""
        async with self._changed:
            await self._changed.wait()

    async def pause(self) -> None:
        """Pause the run: no new game starts."""
        await self._set(self.state.model_copy(update={"paused": True}))

    async def resume(self) -> None:
        """Resume the run."""
        await self._set(self.state.model_copy(update={"paused": False}))

    async def pause_entrant(self, name: str) -> None:
        """Start no game of ``name`` until it is resumed (a forfeited one stays forfeited)."""
        self._check(name)
        if name in self.state.forfeited:
            raise ControlError(f"{name} is forfeited for good: it cannot be paused")
        paused = _with(self.state.paused_entrants, [name])
        await self._set(self.state.model_copy(update={"paused_entrants": paused}))

    async def resume_entrant(self, name: str) -> None:
        """Start the games of ``name`` again."""
        self._check(name)
        paused = tuple(n for n in self.state.paused_entrants if n != name)
        await self._set(self.state.model_copy(update={"paused_entrants": paused}))

    async def forfeit(self, name: str) -> None:
        """Forfeit ``name`` for good: each of its games not yet started is lost by forfeit."""
        self._check(name)
        paused = tuple(n for n in self.state.paused_entrants if n != name)
        forfeited = _with(self.state.forfeited, [name])
        await self._set(
            self.state.model_copy(update={"paused_entrants": paused, "forfeited": forfeited})
        )

    def _check(self, name: str) -> None:
        if name not in self.names:
            raise ControlError(f"no engine {name!r} in this run (engines: {', '.join(self.names)})")

    async def _set(self, state: ControlState) -> None:
        """Keep ``state`` (written first: a change that cannot be kept is not made)."""
        write_atomic(self.path, state.model_dump_json(indent=2) + "\n", "control file")
        self.state = state
        async with self._changed:
            self._changed.notify_all()


def _with(names: tuple[str, ...], more: Iterable[str]) -> tuple[str, ...]:
    return tuple(sorted(set(names) | set(more)))
