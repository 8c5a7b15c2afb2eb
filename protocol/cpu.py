"""CPU time of an engine's whole process group, read from Linux ``/proc``.

Under an idle limit (``TimeControl.idle_limit``, off by default) the referee uses it to
tell an engine that thinks from one that hangs: a process group that uses no CPU at all
while it owes a move is stuck, not thinking.
"""

import os


def group_cpu_ticks(pgid: int) -> int | None:
    """Clock ticks of CPU used by the processes of group ``pgid`` (and their reaped
    children); None where ``/proc`` is not available."""
    try:
        entries = os.scandir("/proc")
    except OSError:
        return None
    total = 0
    with entries:
        for entry in entries:
            if not entry.name.isdigit():
                continue
            try:
                with open(f"/proc/{entry.name}/stat", "rb") as handle:
                    data = handle.read()
            except OSError:
                continue
            # Fields after the command name: state, ppid, pgrp, ... utime(14) stime cutime cstime.
            fields = data[data.rfind(b")") + 2 :].split()
            if len(fields) > 14 and fields[2] == str(pgid).encode():
                total += sum(int(value) for value in fields[11:15])
    return total
