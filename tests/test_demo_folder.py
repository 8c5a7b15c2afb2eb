"""The README's demo and then the tests, in one folder: what the demo leaves beside the
packages (``banqi-runs/``) changes no test's outcome.

The project is copied (not linked: the sandbox finds our packages by their real path), the
demo is played there (shorter games than the README's, the same folders), and the
sandbox tests that look at what is beside the packages are run in the copy against the
copy's own packages."""

import os
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGES: list[str] = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["mypy"][
    "packages"
]
SKIPPED = shutil.ignore_patterns("__pycache__", "*.c", "build", "banqi-runs")


def copy_project(into: Path) -> Path:
    """The packages, the tests and ``pyproject.toml``, copied under ``into``."""
    clone = into / "clone"
    for name in [*PACKAGES, "tests"]:
        shutil.copytree(ROOT / name, clone / name, ignore=SKIPPED)
    shutil.copy2(ROOT / "pyproject.toml", clone / "pyproject.toml")
    return clone


def run(args: list[str], clone: Path, home: Path) -> "subprocess.CompletedProcess[str]":
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTEST", "BANQI_"))}
    env |= {"PYTHONPATH": str(clone), "HOME": str(home), "PYTHONDONTWRITEBYTECODE": "1"}
    return subprocess.run(
        [sys.executable, *args],
        cwd=clone,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )


def test_the_sandbox_tests_pass_after_the_demo_in_the_same_folder(tmp_path: Path) -> None:
    clone = copy_project(tmp_path)
    home = tmp_path / "home"
    home.mkdir()
    where = run(["-c", "import referee; print(referee.__file__)"], clone, home)
    assert where.stdout.strip() == str(clone / "referee" / "__init__.py")
    demo = run(
        [
            "-c",
            "from banqi_cli.main import cli; cli()",
            "tournament",
            "--time",
            "1",
            "--concurrency",
            "1",
        ],
        clone,
        home,
    )
    assert demo.returncode == 0, demo.stdout + demo.stderr
    assert list((clone / "banqi-runs" / "tournament" / "games").glob("*.json"))
    tests = run(
        [
            "-m",
            "pytest",
            "-n0",
            "-p",
            "no:cacheprovider",
            "tests/test_sandbox.py",
            "-k",
            "views or covered",
        ],
        clone,
        home,
    )
    assert tests.returncode == 0, tests.stdout[-3000:] + tests.stderr[-2000:]
    assert " passed" in tests.stdout.splitlines()[-1]
