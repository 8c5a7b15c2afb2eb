"""What one sandboxed engine may use: memory, processes, the size of its room, CPU time.

The limits are fields of each engine's entry (``limits = {memory_mib = 8192}``) and of
``banqi match --limit``. Control groups enforce memory and processes where this process
may make them (:mod:`referee.cgroups`); resource limits (``setrlimit``) bound the size of
each file, CPU time, and, without control groups, the address space and (for a user other
than root) the number of processes. The room and the private ``/tmp`` are a tmpfs of the
room's size.
"""

import os
import resource
from typing import Final

from pydantic import BaseModel, ConfigDict, Field

MIB: Final = 1 << 20
DEFAULT_MEMORY_MIB: Final = 2048
"""An engine's memory by default: two engines a game, a few games at once, and the
referee fit in a machine of 16 GiB; an engine that needs more is given it
(``--limit memory_mib=8192``, ``limits = {memory_mib = 8192}``)."""


class EngineLimits(BaseModel):
    """One engine's limits inside the sandbox (``--sandbox off`` applies none)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    memory_mib: int = Field(
        default=DEFAULT_MEMORY_MIB,
        ge=16,
        le=1 << 22,
        description="Memory of all the engine's processes together, in MiB.",
    )
    processes: int = Field(
        default=256,
        ge=1,
        le=1 << 16,
        description="Processes and threads the engine may have at once.",
    )
    room_mib: int = Field(
        default=256,
        ge=1,
        le=1 << 22,
        description="Size of the engine's private /tmp, which holds its fresh room, in MiB; "
        "also the largest file it may write anywhere.",
    )
    cpu_seconds: int | None = Field(
        default=None,
        ge=1,
        description="CPU seconds each of its processes may use in a game (none: only the "
        "clock and the idle limit govern thinking).",
    )

    @property
    def memory_bytes(self) -> int:
        """The memory limit in bytes."""
        return self.memory_mib * MIB

    @property
    def room_bytes(self) -> int:
        """The room's size in bytes."""
        return self.room_mib * MIB


def _user_processes(uid: int) -> int:
    count = 0
    for entry in os.scandir("/proc"):
        try:
            if entry.name.isdigit() and entry.stat().st_uid == uid:
                count += 1
        except OSError:
            continue
    return count


def rlimit_settings(limits: EngineLimits, *, in_cgroup: bool) -> dict[int, int]:
    """The ``setrlimit`` values for an engine: the file size and CPU time always; without a
    control group, the address space, and for a user other than root the number of the
    user's processes (which counts all of them: the present count plus the engine's)."""
    settings = {resource.RLIMIT_FSIZE: limits.room_bytes}
    if limits.cpu_seconds is not None:
        settings[resource.RLIMIT_CPU] = limits.cpu_seconds
    if not in_cgroup:
        settings[resource.RLIMIT_AS] = limits.memory_bytes
        uid = os.getuid()
        if uid != 0:
            settings[resource.RLIMIT_NPROC] = _user_processes(uid) + limits.processes
    return settings


def apply_rlimits(settings: dict[int, int]) -> None:
    """Set the limits on this process (run between fork and exec); a hard limit below the
    value is kept."""
    for which, value in settings.items():
        _, hard = resource.getrlimit(which)
        if hard != resource.RLIM_INFINITY:
            value = min(value, hard)
        resource.setrlimit(which, (value, hard))
