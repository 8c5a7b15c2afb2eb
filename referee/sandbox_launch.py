"""Inside util-linux ``unshare``: arrange an engine's file system, then run it unprivileged.

The referee runs ``unshare --pid --fork --kill-child --mount --mount-proc ... python -I
.../sandbox_launch.py VIEW_JSON -- COMMAND...``, so this runs as the first process of
fresh PID and mount namespaces, with the privileges of the namespace's root. It makes
every mount read-only, puts an empty private ``/tmp`` in place, shows the view's
read-only paths and its writable working directory, covers the hidden paths, and execs
the engine through util-linux ``setpriv`` with every capability dropped, so the engine
cannot undo any of it. The engine becomes the namespace's first process: when it ends,
the kernel ends everything it started. This file is run by path and needs only the
standard library, so it works wherever the package is installed.

Sources of binds are opened before ``/tmp`` is covered and bound through
``/proc/self/fd``, which the kernel resolves to the open folder, covered or not.
"""

import ctypes
import json
import os
import re
import sys
from pathlib import Path
from typing import Final

MS_RDONLY: Final = 1
MS_NOSUID: Final = 2
MS_NODEV: Final = 4
MS_NOEXEC: Final = 8
MS_REMOUNT: Final = 32
MS_BIND: Final = 4096
MS_REC: Final = 16384
KEPT_FLAGS: Final = {
    os.ST_NOSUID: MS_NOSUID,
    os.ST_NODEV: MS_NODEV,
    os.ST_NOEXEC: MS_NOEXEC,
    os.ST_NOATIME: 1024,
    os.ST_NODIRATIME: 2048,
    os.ST_RELATIME: 1 << 21,
}
"""statvfs flags of a mount and the mount flags that keep them on a remount (the kernel
refuses a remount that would clear flags the parent namespace locked)."""
EXIT_SANDBOX_FAILED: Final = 126

_libc = ctypes.CDLL(None, use_errno=True)


def _mount(source: str | None, target: str, fstype: str | None, flags: int, data: str = "") -> None:
    result = _libc.mount(
        None if source is None else source.encode(),
        target.encode(),
        None if fstype is None else fstype.encode(),
        ctypes.c_ulong(flags),
        data.encode() or None,
    )
    if result != 0:
        errno = ctypes.get_errno()
        raise OSError(errno, f"cannot mount {target}: {os.strerror(errno)}")


def _kept_flags(path: str) -> int:
    flag = os.statvfs(path).f_flag
    return sum(mount for stat, mount in KEPT_FLAGS.items() if flag & stat)


def _remount(path: str, *, writable: bool) -> None:
    flags = MS_REMOUNT | MS_BIND | _kept_flags(path) | (0 if writable else MS_RDONLY)
    _mount(None, path, None, flags)


def _mount_points() -> list[str]:
    points = []
    with open("/proc/self/mountinfo", encoding="utf-8", errors="surrogateescape") as handle:
        for line in handle:
            escaped = line.split()[4]
            points.append(re.sub(r"\\([0-7]{3})", lambda m: chr(int(m.group(1), 8)), escaped))
    return points


def _read_only_everywhere() -> None:
    """Every mount read-only; "/" must succeed, a special mount that refuses is left be."""
    for point in _mount_points():
        try:
            _remount(point, writable=False)
        except OSError:
            if point == "/":
                raise


def _bind(source_fd: int, target: Path, *, writable: bool) -> None:
    if not target.exists():
        if os.path.isdir(f"/proc/self/fd/{source_fd}"):
            target.mkdir(parents=True)
        else:
            target.parent.mkdir(parents=True, exist_ok=True)
            target.touch()
    _mount(f"/proc/self/fd/{source_fd}", str(target), None, MS_BIND | MS_REC)
    _remount(str(target), writable=writable)


def _cover(path: Path) -> None:
    if path.is_dir():
        _mount("tmpfs", str(path), "tmpfs", MS_NOSUID | MS_NODEV | MS_RDONLY, "mode=0")
    else:
        _mount("/dev/null", str(path), None, MS_BIND)
        _remount(str(path), writable=False)


def arrange(cwd: Path, read_only: list[Path], hidden: list[Path]) -> None:
    """Build an ``EngineView``'s file system in this process's mount namespace."""
    cwd_fd = os.open(cwd, os.O_PATH | os.O_DIRECTORY)
    shown = [(path, os.open(path, os.O_PATH)) for path in read_only]
    _read_only_everywhere()
    _mount("tmpfs", "/tmp", "tmpfs", MS_NOSUID | MS_NODEV, "mode=1777")
    for path, fd in shown:
        _bind(fd, path, writable=False)
    _bind(cwd_fd, cwd, writable=True)
    for path in hidden:
        if path.exists():
            _cover(path)
    os.chdir(cwd)


def main(argv: list[str]) -> int:
    """``VIEW_JSON -- COMMAND...``: arrange the view, then exec the command unprivileged."""
    if len(argv) < 3 or argv[1] != "--":
        print("usage: python sandbox_launch.py VIEW_JSON -- COMMAND...", file=sys.stderr)
        return 2
    try:
        view = json.loads(argv[0])
        arrange(
            Path(view["cwd"]),
            [Path(p) for p in view["read_only"]],
            [Path(p) for p in view["hidden"]],
        )
        drop = ["--inh-caps=-all", "--ambient-caps=-all", "--bounding-set=-all", "--no-new-privs"]
        os.execvp("setpriv", ["setpriv", *drop, "--", *argv[2:]])
    except (OSError, ValueError, KeyError, TypeError) as error:
        print(f"sandbox: {error}", file=sys.stderr)
    return EXIT_SANDBOX_FAILED


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
