"""What a withheld record leaves out (its game's DCTP transcript, an illegal move's whole
``detail``), kept beside it in ``games/<game_id>.held``, sealed under a key derived from
its deal, until the deal is complete.

A transcript shows every flip's piece, so it must not be readable before the deal's last
game has ended; kept only in memory, it was lost whenever the referee stopped between the
games of a deal (Ctrl-C, a full disk, ``kill -9``). Sealed, it is written before the
withheld record and completed with it, also by a resumed run.

The seal: the deal key (:func:`deal_key`, from the deal's secret and layout: only who
knows the deal can derive it, so the file tells nothing the deal does not) and a random
nonce give, by HMAC-SHA256, a stream key (SHAKE-256 of it, XORed over the text) and a tag
key (HMAC-SHA256 of the sealed bytes): a damaged file, another game's, or one sealed for
another deal (another referee key) is refused, not read as garbage.
"""

import base64
import hashlib
import hmac
import secrets
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, ValidationError

from banqi_common.atomic import write_atomic
from banqi_common.errors import InputError
from banqi_common.write_errors import os_reason, writing
from banqi_engine.layout import format_layout

from .deals import Deal
from .storage import held_path

NONCE_BYTES = 16
"""Random bytes that make each file's stream its own."""


class HeldError(InputError):
    """A ``.held`` file that cannot be read or opened: damaged, another game's, or sealed
    for another deal."""


class HeldGame(BaseModel):
    """What a game's withheld record leaves out that its complete record needs again."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    detail: str
    transcript: str | None = None


class _HeldFile(BaseModel):
    """The file: the nonce, the sealed JSON of a HeldGame (base64) and its tag (hex)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    format: Literal["banqi-held/1"] = "banqi-held/1"
    game_id: str
    nonce: str
    sealed: str
    tag: str


def deal_key(deal: Deal) -> bytes:
    """The key the held files of ``deal``'s games are sealed under."""
    words = f"banqi-held/{deal.secret or ''}/{format_layout(deal.layout)}"
    return hashlib.sha256(words.encode()).digest()


def _keys(key: bytes, game_id: str, nonce: bytes) -> tuple[bytes, bytes]:
    """The stream key and the tag key of one sealed file."""
    base = hmac.new(key, b"held/" + game_id.encode() + b"/" + nonce, hashlib.sha256).digest()
    stream = hmac.new(base, b"stream", hashlib.sha256).digest()
    return stream, hmac.new(base, b"tag", hashlib.sha256).digest()


def _xor_stream(stream_key: bytes, data: bytes) -> bytes:
    """``data`` XORed with the SHAKE-256 stream of ``stream_key`` (sealing and opening)."""
    pad = hashlib.shake_256(stream_key).digest(len(data))
    return (int.from_bytes(data, "big") ^ int.from_bytes(pad, "big")).to_bytes(len(data), "big")


def seal(key: bytes, game_id: str, held: HeldGame) -> str:
    """The text of the sealed file of ``held``."""
    nonce = secrets.token_bytes(NONCE_BYTES)
    stream_key, tag_key = _keys(key, game_id, nonce)
    sealed = _xor_stream(stream_key, held.model_dump_json().encode())
    tag = hmac.new(tag_key, sealed, hashlib.sha256).hexdigest()
    data = {"nonce": nonce.hex(), "sealed": base64.b64encode(sealed).decode(), "tag": tag}
    return _HeldFile(game_id=game_id, **data).model_dump_json() + "\n"


def unseal(key: bytes, game_id: str, text: str) -> HeldGame:
    """What a sealed file holds; ValueError if it is not ``game_id``'s sealed under ``key``."""
    try:
        held = _HeldFile.model_validate_json(text)
        nonce, sealed = bytes.fromhex(held.nonce), base64.b64decode(held.sealed, validate=True)
    except (ValidationError, ValueError):
        raise ValueError("not a held file") from None
    stream_key, tag_key = _keys(key, game_id, nonce)
    expected = hmac.new(tag_key, sealed, hashlib.sha256).hexdigest()
    if held.game_id != game_id or not hmac.compare_digest(expected, held.tag):
        raise ValueError("damaged, another game's, or sealed for another deal")
    return HeldGame.model_validate_json(_xor_stream(stream_key, sealed))


def write_held(out: Path, key: bytes, game_id: str, held: HeldGame) -> None:
    """Seal and write what game ``game_id``'s withheld record leaves out (WriteError)."""
    write_atomic(held_path(out, game_id), seal(key, game_id, held))


def read_held(out: Path, key: bytes, game_id: str) -> HeldGame | None:
    """What game ``game_id``'s withheld record left out, None if nothing was; HeldError
    names a file that cannot be opened and what to do."""
    path = held_path(out, game_id)
    if not path.exists():
        return None
    try:
        data = path.read_bytes()
    except OSError as error:
        raise HeldError(f"cannot read {path}: {os_reason(error)}") from None
    try:
        return unseal(key, game_id, data.decode("utf-8"))
    except ValueError as error:  # UnicodeDecodeError too
        raise HeldError(
            f"cannot open {path} ({error}): resume with the referee key the run was started "
            "with, or move the file away to complete its record without what it holds"
        ) from None


def remove_held(out: Path, game_id: str) -> None:
    """Remove game ``game_id``'s held file, if any, once its record is complete."""
    path = held_path(out, game_id)
    if path.exists():
        with writing(f"remove {path.name} from {path.parent}"):
            path.unlink(missing_ok=True)
