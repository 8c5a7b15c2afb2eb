"""Entrants' tokens: made once, shown once, kept only as hashes.

A token is 32 random bytes in URL-safe base64 (43 characters), so a plain SHA-256 of it
is as hard to reverse as the token is to guess; the store keeps that hash per entrant in
``arena-entrants.json`` (written atomically, readable by its owner only). A token is
checked against every entrant's hash in constant time, so the answer's timing tells
nothing about which entrant came close.
"""

import hashlib
import hmac
import re
import secrets
from pathlib import Path
from typing import Final, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from banqi_common.atomic import write_atomic
from banqi_common.errors import InputError
from tournaments.run_kinds import ENTRANTS_FILE

TOKEN_BYTES: Final = 32
NAME_PATTERN: Final = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$")


class TokenStoreError(InputError):
    """A token store that cannot be read, or an entrant name that is not allowed."""


class TokenStore(BaseModel):
    """The hashes of the entrants' tokens, by entrant name."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    format: Literal["banqi-arena-entrants/1"] = "banqi-arena-entrants/1"
    entrants: dict[str, str] = Field(default_factory=dict)
    """Entrant name to the hex SHA-256 of its token."""


def token_hash(token: str) -> str:
    """The hash a store keeps for ``token``."""
    return hashlib.sha256(token.encode()).hexdigest()


def read_store(folder: Path) -> TokenStore:
    """The store in ``folder`` (empty if there is none); TokenStoreError if it is damaged."""
    path = folder / ENTRANTS_FILE
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return TokenStore()
    except OSError as error:
        raise TokenStoreError(f"cannot read {path}: {error.strerror}") from None
    try:
        return TokenStore.model_validate_json(text)
    except ValidationError as error:
        raise TokenStoreError(f"{path} is not a token store: {error.errors()[0]['msg']}") from None


def add_entrant(folder: Path, name: str) -> tuple[str, bool]:
    """A new token for entrant ``name``, its hash saved in ``folder``'s store (replacing
    the entrant's old token, which stops working); whether it replaced one."""
    if not NAME_PATTERN.match(name):
        raise TokenStoreError(
            f"entrant name {name!r}: 1-64 letters, digits, '.', '_' or '-', starting with a "
            "letter or digit"
        )
    store = read_store(folder)
    token = secrets.token_urlsafe(TOKEN_BYTES)
    replaced = name in store.entrants
    entrants = {**store.entrants, name: token_hash(token)}
    updated = store.model_copy(update={"entrants": entrants})
    write_atomic(folder / ENTRANTS_FILE, updated.model_dump_json(indent=1) + "\n")
    return token, replaced


def entrant_of(store: TokenStore, token: str) -> str | None:
    """The entrant whose token this is, or None; every hash is compared, in constant time."""
    given = token_hash(token).encode()
    found = None
    for name, kept in sorted(store.entrants.items()):
        if hmac.compare_digest(given, kept.encode()):
            found = name
    return found
