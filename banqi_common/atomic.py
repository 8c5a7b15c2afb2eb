"""Writing files atomically: a temporary file in the same folder, then a rename."""

import contextlib
import os
import tempfile
from pathlib import Path

from .write_errors import writing


def write_atomic(path: Path, text: str, what: str | None = None, *, durable: bool = True) -> None:
    """Replace ``path`` with ``text`` so readers see the old or the new file, never half;
    ``durable``: on disk before the rename (fsync). WriteError ``cannot write <what> to
    <folder>: <reason>`` if it cannot be written (``what``: the file's name unless given)."""
    with writing(f"write {what or path.name} to {path.parent}"):
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, temp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
        try:
            with os.fdopen(fd, "w", encoding="utf-8", newline="") as handle:
                handle.write(text)
                if durable:
                    handle.flush()
                    os.fsync(handle.fileno())
            os.replace(temp, path)
        except BaseException:
            with contextlib.suppress(OSError):  # a folder turned read-only keeps it
                Path(temp).unlink(missing_ok=True)
            raise
