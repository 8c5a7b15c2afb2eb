"""The engine says whether it runs compiled (``BANQI_COMPILE=1`` at install) or as pure
Python, and the benchmarks' total lines say which."""

from collections.abc import Iterator
from importlib.machinery import EXTENSION_SUFFIXES

import pytest
from click.testing import CliRunner

import banqi_cli.perft_commands
import banqi_engine.movegen
import banqi_engine.position
import banqi_engine.search
from banqi_cli.main import cli
from banqi_engine.search import SearchResult
from banqi_engine.speed_bench import BENCH_POSITIONS, BenchPosition, engine_build, engine_compiled


def _is_extension(path: str) -> bool:
    return path.endswith(tuple(EXTENSION_SUFFIXES))


def test_the_hot_modules_are_all_compiled_or_all_pure() -> None:
    modules = (banqi_engine.position, banqi_engine.movegen, banqi_engine.search)
    assert {_is_extension(m.__file__ or "") for m in modules} == {engine_compiled()}


def test_bench_search_names_the_build_in_its_total_line(monkeypatch: pytest.MonkeyPatch) -> None:
    def one_row(seconds: float) -> Iterator[tuple[BenchPosition, SearchResult]]:
        yield BENCH_POSITIONS[-1], SearchResult(0, 0.0, 1, 1000, 0.5)

    monkeypatch.setattr(banqi_cli.perft_commands, "bench_search", one_row)
    result = CliRunner().invoke(cli, ["bench", "search"])
    assert result.exit_code == 0, result.output
    total = result.output.splitlines()[-1]
    assert total == f"total 1,000 nodes in 0.50s: 2,000 nodes/s ({engine_build()})"
    assert engine_build() in ("pure Python", "compiled with mypyc")
