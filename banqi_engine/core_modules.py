"""The engine's compiled core: which modules it is, and the stamp of what it was built from.

``setup.py`` runs this file by path (it imports nothing but the standard library, so the
build needs neither the package nor its dependencies); ``core_build`` reads the same list
at run time.
"""

import hashlib
from dataclasses import dataclass
from pathlib import Path
from typing import Final

CORE_MODULES: Final = (
    "squares",
    "pieces",
    "moves",
    "position",
    "movegen_tables",
    "movegen",
    "two_ply_count",
    "perft",
    "transposition",
    "evaluation",
    "evaluation_tactics",
    "search_flips",
    "search",
    "endgame_bits",
    "endgame_build",
    "endgame",
)
"""The modules of ``banqi_engine`` that perft and the search run in, compiled together
(all of them or none: they may ``cimport`` each other's classes)."""

STAMP_FILE: Final = "_core_stamp.json"
"""The stamp's file name, beside the extensions (written by the build, never committed)."""


@dataclass(frozen=True)
class CoreStamp:
    """What the compiled core was built from: the Cython version and the sha256 of each
    source file, by file name (the build writes it as JSON, ``core_build``
    reads it back through pydantic)."""

    cython: str
    sources: dict[str, str]


def source_digests(package_dir: Path) -> dict[str, str]:
    """The sha256 (hex) of each file the compiled core is built from in ``package_dir``:
    each core module's ``.py`` and the ``.pxd`` files (its C types, and those it cimports),
    by file name."""
    files = [package_dir / f"{name}.py" for name in CORE_MODULES]
    files += sorted(package_dir.glob("*.pxd"))
    return {path.name: hashlib.sha256(path.read_bytes()).hexdigest() for path in files}
