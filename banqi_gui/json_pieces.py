"""Compact JSON, and JSON put together from pieces already encoded.

A view whose parts change at different times (a live board every ply, the standings only
when a game ends) is assembled from each part's bytes, each part encoded once per change;
the bytes are those ``json_bytes`` would give for the whole.
"""

import json
import math
from collections.abc import Iterable, Mapping
from typing import Any


def json_bytes(data: Any) -> bytes:
    """Compact JSON (an infinite Elo as the string ``+inf`` or ``-inf``)."""
    try:
        return json.dumps(data, separators=(",", ":"), allow_nan=False).encode()
    except ValueError:  # an infinity (or a NaN) somewhere: walk the data for it
        return json.dumps(_finite(data), separators=(",", ":")).encode()


def json_object(fields: Iterable[tuple[str, bytes]]) -> bytes:
    """A JSON object of these keys, in order, and their values' JSON."""
    return b"{" + b",".join(json.dumps(key).encode() + b":" + value for key, value in fields) + b"}"


def json_array(items: Iterable[bytes]) -> bytes:
    """A JSON array of these items' JSON."""
    return b"[" + b",".join(items) + b"]"


def json_fields(data: Mapping[str, Any]) -> list[tuple[str, bytes]]:
    """Each key of ``data`` with its value's JSON, to be extended and put in ``json_object``."""
    return [(key, json_bytes(value)) for key, value in data.items()]


def _finite(data: Any) -> Any:
    if isinstance(data, float) and math.isinf(data):
        return "+inf" if data > 0 else "-inf"
    if isinstance(data, dict):
        return {key: _finite(value) for key, value in data.items()}
    if isinstance(data, list | tuple):
        return [_finite(value) for value in data]
    return data
