"""Which build of the engine's core runs: the compiled extensions or the pure-Python modules.

Decided once, when ``banqi_engine`` is imported and before any core module is: the core
runs compiled when every module of ``CORE_MODULES`` has an extension beside its source
and the build's stamp still matches each source; otherwise, or with ``BANQI_PURE=1``, the
whole core runs from its ``.py`` files (an import hook loads them in place of the
extensions). A core older than its source is said once on stderr.
"""

import importlib.util
import os
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from importlib.abc import MetaPathFinder
from importlib.machinery import EXTENSION_SUFFIXES, ModuleSpec
from pathlib import Path
from types import ModuleType
from typing import Final

from pydantic import TypeAdapter, ValidationError

from .core_modules import CORE_MODULES, STAMP_FILE, CoreStamp, source_digests

PURE_ENV: Final = "BANQI_PURE"
"""Set to 1 to run the pure-Python core although a compiled one is installed."""

NOT_BUILT: Final = "no compiled core was built at install"
PURE_REQUESTED: Final = f"{PURE_ENV}=1"
STALE: Final = "the compiled core is older than its source; run pip install -e . again"


@dataclass(frozen=True)
class CoreBuild:
    """The core that runs: compiled by ``cython`` (its version), or pure Python and why."""

    cython: str | None
    why_pure: str = ""

    @property
    def compiled(self) -> bool:
        """Whether the core runs as compiled extensions."""
        return self.cython is not None

    @property
    def description(self) -> str:
        """The build in words: ``compiled (Cython 3.1.2)``, ``pure Python (BANQI_PURE=1)``..."""
        return (
            f"compiled (Cython {self.cython})"
            if self.compiled
            else f"pure Python ({self.why_pure})"
        )

    @property
    def token(self) -> str:
        """The build in one word, for the engine's ``version`` reply."""
        return "compiled" if self.compiled else "pure-python"


def _pure_requested(environ: Mapping[str, str]) -> bool:
    value = environ.get(PURE_ENV, "").strip()
    if value not in ("", "0", "1"):
        raise SystemExit(
            f"Error: {PURE_ENV} must be 1 (run the engine's core as pure Python) or 0, "
            f"got {value!r}"
        )
    return value == "1"


def _built_extensions(package_dir: Path) -> list[Path]:
    """The extensions of core modules in ``package_dir`` that this Python can import."""
    return [
        package_dir / f"{name}{suffix}"
        for name in CORE_MODULES
        for suffix in EXTENSION_SUFFIXES
        if (package_dir / f"{name}{suffix}").is_file()
    ]


def _stamped_cython(package_dir: Path) -> str | None:
    """The Cython version of the stamp, if it names exactly the core's current sources."""
    try:
        stamp = TypeAdapter(CoreStamp).validate_json((package_dir / STAMP_FILE).read_bytes())
    except (OSError, ValidationError):
        return None
    return stamp.cython if stamp.sources == source_digests(package_dir) else None


def choose_core(package_dir: Path, environ: Mapping[str, str]) -> CoreBuild:
    """The core to run from ``package_dir`` (``banqi_engine``'s folder) under ``environ``."""
    if _pure_requested(environ):
        return CoreBuild(None, PURE_REQUESTED)
    extensions = _built_extensions(package_dir)
    if not extensions:
        return CoreBuild(None, NOT_BUILT)
    cython = _stamped_cython(package_dir) if len(extensions) == len(CORE_MODULES) else None
    return CoreBuild(None, STALE) if cython is None else CoreBuild(cython)


class _PureCoreFinder(MetaPathFinder):
    """Finds each core module's ``.py`` file, ahead of its extension."""

    def __init__(self, package: str, package_dir: Path) -> None:
        self.sources = {f"{package}.{name}": package_dir / f"{name}.py" for name in CORE_MODULES}

    def find_spec(
        self, fullname: str, path: Sequence[str] | None, target: ModuleType | None = None
    ) -> ModuleSpec | None:
        source = self.sources.get(fullname)
        return None if source is None else importlib.util.spec_from_file_location(fullname, source)


def install_core(package: str, package_dir: Path) -> CoreBuild:
    """Choose the core for this process; for a pure core beside extensions, load the
    sources in their place (and say so on stderr if the extensions are stale)."""
    build = choose_core(package_dir, os.environ)
    if not build.compiled and build.why_pure != NOT_BUILT:
        sys.meta_path.insert(0, _PureCoreFinder(package, package_dir))
    if build.why_pure == STALE:
        print(f"banqi_engine: warning: running pure Python: {STALE}", file=sys.stderr)
    return build


CORE_BUILD: Final = install_core(__package__ or "banqi_engine", Path(__file__).parent)
"""The core this process runs."""
