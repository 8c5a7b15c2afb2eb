"""The errors of the Python API, each under ``banqi_common.errors.BanqiError``.

An engine that fails to answer raises the DCTP layer's own errors
(``protocol.errors.EngineError`` and its kinds: ``EngineTerminatedError``,
``EngineTimeoutError``, ``EngineStartError``, ...); these are what the API adds.
"""

from banqi_common.errors import BanqiError, InputError
from protocol.errors import EngineError


class ArgumentError(InputError, ValueError):
    """An argument the API cannot use: an unknown rule set, a negative time, a game
    under other rules than the engine's, ..."""


class EngineClosedError(BanqiError):
    """The engine was used after ``close()`` (or after its background loop ended)."""


class UnreadableMoveError(EngineError):
    """The engine's answer to ``genmove`` names no move: a ``?`` reply or a payload that
    does not parse. ``payload`` is what it said, ``reason`` why it cannot be read."""

    def __init__(self, engine: str, payload: str, reason: str) -> None:
        super().__init__(engine, f"unreadable move {payload.strip()!r}: {reason}")
        self.args = (engine, payload, reason)
        self.payload = payload
        self.reason = reason


class PositionRefusedError(EngineError):
    """The engine refused what it was told of the position (``?`` to an echo or to
    ``init_board``), so it cannot be asked for a move in it."""

    def __init__(self, engine: str, command: str, payload: str) -> None:
        super().__init__(engine, f"refused {command!r}: {payload}")
        self.args = (engine, command, payload)
        self.command = command
        self.payload = payload


class PositionNotSupportedError(EngineError):
    """A position other than the opening was asked of an engine whose ``list_commands``
    does not list ``init_board``; give it a ``Game`` (told by its plies) instead."""
