"""Where engines run: their own PID, mount and network namespaces, the referee's secrets
out of sight.

Default deny: an engine started sandboxed sees the system's folders, its program and its
Python read-only, and its room writable (its configured ``cwd``, or a fresh folder of
its private, size-bounded ``/tmp``); nothing else of the file system, and, inside what it
sees, the referee key, the run folders and the referee's output files are covered.
``/proc`` shows only its own processes, and it has a loopback of its own and no other
network unless its entry says ``network = true``. When the namespace's first process
ends, the kernel ends every process in it, and that process dies with the referee.

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
"""Replaced by an empty private tmpfs of a bounded size inside the sandbox."""
ROOM: Final = PRIVATE_TMP / "room"
"""The working directory of an engine with no ``cwd`` of its own: a fresh, empty folder."""
DEFAULT_TMP_BYTES: Final = 256 << 20
SYSTEM_PATHS: Final = tuple(
    Path(path)
    for path in ("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/etc", "/opt")
)
"""The system's folders every engine sees, read-only (those that exist here)."""
HIDDEN_NAMES: Final = frozenset({"banqi-runs", "dask-scratch-space", "dask-worker-space"})
"""Folders covered wherever they are found in what an engine sees."""
NOT_SCANNED: Final = frozenset({".git", "site-packages", "node_modules", "__pycache__"})
SCAN_DEPTH: Final = 3
SCAN_LIMIT: Final = 5000
"""How deep, and through how many folders, what is shown is searched for run folders."""
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
    REMOTE = "remote"

    @property
    def words(self) -> str:
        """A short description for the run's header line."""
        return ISOLATION_WORDS[self]

    @property
    def sandboxed(self) -> bool:
        """Whether the engine ran in a sandbox of this machine, within its limits."""
        return self in (Isolation.BWRAP, Isolation.UNSHARE)


ISOLATION_WORDS: Final = {
    Isolation.BWRAP: "bubblewrap: own PID, mount and network namespaces, a room of its own",
    Isolation.UNSHARE: "util-linux unshare: own PID, mount and network namespaces, a room of "
    "its own",
    Isolation.NONE: "NOT ISOLATED: engines can read what the referee's user can read",
    Isolation.IN_PROCESS: "in the referee's process (tests only)",
    Isolation.REMOTE: "on its entrant's own machine, its lines relayed over the network",
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
    trial = EngineView(
        cwd=ROOM,
        own_room=True,
        tmp_bytes=1 << 20,
        system=tuple(path for path in SYSTEM_PATHS if path.exists() or path.is_symlink()),
        read_only=(),
        hidden=(),
        network=False,
    )
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
    """The command line that runs ``command`` with ``isolation`` in the world ``view``."""
    if isolation is Isolation.BWRAP:
        return _bwrap_command(view, command)
    if isolation is Isolation.UNSHARE:
        return _unshare_command(view, command)
    return list(command)


def _bwrap_command(view: EngineView, command: list[str]) -> list[str]:
    # Mount order matters: later mounts cover earlier ones.
    argv = ["bwrap", "--unshare-pid", "--unshare-ipc", "--unshare-uts"]
    argv += [] if view.network else ["--unshare-net"]
    argv += ["--die-with-parent", "--cap-drop", "ALL"]
    for path in view.system:
        if path.is_symlink():
            argv += ["--symlink", os.readlink(path), str(path)]
        else:
            argv += ["--ro-bind", str(path), str(path)]
    argv += ["--dev", "/dev", "--proc", "/proc"]
    argv += ["--size", str(view.tmp_bytes), "--tmpfs", str(PRIVATE_TMP)]
    for path in view.read_only:
        argv += ["--ro-bind", str(path), str(path)]
    if view.own_room:
        argv += ["--dir", str(view.cwd)]
    else:
        argv += ["--bind", str(view.cwd), str(view.cwd)]
    for path in view.hidden:
        argv += ["--tmpfs", str(path)] if path.is_dir() else ["--ro-bind", "/dev/null", str(path)]
    argv += ["--remount-ro", "/", "--chdir", str(view.cwd), "--", *command]
    return argv


def _unshare_command(view: EngineView, command: list[str]) -> list[str]:
    argv = ["unshare"]
    if os.geteuid() != 0:
        argv.append("--map-root-user")
    argv += ["--pid", "--fork", "--kill-child", "--mount", "--mount-proc", "--ipc", "--uts"]
    argv += [] if view.network else ["--net"]
    launch = [sys.executable, "-I", str(LAUNCHER), view.model_dump_json()]
    return [*argv, "--", *launch, "--", *command]


def _folder_to_show(path: Path) -> Path:
    """The folder a needed file is shown with: its own, the whole virtual environment it
    belongs to (a venv's programs need its ``lib`` too), or the whole pyenv installation
    a pyenv shim belongs to (the shim runs pyenv)."""
    folder = path if path.is_dir() else path.parent
    for candidate in (folder, *folder.parents):
        if (candidate / "pyvenv.cfg").is_file():
            return candidate
    if folder.name == "shims" and (folder.parent / "libexec").is_dir():
        return folder.parent
    return folder


def _is_system(path: Path) -> bool:
    return any(path == system or path.is_relative_to(system) for system in SYSTEM_PATHS)


@functools.lru_cache(maxsize=256)
def _runs_within(folder: Path) -> list[Path]:
    """Run folders (any folder holding a ``games`` folder), default run folders and Dask
    scratch folders found in ``folder``, looked for a few levels deep."""
    found: list[Path] = []
    level = [folder]
    seen = 0
    for _ in range(SCAN_DEPTH + 1):
        below: list[Path] = []
        for parent in level:
            try:
                entries = [e for e in os.scandir(parent) if e.is_dir(follow_symlinks=False)]
            except OSError:
                continue
            names = {entry.name for entry in entries}
            if "games" in names and parent != folder:
                found.append(parent)
                continue
            for entry in entries:
                seen += 1
                if entry.name in HIDDEN_NAMES:
                    found.append(Path(entry.path))
                elif seen < SCAN_LIMIT and entry.name not in NOT_SCANNED:
                    below.append(Path(entry.path))
        level = below
    return found


def resolved_command(command: Sequence[str], base: Path) -> list[str]:
    """``command`` with each word that names a path relative to ``base`` (the program if it
    has a slash, any word with a slash or naming a file there) made absolute: the engine
    runs in a room of its own, not in ``base``."""
    words = list(command)
    for index, word in enumerate(words):
        if not word or word.startswith("-") or os.path.isabs(word):
            continue
        candidate = base / word
        names_a_path = candidate.exists() if "/" in word else candidate.is_file()
        if ("/" in word and index == 0) or (index > 0 and names_a_path):
            words[index] = os.path.abspath(candidate)
    return words


def engine_view(
    command: Sequence[str],
    cwd: Path | None,
    read_only: Iterable[Path],
    hidden: Iterable[Path],
    search_path: str | None = None,
    *,
    network: bool = False,
    tmp_bytes: int = DEFAULT_TMP_BYTES,
) -> EngineView:
    """What one engine sees (``command`` already resolved by :func:`resolved_command`):
    the system's folders, its program, its Python and ``read_only`` (relative to ``cwd``),
    read-only; its room (``cwd``, or a fresh folder of its private ``/tmp``), writable;
    and none of the referee's secrets (``hidden``), run folders or Dask scratch space.

    Shown: the folders of its program (found on ``search_path`` if it is a bare name) and
    of every file its command names, the referee's own Python and packages (which run our
    engine), each as its whole virtual environment if it is in one, and ``read_only``.
    Raises SandboxViewError when the working directory is inside a secret.
    """
    base = (cwd or Path.cwd()).resolve()
    files = [Path(word) for word in command if os.path.isabs(word)]
    program = shutil.which(command[0], path=search_path) if "/" not in command[0] else None
    files += [Path(program)] if program else []
    files += [Path(sys.prefix), Path(sys.base_prefix), Path(sys.executable), OWN_PACKAGES]
    needed = [_folder_to_show(Path(os.path.abspath(f))) for f in files if f.exists()]
    needed += [_folder_to_show(f.resolve()) for f in files if f.exists()]
    needed += [(base / path).resolve() for path in read_only]
    shown = sorted({p for p in needed if p.exists() and not _is_system(p)})
    secrets = sorted({p for p in (h.resolve() for h in hidden) if p.exists()})
    room = base if cwd is not None else ROOM
    for secret in secrets:
        if cwd is not None and room.is_relative_to(secret):
            raise SandboxViewError(
                f"an engine's working directory {room} is inside {secret}, which engines must "
                "not see (the run folder or a key file): give the engine another cwd"
            )
    seen = [*shown, *([room] if cwd is not None else [])]
    covered = {p for p in secrets if any(p.is_relative_to(s) for s in seen)}
    for folder in seen:
        covered.update(_runs_within(folder))
    system = tuple(path for path in SYSTEM_PATHS if path.exists() or path.is_symlink())
    return EngineView(
        cwd=room,
        own_room=cwd is None,
        tmp_bytes=tmp_bytes,
        system=system,
        read_only=tuple(p for p in shown if p != room),
        hidden=tuple(sorted(p for p in covered if p != room)),
        network=network,
    )


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
