"""The build of the compiled core, for real in a copy of the tree: where the C compiler
fails, the wheel still builds, pure Python, with a warning, whatever a stale ``build/``
folder holds; and the import pattern of the core's modules compiles with Cython and runs
as Python with Cython's ``cython`` module or with the shim."""

import importlib.util
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parent.parent
TREE_FILES = ("pyproject.toml", "setup.py", "README.md", "MANIFEST.in")


def _copy_tree(target: Path) -> Path:
    """The files the build reads, copied to ``target`` (no extension, stamp or cache)."""
    target.mkdir()
    for name in TREE_FILES:
        shutil.copy(ROOT / name, target / name)
    shutil.copytree(
        ROOT / "banqi_engine",
        target / "banqi_engine",
        ignore=shutil.ignore_patterns("__pycache__", "*.so", "*.pyd", "_core_stamp.json"),
    )
    return target


def _stale_build(tree: Path) -> list[str]:
    """A ``build/`` folder as another tree's build might leave it; the names it would
    put in a wheel."""
    planted = []
    for lib in ("lib", f"lib.linux-x86_64-cpython-{sys.version_info[0]}{sys.version_info[1]}"):
        folder = tree / "build" / lib / "banqi_engine"
        folder.mkdir(parents=True)
        (folder / "search.cpython-311-x86_64-linux-gnu.so").write_bytes(b"stale")
        (folder / "gone.py").write_text("STALE = True\n")
        planted += ["banqi_engine/search.cpython-311-x86_64-linux-gnu.so", "banqi_engine/gone.py"]
    return planted


def test_without_a_working_compiler_the_wheel_is_pure_python(tmp_path: Path) -> None:
    tree = _copy_tree(tmp_path / "tree")
    planted = _stale_build(tree)
    done = subprocess.run(
        [
            sys.executable,
            "-c",
            "from setuptools import build_meta; print(build_meta.build_wheel('dist'))",
        ],
        cwd=tree,
        env={"PATH": "/usr/bin:/bin", "CC": "false", "HOME": str(tmp_path)},
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "the engine's compiled core was not built (CompileError" in done.stdout + done.stderr
    wheel = tree / "dist" / done.stdout.splitlines()[-1]
    names = zipfile.ZipFile(wheel).namelist()
    assert "banqi_engine/search.py" in names
    assert "banqi_engine/core_modules.py" in names
    assert [n for n in names if n.endswith((".so", ".c", ".json")) or n in planted] == []
    assert list((tree / "banqi_engine").glob("*.c")) == []


PATTERN_MODULE = """
try:
    import cython
except ModuleNotFoundError:
    from banqi_engine import _cython_shim as cython  # type: ignore[no-redef]

ODD = cython.declare(cython.int[4], [1, 3, 5, 7])


@cython.cfunc
@cython.inline
@cython.exceptval(-1, check=False)
def _twice(x: cython.int) -> cython.int:
    return x * 2


@cython.final
@cython.cclass
class Box:
    value: cython.int

    def __init__(self, value: int) -> None:
        self.value = value

    @cython.ccall
    def twice_plus_odd(self, i: cython.Py_ssize_t) -> cython.longlong:
        return _twice(self.value) + ODD[i]


@cython.locals(i=cython.Py_ssize_t, total=cython.double)
def halves(n: int) -> float:
    total = 0.0
    for i in range(n):
        total += cython.cast(cython.double, i) / 2
    return total


def compiled() -> bool:
    return cython.compiled
"""

PATTERN_SETUP = """
from Cython.Build import cythonize
from setuptools import setup
setup(
    name="core_pattern",
    ext_modules=cythonize(["core_pattern.py"], build_dir="build", quiet=True,
                          compiler_directives={"language_level": 3}),
    script_args=["build_ext", "--inplace", "-q"],
)
"""


def _load(name: str, path: Path) -> ModuleType:
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _answers(module: ModuleType) -> tuple[bool, int, float]:
    return module.compiled(), module.Box(20).twice_plus_odd(2), module.halves(5)


def test_the_import_pattern_compiles_and_runs_pure_with_or_without_cython(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "core_pattern.py").write_text(PATTERN_MODULE)
    (tmp_path / "setup.py").write_text(PATTERN_SETUP)
    subprocess.run(
        [sys.executable, "setup.py"],
        cwd=tmp_path,
        env={"PATH": "/usr/bin:/bin", "CFLAGS": "-O0 -g0"},
        capture_output=True,
        check=True,
        timeout=300,
    )
    (extension,) = tmp_path.glob("core_pattern.*.so")
    assert _answers(_load("core_pattern", extension)) == (True, 45, 5.0)
    assert _answers(_load("core_pattern_shadow", tmp_path / "core_pattern.py")) == (False, 45, 5.0)
    monkeypatch.setitem(sys.modules, "cython", None)
    shimmed = _load("core_pattern_shim", tmp_path / "core_pattern.py")
    assert shimmed.cython.__name__ == "banqi_engine._cython_shim"
    assert _answers(shimmed) == (False, 45, 5.0)


SHIM_TYPES = [
    "int",
    "uint",
    "char",
    "schar",
    "uchar",
    "short",
    "ushort",
    "long",
    "ulong",
    "longlong",
    "ulonglong",
    "Py_ssize_t",
    "size_t",
    "float",
    "double",
    "bint",
]


def test_the_shim_answers_as_cythons_own_module() -> None:
    """Run as Python, a core module sees the shim where Cython is not installed and
    Cython's ``cython`` where it is: the same names, the same values."""
    import cython

    from banqi_engine import _cython_shim as shim

    assert shim.compiled is cython.compiled is False
    for name in SHIM_TYPES:
        ours, theirs = getattr(shim, name), getattr(cython, name)
        for value in (0, 7, 2.75, True):
            assert shim.cast(ours, value) == cython.cast(theirs, value), (name, value)
            assert type(shim.cast(ours, value)) is type(cython.cast(theirs, value))
            assert shim.declare(ours, value) == cython.declare(theirs, value)
        assert shim.declare(ours) is cython.declare(theirs) is None
        set_array, unset_array = cython.declare(theirs[3], [1, 2, 3]), cython.declare(theirs[3])
        assert shim.declare(ours[3], [1, 2, 3]) == [set_array[i] for i in range(3)], name
        assert shim.declare(ours[3]) == [unset_array[i] for i in range(3)], name
    for decorator in ("cclass", "cfunc", "ccall", "inline", "final"):
        assert getattr(shim, decorator)(len) is getattr(cython, decorator)(len) is len
    assert shim.locals(x=shim.int)(len) is cython.locals(x=cython.int)(len) is len
    assert shim.exceptval(-1, check=False)(len) is cython.exceptval(-1, check=False)(len) is len
    assert shim.cast(object, "x") == cython.cast(object, "x")
