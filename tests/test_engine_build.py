"""The engine says which build of its core runs (compiled, or pure Python and why), picks
it as documented, and the benchmarks' total lines and the ``version`` reply say which."""

import json
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import asdict
from importlib.machinery import EXTENSION_SUFFIXES
from pathlib import Path

import pytest
from click.testing import CliRunner

import banqi_cli.perft_commands
import banqi_engine
from banqi_cli.main import cli
from banqi_common.version import VERSION
from banqi_engine.core_build import (
    CORE_BUILD,
    NOT_BUILT,
    PURE_ENV,
    PURE_REQUESTED,
    STALE,
    CoreBuild,
    choose_core,
)
from banqi_engine.core_modules import CORE_MODULES, STAMP_FILE, CoreStamp, source_digests
from banqi_engine.search import SearchResult
from banqi_engine.speed_bench import BENCH_POSITIONS, BenchPosition
from protocol.engine_loop import ENGINE_VERSION

PACKAGE_DIR = Path(banqi_engine.__file__).parent


def test_the_suite_runs_the_compiled_core_unless_told_to_run_pure() -> None:
    """The README's test command builds the core: a pure run must be asked for."""
    if os.environ.get(PURE_ENV) == "1":
        assert (CORE_BUILD.compiled, CORE_BUILD.why_pure) == (False, PURE_REQUESTED)
    else:
        assert CORE_BUILD.compiled, (
            f"the engine's core runs as {CORE_BUILD.description}: build it with "
            f"pip install -e . (it needs a C compiler), or run the tests with {PURE_ENV}=1"
        )


def test_the_core_modules_are_all_compiled_or_all_pure() -> None:
    modules = [sys.modules.get(f"banqi_engine.{name}") for name in CORE_MODULES]
    files = [module.__file__ or "" for module in modules if module is not None]
    assert files
    assert {file.endswith(tuple(EXTENSION_SUFFIXES)) for file in files} == {CORE_BUILD.compiled}


def _package(folder: Path, extensions: int = len(CORE_MODULES)) -> Path:
    """A folder with the core's sources (small stand-ins) and ``extensions`` of their
    extensions (empty files)."""
    folder.mkdir()
    for number, name in enumerate(CORE_MODULES):
        (folder / f"{name}.py").write_text(f"VALUE = {number}\n")
        if number < extensions:
            (folder / f"{name}{EXTENSION_SUFFIXES[0]}").write_bytes(b"")
    return folder


def _stamp(folder: Path, cython: str = "3.9.9") -> None:
    stamp = CoreStamp(cython, source_digests(folder))
    (folder / STAMP_FILE).write_text(json.dumps(asdict(stamp)))


def test_extensions_stamped_with_their_sources_run_compiled(tmp_path: Path) -> None:
    folder = _package(tmp_path / "pkg")
    _stamp(folder)
    build = choose_core(folder, {})
    assert build == CoreBuild("3.9.9")
    assert (build.description, build.token) == ("compiled (Cython 3.9.9)", "compiled")
    assert choose_core(folder, {PURE_ENV: "0"}) == build


def test_the_pure_switch_runs_pure_whatever_is_built(tmp_path: Path) -> None:
    folder = _package(tmp_path / "pkg")
    _stamp(folder)
    build = choose_core(folder, {PURE_ENV: "1"})
    assert (build.description, build.token) == ("pure Python (BANQI_PURE=1)", "pure-python")


def test_no_extensions_is_the_pure_build_of_an_install_without_compiler(tmp_path: Path) -> None:
    build = choose_core(_package(tmp_path / "pkg", extensions=0), {})
    assert build.description == f"pure Python ({NOT_BUILT})"
    assert build.description == "pure Python (no compiled core was built at install)"


@pytest.mark.parametrize("damage", ["edited source", "no stamp", "bad stamp", "one missing"])
def test_extensions_that_do_not_match_their_sources_are_stale(tmp_path: Path, damage: str) -> None:
    folder = _package(tmp_path / "pkg", len(CORE_MODULES) - (damage == "one missing"))
    _stamp(folder)
    if damage == "edited source":
        with (folder / f"{CORE_MODULES[-1]}.py").open("a") as source:
            source.write("# edited\n")
    elif damage == "no stamp":
        (folder / STAMP_FILE).unlink()
    elif damage == "bad stamp":
        (folder / STAMP_FILE).write_text('{"cython": 3}')
    build = choose_core(folder, {})
    assert build == CoreBuild(None, STALE)
    assert build.description == (
        "pure Python (the compiled core is older than its source; run pip install -e . again)"
    )


def test_a_bad_pure_switch_is_a_one_line_error(tmp_path: Path) -> None:
    with pytest.raises(SystemExit) as exit_info:
        choose_core(_package(tmp_path / "pkg"), {PURE_ENV: "yes"})
    message = str(exit_info.value)
    assert "\n" not in message
    assert (
        message
        == "Error: BANQI_PURE must be 1 (run the engine's core as pure Python) or 0, got 'yes'"
    )


@pytest.mark.skipif(not CORE_BUILD.compiled, reason="no compiled core here to go stale")
def test_an_edited_source_runs_the_whole_core_pure_and_says_why_once(tmp_path: Path) -> None:
    """In a copy of the installed package, never in the tree itself."""
    copy = tmp_path / "banqi_engine"
    shutil.copytree(PACKAGE_DIR, copy, ignore=shutil.ignore_patterns("__pycache__"))
    with (copy / "search.py").open("a") as source:
        source.write("# edited after the build\n")
    script = (
        "import banqi_engine, banqi_engine.search, banqi_engine.position\n"
        "from banqi_engine.core_build import CORE_BUILD\n"
        "print(CORE_BUILD.description)\n"
        "print(banqi_engine.search.__file__, banqi_engine.position.__file__)\n"
    )
    env = {k: v for k, v in os.environ.items() if k != PURE_ENV}
    done = subprocess.run(
        [sys.executable, "-c", script],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    description, files = done.stdout.splitlines()
    assert description == f"pure Python ({STALE})"
    assert files == f"{copy / 'search.py'} {copy / 'position.py'}"
    assert done.stderr == f"banqi_engine: warning: running pure Python: {STALE}\n"


def test_bench_search_names_the_build_in_its_total_line(monkeypatch: pytest.MonkeyPatch) -> None:
    def one_row(*args: object) -> Iterator[tuple[BenchPosition, SearchResult]]:
        yield BENCH_POSITIONS[-1], SearchResult(0, 0.0, 1, 1000, 0.5)

    monkeypatch.setattr(banqi_cli.perft_commands, "bench_search", one_row)
    result = CliRunner().invoke(cli, ["bench", "search"])
    assert result.exit_code == 0, result.output
    total = result.output.splitlines()[-1]
    assert total == f"total 1,000 nodes in 0.50s: 2,000 nodes/s ({CORE_BUILD.description})"


def test_bench_search_takes_seconds_or_nodes_not_both() -> None:
    result = CliRunner().invoke(cli, ["bench", "search", "--seconds", "1", "--nodes", "100"])
    assert result.exit_code == 2
    assert "--seconds and --nodes exclude each other" in result.output


def test_the_version_reply_names_the_build() -> None:
    token = "compiled" if CORE_BUILD.compiled else "pure-python"
    assert ENGINE_VERSION.split(" ") == [VERSION, token]
