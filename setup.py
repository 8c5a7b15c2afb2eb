"""The build: Cython compiles the engine's core from its pure-Python source into C
extensions, in every install (``pip install .`` and ``pip install -e .`` alike).

The core's modules are listed once, in ``banqi_engine/core_modules.py`` (run here by
path: the package is not imported). The C files are written under the build's temporary
folder, never beside the sources nor into a wheel. Each build starts from empty build
folders and regenerates and recompiles everything, but for an editable install whose
extensions already match their sources and this file (``pip install -e '.[extra]'``
after ``pip install -e .``: nothing to compile again). After a successful build a stamp
(the Cython version, each source's sha256) goes beside the extensions, so the package
can tell at import whether they still match their sources. Where Cython or the C
compiler fails (no compiler at all, say), the install still succeeds, pure Python, with
a warning in pip's build output (``pip install -v`` shows it).
"""

import json
import os
import platform
import runpy
import shutil
from dataclasses import asdict
from pathlib import Path
from typing import Any

from setuptools import Extension, setup
from setuptools.command.build import build
from setuptools.command.build_ext import build_ext
from setuptools.errors import CCompilerError, ExecError, PlatformError

PACKAGE = "banqi_engine"
CORE: dict[str, Any] = runpy.run_path(f"{PACKAGE}/core_modules.py")

COMPILER_DIRECTIVES = {
    "language_level": 3,
    # The C types are in each module's .pxd; the .py's annotations are for mypy.
    "annotation_typing": False,
    "boundscheck": False,
    "wraparound": False,
    "initializedcheck": False,
}
COMPILE_ARGS = [
    "-ffp-contract=off",  # no fused multiply-add: floating point as CPython computes it
    "-O2",  # over Python's -O3: a fifth less compile time, the same speed here
    "-g0",  # no debug information: a third less compile time, far smaller extensions
]
if platform.machine().lower() in ("x86_64", "amd64"):
    COMPILE_ARGS.append("-mpopcnt")  # a square count in one instruction (every x86-64-v2 CPU)


class CleanBuild(build):
    """``build`` that first empties its folders under ``build/``: nothing another tree or
    an earlier build left there can reach the install."""

    def run(self) -> None:
        base = Path(self.build_base).resolve()
        for folder in (self.build_purelib, self.build_platlib, self.build_temp):
            if base in Path(folder).resolve().parents:
                shutil.rmtree(folder, ignore_errors=True)
        super().run()


class CoreBuildExt(build_ext):
    """``build_ext`` that cythonizes the core, compiles it on every core, and stamps it;
    on a Cython or compiler error it warns and leaves the core pure Python."""

    def finalize_options(self) -> None:
        super().finalize_options()
        self.force = True
        if self.parallel is None:
            self.parallel = os.cpu_count() or 1

    def run(self) -> None:
        if self._in_place_core_current():
            self.announce("the compiled core matches its sources: not rebuilt", level=2)
            return
        try:
            from Cython import __version__ as cython_version
            from Cython.Build import cythonize
            from Cython.Compiler.Errors import CompileError as CythonError
        except ImportError as error:
            self._fall_back(f"Cython is not installed ({error})")
            return
        try:
            generated = cythonize(
                self.extensions,
                build_dir=os.path.join(self.build_temp, "cython"),
                compiler_directives=COMPILER_DIRECTIVES,
                force=True,
                quiet=True,
            )
            c_sources = {ext.name: ext.sources for ext in generated}
            for ext in self.extensions:  # setuptools keeps its own Extension objects
                ext.sources = c_sources[ext.name]
            super().run()
        except (CythonError, CCompilerError, ExecError, PlatformError) as error:
            self._fall_back(f"{type(error).__name__}: {error}")
        else:
            self._write_stamps(cython_version)

    def _package_dirs(self) -> list[Path]:
        """Where the extensions went: the build folder, and the sources for an editable
        (in-place) build."""
        dirs = [Path(self.build_lib, PACKAGE)]
        if self.inplace:
            dirs.append(Path(self.get_finalized_command("build_py").get_package_dir(PACKAGE)))
        return dirs

    def _in_place_core_current(self) -> bool:
        """Whether an editable build's extensions beside the sources are those of these
        sources (their stamp: the Cython version and every source's digest) and of this
        build file, so that ``pip install -e '.[extra]'`` does not compile them again."""
        if not self.inplace:
            return False
        try:
            from Cython import __version__ as cython_version
        except ImportError:
            return False
        folder = Path(self.get_finalized_command("build_py").get_package_dir(PACKAGE))
        stamp_file = folder / CORE["STAMP_FILE"]
        try:
            stamp = json.loads(stamp_file.read_text())
        except (OSError, ValueError):
            return False
        current = asdict(CORE["CoreStamp"](cython_version, CORE["source_digests"](Path(PACKAGE))))
        built = [
            folder / self.get_ext_filename(ext.name.rpartition(".")[2]) for ext in self.extensions
        ]
        newest_rule = Path(__file__).stat().st_mtime
        return (
            stamp == current
            and all(path.is_file() for path in built)
            and stamp_file.stat().st_mtime >= newest_rule
        )

    def _write_stamps(self, cython_version: str) -> None:
        stamp = CORE["CoreStamp"](cython_version, CORE["source_digests"](Path(PACKAGE)))
        for folder in self._package_dirs():
            (folder / CORE["STAMP_FILE"]).write_text(json.dumps(asdict(stamp), indent=1) + "\n")

    def _fall_back(self, why: str) -> None:
        """Warn, and remove what was built so far and any core an earlier build left."""
        self.warn(f"the engine's compiled core was not built ({why}); it will run as pure Python")
        for folder in self._package_dirs():
            (folder / CORE["STAMP_FILE"]).unlink(missing_ok=True)
            for ext in self.extensions:
                name = self.get_ext_filename(ext.name.rpartition(".")[2])
                (folder / name).unlink(missing_ok=True)
        self.extensions = []


setup(
    ext_modules=[
        Extension(f"{PACKAGE}.{name}", [f"{PACKAGE}/{name}.py"], extra_compile_args=COMPILE_ARGS)
        for name in CORE["CORE_MODULES"]
    ],
    cmdclass={"build": CleanBuild, "build_ext": CoreBuildExt},
)
