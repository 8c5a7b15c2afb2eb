"""JSON (and TOML) from outside, its shape bounded before a parser sees it.

Python's parsers recurse on nesting, so 60 KB of ``[[[...`` raises RecursionError deep
inside them. ``check_shape`` scans the text once, without recursing, and refuses nesting
deeper than a bound, more values than a bound and strings longer than a bound;
``bounded_json`` then parses it and refuses ``NaN``, the infinities and numbers too large
to be finite, which JSON does not have but Python's parser takes.
"""

import json
import math
from dataclasses import dataclass
from typing import Final

from .errors import InputError

DEFAULT_DEPTH: Final = 32
DEFAULT_VALUES: Final = 10_000
DEFAULT_STRING: Final = 64 * 1024


class JsonShapeError(InputError):
    """Text nested too deeply, with too many values or too long a string, not JSON, or
    with NaN or an infinity."""


@dataclass(frozen=True)
class Shape:
    """What ``check_shape`` allows: nesting depth, values (items and keys), string length."""

    depth: int = DEFAULT_DEPTH
    values: int = DEFAULT_VALUES
    string: int = DEFAULT_STRING


def check_shape(text: str, shape: Shape, what: str = "the JSON") -> None:
    """Refuse ``text`` if its brackets nest deeper, its values (one, and one more for each
    comma and colon) are more, or one of its double-quoted strings is longer, than
    ``shape`` allows (a scan that never
    recurses; TOML's brackets and quotes are counted the same way)."""
    depth = run = 0
    values = 1  # the first; each comma or colon adds one more
    in_string = escaped = False
    for char in text:
        if in_string:
            run += 1
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == '"':
                in_string = False
            if run > shape.string:
                raise JsonShapeError(f"{what} has a string longer than {shape.string} characters")
        elif char == '"':
            in_string, run = True, 0
        elif char in "[{":
            depth += 1
            if depth > shape.depth:
                raise JsonShapeError(f"{what} is nested deeper than {shape.depth} levels")
        elif char in "]}":
            depth -= 1
        elif char in ",:":
            values += 1
            if values > shape.values:
                raise JsonShapeError(f"{what} has more than {shape.values} values")


def _no_constant(name: str) -> object:
    raise JsonShapeError(f"{name} is not a number JSON allows (NaN and infinities are not)")


def _finite(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise JsonShapeError(f"{text} is too large to be a number (it would be infinite)")
    return value


def bounded_json(text: str | bytes, shape: Shape = Shape(), what: str = "the JSON") -> object:
    """``text`` parsed as JSON once ``check_shape`` passes; JsonShapeError for what is
    wrong (the shape, the syntax, NaN or an infinity)."""
    if isinstance(text, bytes):
        try:
            text = text.decode("utf-8")
        except UnicodeDecodeError as error:
            raise JsonShapeError(f"{what} is not UTF-8: {error}") from None
    check_shape(text, shape, what)
    try:
        return json.loads(text, parse_constant=_no_constant, parse_float=_finite)
    except ValueError as error:
        if isinstance(error, JsonShapeError):
            raise
        raise JsonShapeError(f"{what} is not JSON: {error}") from None
