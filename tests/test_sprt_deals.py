"""An SPRT dealt from a deal book: the book's layouts in order, whoever plays; the test fits
the book; a resumed test keeps its book."""

import contextlib
import json
import shlex
from pathlib import Path

from click.testing import CliRunner
from referee_fakes import TEST_KEY, write_fake

from banqi_cli.main import cli
from banqi_engine.layout import format_layout, parse_layout
from referee.deal_book import make_deal_book, write_deal_book
from referee.record import read_record


def sprt(folder: Path, names: tuple[str, str], out: str, *extra: str) -> tuple[int, str]:
    fakes = [write_fake(folder, name, legal=True) for name in names]
    engines = [f"{fake.name}={shlex.join(fake.command)}" for fake in fakes]
    args = ["sprt", *engines, "--rules", "casual", "--out", out, "--key-file", "key", *extra]
    with contextlib.chdir(folder):
        result = CliRunner().invoke(cli, args)
    return result.exit_code, result.output


def layouts(run: Path) -> list[str]:
    return [read_record(path).layout or "" for path in sorted((run / "games").glob("*.json"))]


def test_an_sprt_plays_the_books_deals_in_order_and_fits_its_length(tmp_path: Path) -> None:
    (tmp_path / "key").write_bytes(TEST_KEY)
    book = make_deal_book(TEST_KEY, 5, 2)
    write_deal_book(book, tmp_path / "book.json")
    code, output = sprt(tmp_path, ("alpha", "beta"), "one", "--deals", "book.json")
    assert code == 0, output
    code, other = sprt(tmp_path, ("gamma", "delta"), "two", "--deals", "book.json")
    assert code == 0, other
    expected = [format_layout(parse_layout(deal.layout)) for deal in book.deals for _ in (1, 2)]
    assert layouts(tmp_path / "one") == layouts(tmp_path / "two") == expected
    settings = json.loads((tmp_path / "one" / "sprt-settings.json").read_text())
    assert settings["config"]["max_games"] == 4  # two games a deal of the book
    assert settings["deal_book"]["path"] == "book.json"

    write_deal_book(make_deal_book(TEST_KEY, 6, 2), tmp_path / "other.json")
    code, refused = sprt(tmp_path, ("alpha", "beta"), "one", "--deals", "other.json")
    assert code == 1
    assert "deal book" in refused
    code, small = sprt(
        tmp_path, ("alpha", "beta"), "three", "--deals", "book.json", "--max-games", "6"
    )
    assert code == 1
    assert "holds 2 deals; this run needs 3" in small
