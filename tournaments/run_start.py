"""A run folder from the moment a run takes it until its engines start.

A run takes its folder (made if needed, and locked) with :func:`taken_run_folder`, then
opens its state, writes it and reads its records, all before any engine process starts:
an engine never sees a folder that is not yet the run's, and nothing it writes in the folder
once its process runs can pass for the run's (a resume checks every MAC). The run says
when its engines are about to start (:meth:`FolderStart.engines_start`). If the run then
stops with its folder holding the same files as at that moment (an engine refused by the
check, Ctrl-C during it, a cluster that cannot play), or stops before that moment (other
settings refused, a deal book too small), the folder is left as the run found it: a new
run's state file, its empty ``games/``, its lock file and the folder itself (if the run
made it) go again; a resumed run's state file gets back the bytes it had. So a run refused
for a broken engine leaves nothing, and can be started again with the engine fixed.
"""

import contextlib
from collections.abc import Iterator, Sequence
from pathlib import Path

from banqi_common.atomic import write_atomic
from referee.storage import GAMES_DIR

from .run_folder import LOCK_FILE, locked_run


def _contents(out: Path) -> frozenset[Path]:
    """Every path in the folder, relative to it."""
    return frozenset(path.relative_to(out) for path in out.rglob("*"))


def _text(path: Path) -> str | None:
    """A state file's text, None if there is none."""
    return path.read_text(encoding="utf-8") if path.exists() else None


def _outermost_missing(out: Path) -> Path | None:
    """The outermost folder of ``out`` and its parents that does not exist yet."""
    missing = None
    for folder in (out, *out.parents):
        if folder.exists():
            break
        missing = folder
    return missing


class FolderStart:
    """A run folder as its run took it: what to put back if the run stops unchanged."""

    def __init__(
        self, out: Path, state_files: Sequence[str], made: Path | None, lock_existed: bool
    ) -> None:
        self.out = out
        self.made = made
        self.lock_existed = lock_existed
        self.games_existed = (out / GAMES_DIR).exists()
        self.before = {name: _text(out / name) for name in state_files}
        self.names: frozenset[Path] | None = None

    def engines_start(self) -> None:
        """The run's engines start now: from here on the folder is put back only if it
        still holds the same files."""
        self.names = _contents(self.out)

    def take_back(self) -> None:
        """Put the folder back as the run found it, unless it changed since the engines
        started (then it holds something to resume from, or to look at)."""
        if self.names is not None and _contents(self.out) != self.names:
            return
        for name, text in self.before.items():
            path = self.out / name
            with contextlib.suppress(OSError):
                if text is None:
                    path.unlink(missing_ok=True)
                elif _text(path) != text:
                    write_atomic(path, text)
        with contextlib.suppress(OSError):
            if not self.games_existed:
                (self.out / GAMES_DIR).rmdir()
        with contextlib.suppress(OSError):
            if not self.lock_existed:
                (self.out / LOCK_FILE).unlink(missing_ok=True)
            if self.made is not None:
                for folder in (self.out, *self.out.parents):
                    folder.rmdir()
                    if folder == self.made:
                        break


@contextlib.contextmanager
def taken_run_folder(out: Path, state_files: Sequence[str]) -> Iterator[FolderStart]:
    """Hold the run folder (``locked_run``) for a run whose state is in ``state_files``; if
    the run stops with an exception, the folder is put back as ``FolderStart`` says."""
    made = _outermost_missing(out)
    lock_existed = (out / LOCK_FILE).exists()
    with locked_run(out):
        start = FolderStart(out, state_files, made, lock_existed)
        try:
            yield start
        except BaseException:
            start.take_back()
            raise
