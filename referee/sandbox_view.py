"""``EngineView``: what one sandboxed engine sees and may do (passed to the launcher)."""

from pathlib import Path

from pydantic import BaseModel, ConfigDict


class EngineView(BaseModel):
    """The engine's world: nothing of the file system but what is listed here."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    cwd: Path
    """The working directory, the engine's room, writable by it alone."""
    own_room: bool
    """Whether the room is a fresh folder of the private ``/tmp`` (else a folder of the
    host, the engine's configured ``cwd``)."""
    tmp_bytes: int
    """Size of the private ``/tmp``."""
    system: tuple[Path, ...]
    """The system's folders, shown read-only (a symbolic link is shown as the link)."""
    read_only: tuple[Path, ...]
    """Further paths shown read-only: the engine's program, its Python, the paths given."""
    hidden: tuple[Path, ...]
    """Paths inside what is shown, covered: folders by an empty one, files by an empty
    file (the referee's secrets, run folders)."""
    network: bool
    """Whether the engine keeps the host's network (else: only a loopback of its own)."""
