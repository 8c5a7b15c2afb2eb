"""The build of the compiled core, for real in a copy of the tree: where the C compiler
fails, the wheel still builds, pure Python, with a warning, whatever a stale ``build/``
folder holds."""

import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

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
