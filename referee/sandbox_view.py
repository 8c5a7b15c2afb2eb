"""``EngineView``: what one sandboxed engine sees of the file system (passed to the launcher)."""

from pathlib import Path

from pydantic import BaseModel, ConfigDict


class EngineView(BaseModel):
    """The engine's file system: everything read-only, except as listed here."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    cwd: Path
    """The working directory, writable."""
    read_only: tuple[Path, ...]
    """Paths inside the private ``/tmp`` shown read-only (the engine's program and files)."""
    hidden: tuple[Path, ...]
    """Folders covered by an empty one, files by an empty file: the referee's secrets."""
