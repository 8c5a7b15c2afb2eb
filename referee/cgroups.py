"""A control group per engine: memory and processes limited by the kernel, and what was hit.

Used where this process may make groups: cgroup v2 next to its own group (a delegated
subtree, or a container's own hierarchy) with the ``memory`` and ``pids`` controllers
enabled; or the v1 ``memory`` and ``pids`` hierarchies where their folders are writable
(root in a virtual machine or container). Elsewhere there is none, and
:mod:`referee.engine_limits` falls back to resource limits.
"""

import contextlib
import functools
import itertools
import os
import signal
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Final

CGROUP_FS: Final = Path("/sys/fs/cgroup")
REMOVE_WAIT: Final = 2.0
"""Seconds to wait for an emptied group's processes to be gone before it is left behind."""

_names = itertools.count()


@dataclass(frozen=True)
class CgroupPlace:
    """Where engine groups are made: one folder (v2), or the memory and pids folders (v1)."""

    version: int
    memory: Path
    pids: Path


def _own_groups() -> dict[str, str]:
    """This process's group in each hierarchy, by controller ("" for v2)."""
    groups: dict[str, str] = {}
    try:
        text = Path("/proc/self/cgroup").read_text(encoding="utf-8")
    except OSError:
        return groups
    for line in text.splitlines():
        parts = line.split(":", 2)
        if len(parts) == 3:
            for controller in parts[1].split(","):
                groups[controller] = parts[2]
    return groups


def _can_make_groups_in(folder: Path) -> bool:
    trial = folder / f"banqi-probe-{os.getpid()}"
    try:
        trial.mkdir()
    except OSError:
        return False
    with contextlib.suppress(OSError):
        trial.rmdir()
    return True


def _v2_place(groups: dict[str, str]) -> CgroupPlace | None:
    if "" not in groups or not (CGROUP_FS / "cgroup.controllers").is_file():
        return None
    own = CGROUP_FS / groups[""].lstrip("/")
    for folder in (own, own.parent):
        try:
            enabled = (folder / "cgroup.subtree_control").read_text(encoding="utf-8").split()
        except OSError:
            continue
        if {"memory", "pids"} <= set(enabled) and _can_make_groups_in(folder):
            return CgroupPlace(2, folder, folder)
    return None


def _v1_place(groups: dict[str, str]) -> CgroupPlace | None:
    if "memory" not in groups or "pids" not in groups:
        return None
    memory = CGROUP_FS / "memory" / groups["memory"].lstrip("/")
    pids = CGROUP_FS / "pids" / groups["pids"].lstrip("/")
    files = (memory / "memory.limit_in_bytes", pids / "cgroup.procs")
    usable = all(f.is_file() for f in files) and all(map(_can_make_groups_in, (memory, pids)))
    return CgroupPlace(1, memory, pids) if usable else None


@functools.cache
def cgroup_place() -> CgroupPlace | None:
    """Where this process can make engine groups, if anywhere (looked up once)."""
    groups = _own_groups()
    return _v2_place(groups) or _v1_place(groups)


def _write(path: Path, value: str) -> None:
    with open(path, "w", encoding="ascii") as handle:
        handle.write(value)


def _read_counter(path: Path, name: str) -> int:
    """The value of ``name`` in a flat-keyed cgroup file (0 if absent or unreadable)."""
    try:
        lines = path.read_text(encoding="ascii").splitlines()
    except OSError:
        return 0
    for line in lines:
        key, _, value = line.partition(" ")
        if key == name and value.strip().isdigit():
            return int(value)
    return 0


class EngineCgroup:
    """One engine's group (or, under v1, its pair of groups): made with its limits, joined
    by the engine's first process before it runs the sandbox, removed once it is empty."""

    def __init__(self, place: CgroupPlace, memory_bytes: int, processes: int) -> None:
        name = f"banqi-{os.getpid()}-{next(_names)}"
        self.place = place
        self.folders = tuple(dict.fromkeys((place.memory / name, place.pids / name)))
        for folder in self.folders:
            folder.mkdir()
        try:
            self._set_limits(memory_bytes, processes)
        except OSError:
            self.remove()
            raise
        self._procs_files = tuple(str(folder / "cgroup.procs") for folder in self.folders)

    @property
    def memory(self) -> Path:
        """The group folder with the memory controller."""
        return self.folders[0]

    @property
    def pids(self) -> Path:
        """The group folder with the pids controller."""
        return self.folders[-1]

    def _set_limits(self, memory_bytes: int, processes: int) -> None:
        if self.place.version == 2:
            _write(self.memory / "memory.max", str(memory_bytes))
            if (self.memory / "memory.swap.max").exists():
                _write(self.memory / "memory.swap.max", "0")
        else:
            _write(self.memory / "memory.limit_in_bytes", str(memory_bytes))
            if (self.memory / "memory.memsw.limit_in_bytes").exists():
                _write(self.memory / "memory.memsw.limit_in_bytes", str(memory_bytes))
        _write(self.pids / "pids.max", str(processes))

    def join(self) -> None:
        """Move the calling process into the group (run between fork and exec)."""
        for procs in self._procs_files:
            handle = os.open(procs, os.O_WRONLY)
            try:
                os.write(handle, b"0")
            finally:
                os.close(handle)

    def out_of_memory(self) -> bool:
        """Whether the kernel ended a process of the group for want of memory."""
        events = "memory.events" if self.place.version == 2 else "memory.oom_control"
        return _read_counter(self.memory / events, "oom_kill") > 0

    def out_of_processes(self) -> bool:
        """Whether a fork or thread was refused at the process limit."""
        return _read_counter(self.pids / "pids.events", "max") > 0

    def _members(self) -> list[int]:
        found: set[int] = set()
        for folder in self.folders:
            with contextlib.suppress(OSError):
                text = (folder / "cgroup.procs").read_text(encoding="ascii")
                found.update(int(word) for word in text.split())
        return sorted(found)

    def remove(self) -> None:
        """End whatever is left in the group and remove it."""
        deadline = time.monotonic() + REMOVE_WAIT
        while (members := self._members()) and time.monotonic() < deadline:
            for pid in members:
                with contextlib.suppress(OSError):
                    os.kill(pid, signal.SIGKILL)
            time.sleep(0.01)
        for folder in self.folders:
            with contextlib.suppress(OSError):
                folder.rmdir()
