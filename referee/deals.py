"""Hidden layouts derived from a private secret, so engines cannot recompute them.

A run's seed is public (it is on the referee's command line, readable in /proc),
and the shuffle is open source, so the seed alone must not decide a layout. Each
deal's layout comes from a *deal secret* = HMAC-SHA256(referee key, seed/deal),
where the referee key is 32 random bytes kept in a file of the user's (mode 0600,
``$BANQI_REFEREE_KEY`` or ``~/.config/banqi/referee.key``; created on first use)
that no engine is told about. Same key + same seed gives the same layouts. A
game's record holds its deal secret once every game of its deal has ended (until then
it is withheld, see ``referee.deal_records``), so anyone can check that the layout
was the fair shuffle of that secret; the key itself, and so the other deals, stays
private.

A run may instead be dealt from a deal book (``referee.deal_book``), whose entries
``banqi deals`` derives as HMAC-SHA256(referee key, book/seed/i). Either way a game is
played on a ``Deal``: its layout, and its secret and book entry when it has them.
"""

import hashlib
import hmac
import os
import random
import secrets
from dataclasses import dataclass
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field

from banqi_common.errors import InputError
from banqi_common.write_errors import os_reason, writing
from banqi_engine.layout import random_layout
from banqi_engine.pieces import Piece

KEY_ENV = "BANQI_REFEREE_KEY"
KEY_BYTES = 32


class KeyFileError(InputError):
    """The referee key file cannot be read or created."""


def default_key_path() -> Path:
    """``$BANQI_REFEREE_KEY``, else ``$XDG_CONFIG_HOME/banqi/referee.key``."""
    return key_locations(None)[-1]


def _config_key_path() -> Path:
    """The default key file, ``$XDG_CONFIG_HOME/banqi/referee.key``."""
    config = os.environ.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")
    return Path(config) / "banqi" / "referee.key"


def key_locations(given: Path | None) -> list[Path]:
    """Every place a referee key of this user may be: ``given``, ``$BANQI_REFEREE_KEY`` and
    the default file (all hidden from engines, whichever one a run uses)."""
    places = [_config_key_path()]
    if os.environ.get(KEY_ENV):
        places.append(Path(os.environ[KEY_ENV]))
    if given is not None:
        places.append(given)
    return places


def load_referee_key(given: Path | None) -> bytes:
    """The referee key in ``given`` (``--key-file``), else in ``$BANQI_REFEREE_KEY``, else in
    the default file; created if missing, but only the default file's folder is made: a
    key file the user named must be in a folder that exists."""
    path = given or default_key_path()
    return load_or_create_key(path, make_folder=path == _config_key_path())


def load_or_create_key(path: Path, *, make_folder: bool = False) -> bytes:
    """Read the referee key, creating it (0600, atomically) if it does not exist, and its
    folder too if ``make_folder``."""
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        if not make_folder and not path.parent.is_dir():
            raise KeyFileError(
                f"cannot create referee key file {path}: its folder {path.parent} does not "
                "exist; create the folder first or name a key file in one that does"
            ) from None
        with writing(f"create referee key file {path}"):
            path.parent.mkdir(parents=True, exist_ok=True)
            temp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
            fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
            with os.fdopen(fd, "wb") as handle:
                handle.write(secrets.token_bytes(KEY_BYTES))
            try:
                os.link(temp, path)  # never replaces a key another process just made
            except FileExistsError:
                pass
            finally:
                temp.unlink()
            data = path.read_bytes()
    except OSError as error:
        raise KeyFileError(f"cannot read referee key file {path}: {os_reason(error)}") from None
    return _long_enough(path, data)


def found_referee_key(given: Path | None) -> tuple[Path, bytes] | None:
    """The referee key in ``given``, else in ``$BANQI_REFEREE_KEY`` or the default file, and
    where it is; None if there is none there (it is never made). KeyFileError if ``given``
    does not exist or a key cannot be read."""
    path = given or default_key_path()
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        if given is None:
            return None
        raise KeyFileError(f"referee key file {path} does not exist") from None
    except OSError as error:
        raise KeyFileError(f"cannot read referee key file {path}: {os_reason(error)}") from None
    return path, _long_enough(path, data)


def _long_enough(path: Path, data: bytes) -> bytes:
    """The key read from ``path``; KeyFileError if it is too short to be one."""
    if len(data) < 16:
        raise KeyFileError(f"referee key file {path} is too short ({len(data)} bytes, need 16+)")
    return data


def new_seed() -> int:
    """A fresh random run seed, for runs started without ``--seed``."""
    return secrets.randbits(48)


def deal_secret(key: bytes, seed: int, deal: str) -> str:
    """The hex secret of one deal (e.g. ``deal="3"``) of a run with this seed."""
    return hmac.new(key, f"{seed}/{deal}".encode(), hashlib.sha256).hexdigest()


def book_secret(key: bytes, seed: int, index: int) -> str:
    """The hex secret of entry ``index`` of the deal book made with this seed (``banqi
    deals``); ``book/`` keeps it apart from every run's deal secrets."""
    return hmac.new(key, f"book/{seed}/{index}".encode(), hashlib.sha256).hexdigest()


def layout_from_secret(secret: str) -> list[int]:
    """The layout a deal secret stands for: a seeded shuffle of a full set."""
    return random_layout(random.Random(int(secret, 16)))


class DealBookRef(BaseModel):
    """Where a deal from a deal book (``referee.deal_book``) came from: the SHA-256 of the
    book file and the index of its entry (0 for the first)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    sha256: str = Field(pattern=r"^[0-9a-f]{64}$", description="SHA-256 of the book file.")
    entry: int = Field(ge=0, description="Index of the book's entry, 0 for the first.")


@dataclass(frozen=True)
class Deal:
    """One deal's hidden layout and where it came from: the shuffle of its secret, or a deal
    book's entry (with the entry's secret, when it has one, and its opening: plies in record
    notation played from the layout before either player is asked for a move)."""

    layout: list[Piece]
    secret: str | None = None
    book: DealBookRef | None = None
    opening: tuple[str, ...] = ()


def dealt(deal: Deal | str) -> Deal:
    """``deal`` itself, or, given a deal secret, the deal it shuffles to."""
    if isinstance(deal, Deal):
        return deal
    return Deal(layout_from_secret(deal), secret=deal)
