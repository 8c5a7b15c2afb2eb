"""What differs between a run's saved config and the one it is resumed with, in words."""

from collections.abc import Set
from typing import Any

from pydantic import BaseModel


def _flatten(value: Any, prefix: str = "") -> dict[str, Any]:
    if isinstance(value, dict):
        flat: dict[str, Any] = {}
        for key, item in value.items():
            flat.update(_flatten(item, f"{prefix}.{key}" if prefix else str(key)))
        return flat
    if isinstance(value, list):
        flat = {}
        for index, item in enumerate(value):
            flat.update(_flatten(item, f"{prefix}[{index}]"))
        return flat or {prefix: []}
    return {prefix: value}


def model_differences(saved: BaseModel, new: BaseModel, ignored: Set[str]) -> list[str]:
    """Every field (dotted path) whose value differs, as ``path: was X, now Y``, leaving
    out the top-level fields in ``ignored``."""
    old_flat = _flatten(saved.model_dump(mode="json", exclude=set(ignored)))
    new_flat = _flatten(new.model_dump(mode="json", exclude=set(ignored)))
    return [
        f"{key}: was {old_flat.get(key, '(absent)')!r}, now {new_flat.get(key, '(absent)')!r}"
        for key in sorted(set(old_flat) | set(new_flat))
        if old_flat.get(key) != new_flat.get(key)
    ]
