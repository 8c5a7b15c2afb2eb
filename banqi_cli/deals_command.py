"""``banqi deals``: write a deal book, hidden layouts for ``--deals`` on match and tournament."""

from pathlib import Path

import click

from banqi_common.errors import InputError
from referee.deal_book import MAX_DEALS, make_deal_book, write_deal_book
from referee.deals import new_seed
from tournaments.run_access import RunAccess

from . import output
from .output import seed_words
from .param_types import path_option
from .run_options import key_file_option


@click.command("deals")
@click.option(
    "--count",
    type=click.IntRange(1, MAX_DEALS),
    required=True,
    help="How many deals to write (a match needs one per pair of games).",
)
@path_option(
    "--out",
    required=True,
    help="The book file to write (JSON, mode 0600), in a folder that exists.",
)
@click.option(
    "--seed",
    type=click.IntRange(0),
    default=None,
    help="Book seed: with the same referee key, the same book. Default: random.",
)
@key_file_option
@click.option("--force", is_flag=True, help="Replace OUT if it exists.")
def deals_command(
    count: int, out: Path, seed: int | None, key_file: Path | None, force: bool
) -> None:
    """Write COUNT hidden layouts to a deal book, for --deals on match and tournament.

    Entry i holds a secret, HMAC-SHA256(referee key, "book/SEED/i"), and the layout it
    shuffles to, so the same key and seed give the same book. A run given the book with
    --deals deals its k-th deal from entry k: two runs of different engines meet the
    same layouts. The book is as secret as the key: it is written with mode 0600 and
    engines never see it; an existing file is replaced only with --force.
    """
    try:
        key = RunAccess(key_file=key_file).referee_key()
        book = make_deal_book(key, new_seed() if seed is None else seed, count)
        sha256 = write_deal_book(book, out, force=force)
    except InputError as error:
        output.fail(error)
    output.say(
        f"deal book {out}: {count} deal{'' if count == 1 else 's'}, {seed_words(seed)}, "
        f"sha256 {sha256}"
    )
