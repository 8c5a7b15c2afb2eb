"""Inside util-linux ``unshare``: build an engine's world, then run it unprivileged.

The referee runs ``unshare --pid --fork --kill-child --mount --mount-proc --net ... python
-I .../sandbox_launch.py VIEW_JSON -- COMMAND...``, so this runs as the first process of
fresh PID, mount and network namespaces, with the privileges of the namespace's root. It
builds a new root on a tmpfs holding only the view's system folders and read-only paths,
a minimal ``/dev``, its own ``/proc``, a size-bounded private ``/tmp`` and the room,
covers the hidden paths, brings up the loopback, enters the new root, and execs the
engine through util-linux ``setpriv`` with every capability dropped, so the engine
cannot undo any of it. The engine becomes the namespace's first process: when it ends,
the kernel ends everything it started. This file is run by path and needs only the
standard library, so it works wherever the package is installed.

Sources of binds are opened before ``/tmp`` is covered (the new root is built there) and
bound through ``/proc/self/fd``, which the kernel resolves to the open folder, covered or
not.
"""

import ctypes
import fcntl
import json
import os
import socket
import struct
import sys
from pathlib import Path
from typing import Any, Final

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
DEVICES: Final = ("null", "zero", "full", "random", "urandom", "tty")
LINKS: Final = {
    "fd": "/proc/self/fd",
    "stdin": "/proc/self/fd/0",
    "stdout": "/proc/self/fd/1",
    "stderr": "/proc/self/fd/2",
}
SIOCGIFFLAGS: Final = 0x8913
SIOCSIFFLAGS: Final = 0x8914
IFF_UP: Final = 1

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


def _inside(root: Path, path: Path) -> Path:
    return root / path.relative_to("/")


def _devices(root: Path, device_fds: list[tuple[str, int]], tmp_bytes: int) -> None:
    """A minimal ``/dev``: the harmless character devices, ``shm``, and the usual links."""
    dev = root / "dev"
    dev.mkdir()
    _mount("tmpfs", str(dev), "tmpfs", MS_NOSUID | MS_NOEXEC, "mode=0755")
    for name, fd in device_fds:
        (dev / name).touch()
        _mount(f"/proc/self/fd/{fd}", str(dev / name), None, MS_BIND)
    (dev / "shm").mkdir()
    _mount("tmpfs", str(dev / "shm"), "tmpfs", MS_NOSUID | MS_NODEV, f"size={tmp_bytes}")
    for name, target in LINKS.items():
        os.symlink(target, dev / name)


def _loopback_up() -> None:
    """Bring up the network namespace's own loopback (a new namespace has it down)."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as sock:
        request = struct.pack("16sh", b"lo", 0)
        flags = struct.unpack("16sh", fcntl.ioctl(sock, SIOCGIFFLAGS, request))[1]
        fcntl.ioctl(sock, SIOCSIFFLAGS, struct.pack("16sh", b"lo", flags | IFF_UP))


def arrange(view: dict[str, Any]) -> None:
    """Build an ``EngineView``'s world in this process's namespaces, then enter it: a new
    root (a tmpfs) holding only the view's paths, ``chroot`` into it."""
    cwd = Path(view["cwd"])
    own_room = bool(view["own_room"])
    tmp_bytes = int(view["tmp_bytes"])
    system = [Path(p) for p in view["system"]]
    links = [(p, os.readlink(p)) for p in system if p.is_symlink()]
    folders = [(p, os.open(p, os.O_PATH)) for p in system if not p.is_symlink()]
    shown = [(Path(p), os.open(p, os.O_PATH)) for p in view["read_only"]]
    room_fd = None if own_room else os.open(cwd, os.O_PATH | os.O_DIRECTORY)
    device_fds = [(name, os.open(f"/dev/{name}", os.O_PATH)) for name in DEVICES]
    root = Path("/tmp")
    _mount("tmpfs", str(root), "tmpfs", MS_NOSUID | MS_NODEV, "mode=0755")
    for path, target in links:
        os.symlink(target, _inside(root, path))
    for path, fd in folders:
        _bind(fd, _inside(root, path), writable=False)
    _devices(root, device_fds, tmp_bytes)
    (root / "proc").mkdir()
    _mount("proc", str(root / "proc"), "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC)
    (root / "tmp").mkdir()
    _mount("tmpfs", str(root / "tmp"), "tmpfs", MS_NOSUID | MS_NODEV, f"size={tmp_bytes}")
    for path, fd in shown:
        _bind(fd, _inside(root, path), writable=False)
    if room_fd is None:
        _inside(root, cwd).mkdir(parents=True, exist_ok=True)
    else:
        _bind(room_fd, _inside(root, cwd), writable=True)
    for path in view["hidden"]:
        inside = _inside(root, Path(path))
        if inside.exists():
            _cover(inside)
    _mount(None, str(root), None, MS_REMOUNT | MS_RDONLY | MS_NOSUID | MS_NODEV)
    if not view["network"]:
        _loopback_up()
    os.chroot(root)
    os.chdir(cwd)


def main(argv: list[str]) -> int:
    """``VIEW_JSON -- COMMAND...``: arrange the view, then exec the command unprivileged."""
    if len(argv) < 3 or argv[1] != "--":
        print("usage: python sandbox_launch.py VIEW_JSON -- COMMAND...", file=sys.stderr)
        return 2
    try:
        arrange(json.loads(argv[0]))
        drop = ["--inh-caps=-all", "--ambient-caps=-all", "--bounding-set=-all", "--no-new-privs"]
        os.execvp("setpriv", ["setpriv", *drop, "--", *argv[2:]])
    except (OSError, ValueError, KeyError, TypeError) as error:
        print(f"sandbox: {error}", file=sys.stderr)
    return EXIT_SANDBOX_FAILED


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
