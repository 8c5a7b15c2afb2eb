"""``SandboxWatch``: whether a sandboxed engine reached one of its limits, and which.

Memory and processes are read from the engine's control group (the kernel counts an
out-of-memory kill and a refused fork there); a file larger than the room and CPU time
show as the signals the kernel sends (``SIGXFSZ``, ``SIGXCPU``); a full room is read
from the engine's private ``/tmp`` through ``/proc`` while the engine runs, and from the
error it ended with (``No space left on device``) once it has ended. Without a control
group, a failed allocation is read from the error an engine ended with.
"""

import contextlib
import os
import signal
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Final

from protocol.resource_watch import LimitBreach

from .cgroups import EngineCgroup, cgroup_place
from .engine_limits import EngineLimits, apply_rlimits, rlimit_settings
from .sandbox import PRIVATE_TMP

SIGNAL_EXIT_BASE: Final = 128
"""A sandbox whose engine a signal ended exits with this plus the signal's number."""


ROOM_ERRORS: Final = ("No space left on device", "ENOSPC")
FILE_ERRORS: Final = ("File too large", "EFBIG")
MEMORY_ERRORS: Final = ("MemoryError", "Cannot allocate memory", "std::bad_alloc", "out of memory")
"""What an engine that ended says on stderr when its room was full, or (without a control
group, under an address-space limit) an allocation failed."""


def _says(stderr_tail: str, words: tuple[str, ...]) -> bool:
    return any(word in stderr_tail for word in words)


def _ended_by(returncode: int | None, signum: int) -> bool:
    return returncode in (-signum, SIGNAL_EXIT_BASE + signum)


def _sandbox_root(pid: int) -> int | None:
    """The first process inside the sandbox started as ``pid``."""
    try:
        children = Path(f"/proc/{pid}/task/{pid}/children").read_text(encoding="ascii").split()
    except OSError:
        return None
    return int(children[0]) if children else None


class SandboxWatch:
    """The limits of one sandboxed engine, looked at by its client."""

    def __init__(self, limits: EngineLimits, cgroup: EngineCgroup | None, tmp: Path) -> None:
        self.limits = limits
        self.cgroup = cgroup
        self.tmp = tmp
        """The private ``/tmp`` (holding the fresh room), as the engine sees it."""

    def breach(self, pid: int, returncode: int | None, stderr_tail: str) -> LimitBreach | None:
        """The limit the engine has reached, if any (see :class:`ResourceWatch`)."""
        limits, cgroup = self.limits, self.cgroup
        ended = returncode is not None
        if cgroup is not None and cgroup.out_of_memory():
            words = f"went over its memory limit of {limits.memory_mib} MiB"
            return LimitBreach("memory", f"{words}: the kernel ended a process of it")
        if cgroup is not None and cgroup.out_of_processes():
            words = f"tried to run more than {limits.processes} processes and threads at once"
            return LimitBreach("processes", words)
        if _ended_by(returncode, signal.SIGXFSZ) or (ended and _says(stderr_tail, FILE_ERRORS)):
            return LimitBreach("room", f"wrote a file larger than its {limits.room_mib} MiB room")
        if _ended_by(returncode, signal.SIGXCPU):
            words = f"used more than {limits.cpu_seconds} s of CPU in one process"
            return LimitBreach("cpu", words)
        if (ended and _says(stderr_tail, ROOM_ERRORS)) or (not ended and self._room_full(pid)):
            return LimitBreach("room", f"filled its {limits.room_mib} MiB room")
        if ended and cgroup is None and _says(stderr_tail, MEMORY_ERRORS):
            words = f"went over its memory limit of {limits.memory_mib} MiB"
            return LimitBreach("memory", f"{words}: an allocation failed")
        return None

    def _room_full(self, pid: int) -> bool:
        inside = _sandbox_root(pid)
        if inside is None:
            return False
        with contextlib.suppress(OSError):
            space = os.statvfs(f"/proc/{inside}/root{self.tmp}")
            return space.f_blocks > 0 and space.f_bavail == 0
        return False

    def release(self) -> None:
        """Remove the control group, ending whatever is left in it."""
        if self.cgroup is not None:
            self.cgroup.remove()


@dataclass(frozen=True)
class LimitedStart:
    """How an engine process is started within its limits: what its child runs before exec
    (join the control group, set the resource limits), and the watch its client asks."""

    before_exec: Callable[[], None]
    watch: SandboxWatch


def limited_start(limits: EngineLimits) -> LimitedStart:
    """A control group for the engine where one can be made, and its resource limits."""
    place = cgroup_place()
    cgroup = None
    if place is not None:
        with contextlib.suppress(OSError):
            cgroup = EngineCgroup(place, limits.memory_bytes, limits.processes)
    settings = rlimit_settings(limits, in_cgroup=cgroup is not None)

    def before_exec() -> None:
        if cgroup is not None:
            cgroup.join()
        apply_rlimits(settings)

    return LimitedStart(before_exec, SandboxWatch(limits, cgroup, PRIVATE_TMP))
