"""Where engines run: their own PID and mount namespaces, the referee's secrets out of sight.

An engine started sandboxed sees the file system read-only except its working
directory (writable) and a private ``/tmp``; the referee key, the run folder and the
referee's output files are covered; ``/proc`` shows only the engine's own processes.
When the namespace's first process ends, the kernel ends every process in it, and
that process dies with the referee.

Built from existing tools, best first: bubblewrap (``bwrap``), else util-linux
``unshare`` with :mod:`referee.sandbox_launch` arranging the mounts inside it, else
none (``--sandbox auto`` then warns; ``--sandbox required`` refuses to run).
"""

import ctypes
import functools
import os
import shutil
import stat
import subprocess
import sys
from collections.abc import Iterable, Sequence
from enum import StrEnum
from pathlib import Path
from typing import Final

from banqi_common.errors import InputError

from .sandbox_view import EngineView

PRIVATE_TMP: Final = Path("/tmp")
"""Replaced by an empty private folder inside the sandbox."""
OWN_PACKAGES: Final = Path(__file__).resolve().parent.parent
"""The folder our packages are imported from (site-packages, or the source tree of an
editable install): shown to engines, so that our own engine runs inside."""
PROBE_TIMEOUT: Final = 10.0
"""Seconds a trial start of a sandbox may take before it counts as not working."""
LAUNCHER: Final = Path(__file__).with_name("sandbox_launch.py")
"""Run by path inside ``unshare`` to arrange the engine's file system."""
INSTALL_HINT: Final = (
    "install bubblewrap (Debian/Ubuntu: apt install bubblewrap; Fedora: dnf install "
    "bubblewrap) or util-linux's unshare, with user namespaces enabled for users other "
    "than root"
)


class SandboxMode(StrEnum):
    """What a run asks for: the best isolation available, isolation or nothing, or none."""

    AUTO = "auto"
    REQUIRED = "required"
    OFF = "off"


class Isolation(StrEnum):
    """How an engine process was kept apart from the referee (written in each record)."""

    BWRAP = "bwrap"
    UNSHARE = "unshare"
    NONE = "none"
    IN_PROCESS = "in-process"

    @property
    def words(self) -> str:
        """A short description for the run's header line."""
        return ISOLATION_WORDS[self]


ISOLATION_WORDS: Final = {
    Isolation.BWRAP: "bubblewrap: own PID and mount namespaces, read-only file system",
    Isolation.UNSHARE: "util-linux unshare: own PID and mount namespaces, read-only file system",
    Isolation.NONE: "NOT ISOLATED: engines can read what the referee's user can read",
    Isolation.IN_PROCESS: "in the referee's process (tests only)",
}


class SandboxUnavailableError(InputError):
    """``--sandbox required`` on a machine where no isolation works."""


class SandboxViewError(InputError):
    """An engine that would have to see a secret to run (its working directory is one)."""


def _works(argv: list[str]) -> bool:
    try:
        done = subprocess.run(
            argv,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            timeout=PROBE_TIMEOUT,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired):
        return False
    return done.returncode == 0


@functools.cache
def working_isolations() -> tuple[Isolation, ...]:
    """The isolations that start a trial process on this machine, best first (once per run)."""
    trial = EngineView(cwd=Path("/"), read_only=(), hidden=())
    found = [
        isolation
        for isolation in (Isolation.BWRAP, Isolation.UNSHARE)
        if shutil.which(isolation.value) and _works(wrap_command(isolation, trial, ["true"]))
    ]
    return (*found, Isolation.NONE)


def choose_isolation(mode: SandboxMode) -> Isolation:
    """The isolation a run with ``mode`` uses; SandboxUnavailableError if it needs one in vain."""
    if mode is SandboxMode.OFF:
        return Isolation.NONE
    best = working_isolations()[0]
    if best is Isolation.NONE and mode is SandboxMode.REQUIRED:
        raise SandboxUnavailableError(
            f"--sandbox required, but no sandbox works on this machine: {INSTALL_HINT}"
        )
    return best


def wrap_command(isolation: Isolation, view: EngineView, command: list[str]) -> list[str]:
    """The command line that runs ``command`` with ``isolation`` and the file system ``view``."""
    if isolation is Isolation.BWRAP:
        return _bwrap_command(view, command)
    if isolation is Isolation.UNSHARE:
        return _unshare_command(view, command)
    return list(command)


def _bwrap_command(view: EngineView, command: list[str]) -> list[str]:
    # Mount order matters: later mounts cover earlier ones.
    argv = ["bwrap", "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc"]
    argv += ["--tmpfs", str(PRIVATE_TMP)]
    for path in view.read_only:
        argv += ["--ro-bind", str(path), str(path)]
    argv += ["--bind", str(view.cwd), str(view.cwd)]
    for path in view.hidden:
        argv += ["--tmpfs", str(path)] if path.is_dir() else ["--ro-bind", "/dev/null", str(path)]
    argv += ["--unshare-pid", "--unshare-ipc", "--unshare-uts", "--die-with-parent"]
    argv += ["--cap-drop", "ALL", "--chdir", str(view.cwd), "--", *command]
    return argv


def _unshare_command(view: EngineView, command: list[str]) -> list[str]:
    argv = ["unshare"]
    if os.geteuid() != 0:
        argv.append("--map-root-user")
    argv += ["--pid", "--fork", "--kill-child", "--mount", "--mount-proc", "--ipc", "--uts"]
    launch = [sys.executable, "-I", str(LAUNCHER), view.model_dump_json()]
    return [*argv, "--", *launch, "--", *command]


def _folder_to_show(path: Path) -> Path:
    """The folder a needed file is shown with: its own, or the whole virtual environment it
    belongs to (a venv's programs need its ``lib`` too)."""
    folder = path if path.is_dir() else path.parent
    for candidate in (folder, *folder.parents):
        if (candidate / "pyvenv.cfg").is_file():
            return candidate
    return folder


def engine_view(
    command: Sequence[str],
    cwd: Path,
    read_only: Iterable[Path],
    hidden: Iterable[Path],
    search_path: str | None = None,
) -> EngineView:
    """What one engine sees: its working directory, what it needs from the private
    ``/tmp`` shown read-only, and the referee's secrets it could otherwise see, covered.

    Shown: the folders of its program (found on ``search_path`` if it is a bare name) and
    of every file its command names, the referee's own Python environment and packages
    (which run our engine), each as its whole virtual environment if it is in one, and
    ``read_only``.
    Raises SandboxViewError when the working directory is inside a secret.
    """
    cwd = cwd.resolve()
    files = [cwd / word for word in command if "/" in word]
    program = shutil.which(command[0], path=search_path) if "/" not in command[0] else None
    files += [Path(program)] if program else []
    files += [Path(sys.prefix), Path(sys.executable), OWN_PACKAGES]
    needed = [_folder_to_show(Path(os.path.abspath(f))) for f in files if f.exists()]
    needed += [_folder_to_show(f.resolve()) for f in files if f.exists()]
    needed += [(cwd / path).resolve() for path in read_only]
    shown = sorted({p for p in needed if p.is_relative_to(PRIVATE_TMP) and p.exists()})
    secrets = sorted({p for p in (h.resolve() for h in hidden) if p.exists()})
    for secret in secrets:
        if cwd.is_relative_to(secret):
            raise SandboxViewError(
                f"an engine's working directory {cwd} is inside {secret}, which engines must "
                "not see (the run folder or a key file): give the engine another cwd"
            )
    seen = [cwd, *shown]
    covered = [
        p
        for p in secrets
        if not p.is_relative_to(PRIVATE_TMP) or any(p.is_relative_to(s) for s in seen)
    ]
    return EngineView(cwd=cwd, read_only=tuple(shown), hidden=tuple(covered))


def referee_secrets(key_files: Iterable[Path], run_folders: Iterable[Path]) -> list[Path]:
    """What engines must not see: the key files, the run folders (this run's, and the
    default folder of every run's records), and the referee's standard output and error
    where they are files."""
    paths = [*key_files, *run_folders]
    for fd in (1, 2):
        try:
            if stat.S_ISREG(os.fstat(fd).st_mode):
                paths.append(Path(os.readlink(f"/proc/self/fd/{fd}")))
        except OSError:
            continue
    return paths


PR_SET_DUMPABLE: Final = 4


def keep_referee_private() -> bool:
    """Make this process non-dumpable: its memory, environment and open files in ``/proc``
    become unreadable to other processes of the same user (root still reads them: only a
    sandbox keeps a root engine out). Returns whether it worked (Linux only)."""
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        return bool(libc.prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) == 0)
    except (OSError, AttributeError):
        return False
