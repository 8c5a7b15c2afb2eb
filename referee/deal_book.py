"""Deal books: hidden layouts written ahead, so that runs of different versions meet the same
deals.

A book is a JSON file, as secret as the referee key (engines never see it: the sandbox
covers it, as it covers the key)::

    {"format": "banqi-deals/1",
     "deals": [{"layout": "KGGM/...", "secret": "<64 hex>"}, {"layout": "kggm/..."},
               {"layout": "PPng/...", "opening": ["b6(K)", "a7(m)", "b6-b5"]}]}

``banqi deals`` writes entries whose secret is HMAC-SHA256(referee key, ``book/<seed>/<i>``)
with the layout it shuffles to; an entry written by hand may leave the secret out. Each
layout is checked to be a full set, and a secret to shuffle to its entry's layout. An entry
may hold an opening, plies played from its layout before either player is asked for a move
(``referee.book_openings``; ``banqi deals --from`` cuts them from records), checked under a
run's rules before its first game. The k-th distinct deal of a run, in schedule order, is
dealt from entry k (``entries_by_deal``).

The referee keeps a run's parsed book in memory (it is the user's file, read once, like the
key) and makes an entry's layout only when the entry's game starts or its deal's records are
completed. A run keeps the book's SHA-256 in its state file (``BookStamp``), so that it is
resumed with the same book only.
"""

import contextlib
import hashlib
import os
import re
import tempfile
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Final, Literal, Self

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from banqi_common.errors import InputError
from banqi_common.write_errors import writing
from banqi_engine.errors import MoveError, PositionError
from banqi_engine.layout import format_layout, parse_layout
from banqi_engine.notation import parse_ply
from banqi_engine.rules import RuleSet

from .book_openings import opening_problem
from .deals import Deal, DealBookRef, book_secret, layout_from_secret
from .game_setup import GameSetup

BOOK_FORMAT: Final = "banqi-deals/1"
MAX_DEALS: Final = 100_000
"""The most deals a book may hold."""
MAX_BOOK_BYTES: Final = 64 << 20
"""The largest file read as a deal book (a full book written by ``banqi deals`` is about 16 MB)."""
MAX_OPENING_PLIES: Final = 2000
"""The most plies an entry's opening may hold."""
SECRET: Final = re.compile(r"[0-9a-f]{64}")
"""A deal secret: an HMAC-SHA256 in lowercase hex."""


class DealBookError(InputError):
    """A deal book that cannot be read, written, or used for a run."""


class BookEntry(BaseModel):
    """One deal of a book: its layout, and the secret it was shuffled from, if known."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    layout: str = Field(description="A board field: 8 groups of 4 piece letters, rank 8 first.")
    secret: str | None = Field(
        default=None, description="64 lowercase hex digits that shuffle to the layout."
    )
    opening: list[str] | None = Field(
        default=None,
        max_length=MAX_OPENING_PLIES,
        description="Plies in record notation (a2-a3, b6(K)) played from the layout before "
        "either player is asked for a move.",
    )

    @field_validator("layout")
    @classmethod
    def _full_set(cls, layout: str) -> str:
        """A layout is 32 piece letters making up exactly one full set."""
        try:
            parse_layout(layout)
        except PositionError as error:
            raise ValueError(str(error).removeprefix("layout: ")) from None
        return layout

    @field_validator("secret")
    @classmethod
    def _hex(cls, secret: str | None) -> str | None:
        if secret is not None and not SECRET.fullmatch(secret):
            raise ValueError(
                f"{secret[:16]!r}{'...' if len(secret) > 16 else ''} is not a deal secret: "
                "allowed are 64 lowercase hex digits (an HMAC-SHA256)"
            )
        return secret

    @field_validator("opening")
    @classmethod
    def _plies(cls, opening: list[str] | None) -> list[str] | None:
        """Each ply of an opening reads as a move string (its legality depends on a run's
        rules: ``LoadedBook.check_fits``)."""
        for number, text in enumerate(opening or (), start=1):
            try:
                parse_ply(text)
            except MoveError as error:
                raise ValueError(f"ply {number}: {error}") from None
        return opening

    @model_validator(mode="after")
    def _secret_shuffles_to_layout(self) -> Self:
        if self.secret is not None and layout_from_secret(self.secret) != parse_layout(self.layout):
            raise ValueError(
                "its secret does not shuffle to its layout: give the layout the secret "
                "shuffles to, or leave the secret out"
            )
        return self


class DealBook(BaseModel):
    """What a deal book file holds."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    format: Literal["banqi-deals/1"] = BOOK_FORMAT
    deals: list[BookEntry] = Field(min_length=1, max_length=MAX_DEALS)


@dataclass(frozen=True)
class LoadedBook:
    """A deal book read from its file: the path it was given as, the SHA-256 of its bytes,
    and its deals."""

    path: Path
    sha256: str
    book: DealBook

    def deal(self, index: int) -> Deal:
        """Entry ``index`` as the deal of a game."""
        entry = self.book.deals[index]
        return Deal(
            parse_layout(entry.layout),
            secret=entry.secret,
            book=DealBookRef(sha256=self.sha256, entry=index),
            opening=tuple(entry.opening or ()),
        )

    def check_fits(self, setups: Iterable[GameSetup]) -> None:
        """Refuse a run of ``setups`` whose distinct deals outnumber the book's entries, or
        that deals an entry whose opening its rules do not allow."""
        rules_of: dict[str, RuleSet] = {}
        for setup in setups:
            rules_of.setdefault(setup.deal, setup.rules)
        needed, held = len(rules_of), len(self.book.deals)
        if needed > held:
            raise DealBookError(
                f"the deal book {self.path} holds {_deals(held)}; this run needs {needed}: "
                f"write a bigger one (banqi deals --count {needed})"
            )
        for deal, index in entries_by_deal(rules_of).items():
            self.check_opening(index, rules_of[deal])

    def check_opening(self, index: int, rules: RuleSet) -> None:
        """Refuse entry ``index`` if its opening cannot be played under ``rules``."""
        entry = self.book.deals[index]
        if not entry.opening:
            return
        problem = opening_problem(parse_layout(entry.layout), entry.opening, rules)
        if problem is not None:
            raise DealBookError(
                f"the deal book {self.path} cannot be played under the rule set "
                f"{rules.name!r}: deals[{index}].opening: {problem}"
            )


def _deals(count: int) -> str:
    return f"{count} deal{'' if count == 1 else 's'}"


def entries_by_deal(deals: Iterable[str]) -> dict[str, int]:
    """The book entry each deal of a run is dealt from: the k-th distinct deal, in the order
    given (the schedule's), takes entry k."""
    return {deal: index for index, deal in enumerate(dict.fromkeys(deals))}


def read_deal_book(path: Path) -> LoadedBook:
    """Read and check a deal book; DealBookError names the file, the entry and the problem."""
    try:
        with path.open("rb") as handle:
            data = handle.read(MAX_BOOK_BYTES + 1)
    except FileNotFoundError:
        raise DealBookError(
            f"deal book {path} does not exist (write one with banqi deals)"
        ) from None
    except OSError as error:
        raise DealBookError(f"cannot read deal book {path}: {error.strerror or error}") from None
    if len(data) > MAX_BOOK_BYTES:
        raise DealBookError(
            f"deal book {path} is larger than {MAX_BOOK_BYTES >> 20} MiB: not a deal book"
        )
    try:
        book = DealBook.model_validate_json(data)
    except ValidationError as error:
        first = error.errors()[0]
        where = "".join(
            f"[{part}]" if isinstance(part, int) else f".{part}" for part in first["loc"]
        ).lstrip(".")
        message = str(first["msg"]).removeprefix("Value error, ")
        more = error.error_count() - 1
        raise DealBookError(
            f"deal book {path} is not a valid {BOOK_FORMAT} book: {where or '(top level)'}: "
            f"{message}" + (f" (and {more} more problems)" if more else "")
        ) from None
    return LoadedBook(path, hashlib.sha256(data).hexdigest(), book)


def make_deal_book(key: bytes, seed: int, count: int) -> DealBook:
    """``count`` deals from the referee key: entry i's secret is ``book_secret(key, seed, i)``."""
    entries = []
    for index in range(count):
        secret = book_secret(key, seed, index)
        entries.append(BookEntry(layout=format_layout(layout_from_secret(secret)), secret=secret))
    return DealBook(deals=entries)


def write_deal_book(book: DealBook, path: Path, *, force: bool = False) -> str:
    """Write ``book`` to ``path`` with mode 0600, atomically; returns the file's SHA-256.

    An existing file is replaced only if ``force``; the folder must exist.
    """
    if path.is_dir():
        raise DealBookError(f"cannot write deal book {path}: it is a folder")
    if not force and path.exists():
        raise DealBookError(f"{path} exists: not replaced (give --force to replace it)")
    if not path.parent.is_dir():
        raise DealBookError(
            f"cannot write deal book {path}: its folder {path.parent} does not exist"
        )
    data = (book.model_dump_json(indent=2, exclude_none=True) + "\n").encode()
    with writing(f"write deal book {path}"):
        fd, temp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
        try:
            with os.fdopen(fd, "wb") as handle:
                os.fchmod(handle.fileno(), 0o600)
                handle.write(data)
                handle.flush()
                os.fsync(handle.fileno())
            if force:
                os.replace(temp, path)
            else:
                os.link(temp, path)  # never replaces a file made meanwhile
        except FileExistsError:
            raise DealBookError(
                f"{path} exists: not replaced (give --force to replace it)"
            ) from None
        finally:
            with contextlib.suppress(OSError):  # a folder turned read-only keeps it
                Path(temp).unlink(missing_ok=True)
    return hashlib.sha256(data).hexdigest()


class BookStamp(BaseModel):
    """The deal book a run was started with, as its state file keeps it: the path it was
    given as (to name it) and the SHA-256 of its bytes (what must match on resume)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    path: str
    sha256: str = Field(pattern=r"^[0-9a-f]{64}$")


def stamp_of(book: LoadedBook | None) -> BookStamp | None:
    """What a new run's state keeps of its deal book, if it has one."""
    return None if book is None else BookStamp(path=str(book.path), sha256=book.sha256)


def check_same_book(saved: BookStamp | None, given: LoadedBook | None, folder: Path) -> None:
    """Refuse to resume the run in ``folder`` with another deal book than it was started
    with, or with one when it had none, or without its own."""
    if saved is None:
        if given is not None:
            raise DealBookError(
                f"{folder} was started without a deal book (its layouts come from the referee "
                f"key): resume it without --deals {given.path}, or choose another --out"
            )
        return
    started = f"{folder} was started with the deal book {saved.path} (sha256 {saved.sha256[:16]})"
    if given is None:
        raise DealBookError(f"{started}: resume it with --deals and that book")
    if given.sha256 != saved.sha256:
        raise DealBookError(
            f"{started}; {given.path} is a different book (sha256 {given.sha256[:16]}): "
            "resume it with the same book, or choose another --out"
        )
