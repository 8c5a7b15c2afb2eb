"""The MACs on what the referee writes in a run folder: every game record and every state
file carries one, so that a run resumes from its own files only.

A MAC is HMAC-SHA256 (hex) over the file's content as canonical JSON: the model's JSON
form without its ``mac``, keys sorted, no spaces. Its key is derived from the referee key,
never the key itself: the MAC key is HMAC(referee key, ``banqi record mac``); a game's
record is MAC'd with HMAC(MAC key, ``game/<seed>/<game id>``), so a record copied under
another game's name, or from a run with another seed, fails; a state file with
HMAC(MAC key, ``file/<name>``). A cluster worker is given its game's key only.
"""

import hashlib
import hmac
import json
from typing import Final, TypeVar

from pydantic import BaseModel

MAC_LABEL: Final = b"banqi record mac"
MAC_PATTERN: Final = r"^[0-9a-f]{64}$"

_Model = TypeVar("_Model", bound=BaseModel)


def _hmac(key: bytes, message: bytes) -> bytes:
    return hmac.new(key, message, hashlib.sha256).digest()


class MacKeys:
    """The keys of the MACs on a referee's files, derived from the referee key."""

    def __init__(self, referee_key: bytes) -> None:
        self._key = _hmac(referee_key, MAC_LABEL)

    def game(self, seed: int, game_id: str) -> bytes:
        """The key of the record of game ``game_id`` of the run with ``seed``."""
        return _hmac(self._key, f"game/{seed}/{game_id}".encode())

    def file(self, name: str) -> bytes:
        """The key of the run folder's state file ``name``."""
        return _hmac(self._key, f"file/{name}".encode())


def canonical(model: BaseModel) -> bytes:
    """What a MAC is over: ``model``'s JSON form without its ``mac``, keys sorted, compact."""
    data = model.model_dump(mode="json", exclude={"mac"})
    text = json.dumps(data, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return text.encode("utf-8")


def mac_of(model: BaseModel, key: bytes) -> str:
    """The hex HMAC-SHA256 of ``model``'s canonical content under ``key``."""
    return hmac.new(key, canonical(model), hashlib.sha256).hexdigest()


def signed(model: _Model, key: bytes) -> _Model:
    """``model`` (which has a ``mac`` field) with its MAC under ``key``."""
    return model.model_copy(update={"mac": mac_of(model, key)})


def mac_matches(model: BaseModel, mac: str | None, key: bytes) -> bool:
    """Whether ``mac`` (the model's own) is there and is its MAC under ``key``."""
    return mac is not None and hmac.compare_digest(mac, mac_of(model, key))
