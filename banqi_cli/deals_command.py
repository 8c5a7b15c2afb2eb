"""``banqi deals``: write a deal book, hidden layouts for ``--deals`` on match and tournament,
or the positions of earlier runs' records (``--from``)."""

from pathlib import Path

import click

from banqi_common.errors import InputError
from referee.book_openings import LAST_FLIP, OpeningCut
from referee.deal_book import MAX_DEALS, DealBook, make_deal_book, write_deal_book
from referee.deals import new_seed
from referee.records_book import book_from_records
from tournaments.run_access import RunAccess
from tournaments.run_records import run_records

from . import output
from .output import seed_words
from .param_types import ParsedType, path_option
from .run_options import key_file_option


def _cut(text: str) -> OpeningCut:
    """``last-flip`` or a number of plies of at least 1."""
    if text == LAST_FLIP:
        return LAST_FLIP
    if not text.isdigit() or int(text) < 1:
        raise ValueError(f"{text!r} is neither {LAST_FLIP} nor a number of plies (1 or more)")
    return int(text)


@click.command("deals")
@click.option(
    "--count",
    type=click.IntRange(1, MAX_DEALS),
    default=None,
    help="How many deals to write (a match needs one per pair of games). With --from: at "
    "most that many (default: one a record).",
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
@click.option(
    "--from",
    "sources",
    multiple=True,
    type=click.Path(path_type=Path),
    metavar="RUN_FOLDER",
    help="Cut the deals from the game records of this run folder (repeatable): each "
    "record's layout, with its plies up to --at as the entry's opening.",
)
@click.option(
    "--at",
    "cut",
    type=ParsedType("last-flip|PLIES", int, _cut),
    metavar="last-flip|PLIES",
    default=LAST_FLIP,
    show_default=True,
    help="With --from: where the opening ends, right after the last flip (the face-up "
    "endgame is left to play) or after that many plies (the pieces still face down then "
    "lie as in the recorded game, known to whoever has seen its record).",
)
@key_file_option
@click.option("--force", is_flag=True, help="Replace OUT if it exists.")
def deals_command(
    count: int | None,
    out: Path,
    seed: int | None,
    sources: tuple[Path, ...],
    cut: OpeningCut,
    key_file: Path | None,
    force: bool,
) -> None:
    """Write COUNT hidden layouts to a deal book for --deals, or earlier games' positions.

    Entry i holds a secret, HMAC-SHA256(referee key, "book/SEED/i"), and the layout it
    shuffles to, so the same key and seed give the same book. A run given the book with
    --deals deals its k-th deal from entry k: two runs of different engines meet the
    same layouts. The book is as secret as the key: it is written with mode 0600 and
    engines never see it; an existing file is replaced only with --force.

    With --from, each entry is a game of the run folders' records instead: its layout,
    and its plies up to --at as an opening, played before either engine is asked for a
    move (both engines are told them as the game's first plies; no time is charged).
    Each pair of a run on such a book plays one position with the seats swapped, so
    each engine plays both sides of it. Cut at the last flip (the default), a book
    tests the face-up endgame alone.
    """
    if sources and seed is not None:
        raise click.UsageError("--seed makes a book from the referee key: leave it out with --from")
    if not sources and count is None:
        raise click.UsageError("give --count (how many deals to write), or --from RUN_FOLDER")
    try:
        if sources:
            book, words = _book_from(sources, cut, count)
        else:
            assert count is not None
            key = RunAccess(key_file=key_file).referee_key()
            book = make_deal_book(key, new_seed() if seed is None else seed, count)
            words = f"{_deals(count)}, {seed_words(seed)}"
        sha256 = write_deal_book(book, out, force=force)
    except InputError as error:
        output.fail(error)
    output.say(f"deal book {out}: {words}, sha256 {sha256}")


def _deals(count: int) -> str:
    return f"{count} deal{'' if count == 1 else 's'}"


def _book_from(
    sources: tuple[Path, ...], cut: OpeningCut, count: int | None
) -> tuple[DealBook, str]:
    """The book cut from the records of ``sources``, and what it holds in words."""
    found = run_records(list(sources))
    made = book_from_records((f.record for f in found), cut, count)
    at = "the last flip" if cut == LAST_FLIP else f"ply {cut}"
    left = [
        f"{number} {words}"
        for number, words in ((made.ended_by_cut, "ended by then"), (made.withheld, "withheld"))
        if number
    ]
    folders = f"{len(sources)} run folder{'' if len(sources) == 1 else 's'}"
    words = f"{_deals(len(made.book.deals))} cut at {at} from {len(found)} records of {folders}" + (
        f" ({', '.join(left)})" if left else ""
    )
    return made.book, words
