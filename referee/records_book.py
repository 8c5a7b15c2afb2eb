"""A deal book cut from the records of earlier runs (``banqi deals --from``): one entry a
record, with the record's layout and deal secret and, as its opening, the game's plies up to
a cut (``referee.book_openings``), so that a new run replays those positions."""

from collections.abc import Iterable
from dataclasses import dataclass

from .book_openings import LAST_FLIP, OpeningCut, opening_of
from .deal_book import MAX_DEALS, MAX_OPENING_PLIES, BookEntry, DealBook, DealBookError
from .record import GameRecord


@dataclass(frozen=True)
class RecordsBook:
    """The book, and how many records gave no entry: withheld (their layout is not known
    yet) and ended by the cut (nothing would be left to play)."""

    book: DealBook
    withheld: int
    ended_by_cut: int


def book_from_records(
    records: Iterable[GameRecord], cut: OpeningCut, count: int | None = None
) -> RecordsBook:
    """A book of the first ``count`` (every one, if None) records, in the order given, that
    are complete and go on past ``cut``; DealBookError if none does."""
    entries: list[BookEntry] = []
    withheld = ended = 0
    limit = MAX_DEALS if count is None else min(count, MAX_DEALS)
    for record in records:
        if len(entries) == limit:
            break
        if record.layout is None:
            withheld += 1
            continue
        opening = opening_of(record, cut)
        if opening is None:
            ended += 1
            continue
        if len(opening) > MAX_OPENING_PLIES:
            raise DealBookError(
                f"record {record.game_id} cut at {_at(cut)} gives an opening of "
                f"{len(opening)} plies; a book entry holds at most {MAX_OPENING_PLIES}: "
                "cut earlier"
            )
        entries.append(BookEntry(layout=record.layout, secret=record.deal_secret, opening=opening))
    if not entries:
        raise DealBookError(
            f"no record goes on past {_at(cut)} ({ended} ended by then, {withheld} withheld): "
            "nothing to write"
        )
    return RecordsBook(DealBook(deals=entries), withheld, ended)


def _at(cut: OpeningCut) -> str:
    return "its last flip" if cut == LAST_FLIP else f"ply {cut}"
