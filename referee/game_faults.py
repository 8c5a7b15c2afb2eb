"""How an engine's misbehaviour ends a game: a fault of one player (it loses), or of both
(the game is void), and the one mapping from an engine error to its reason."""

from dataclasses import dataclass

from protocol.errors import (
    EngineDisconnectedError,
    EngineLimitError,
    EnginePipeClosedError,
    EngineStartError,
    EngineTerminatedError,
    EngineTimeoutError,
    ProtocolError,
)
from protocol.session import EngineIdleError, RulesNotTakenError

from .reasons import LIMIT_REASONS, Reason


@dataclass
class Fault(Exception):
    """An engine misbehaved: it loses the game for this reason."""

    player: int
    reason: Reason
    detail: str
    stopped_answering: bool = False


@dataclass
class Void(Exception):
    """Both engines failed at once: the game is void."""

    words: str
    """What happened, e.g. ``neither engine started``."""
    faults: tuple[Fault, Fault]


@dataclass(frozen=True)
class Allowance:
    """What a mover had for a genmove: seconds allowed (margin included), and in words."""

    seconds: float
    words: str


def fault_of(player: int, error: ProtocolError, *, allowance: Allowance | None = None) -> Fault:
    """The one mapping from an engine error to the reason its engine loses by.

    No reply in time is a stall, or, to a ``genmove`` (whose ``allowance`` is given), a
    time loss, its detail saying what the engine printed meanwhile (``Noise.words``); either
    way the engine stopped answering, as it did when it used no CPU for its idle limit, or
    when it reached a limit of its sandbox (and was stopped), or when the connection to a
    remote engine dropped for longer than it had (a disconnect). An engine
    that did not take rules it must be told refused them. A dead process or a closed pipe
    is a crash; anything else it said is an unreadable reply.
    """
    if isinstance(error, EngineLimitError):
        return Fault(player, LIMIT_REASONS[error.kind], error.words, stopped_answering=True)
    if isinstance(error, EngineTimeoutError):
        if allowance is not None:
            detail = (
                f"no move within the {allowance.seconds:.3f}s allowed ({allowance.words}, "
                f"and the margin), nor in the {error.timeout - allowance.seconds:g}s after; "
                f"{error.noise.words()}"
            )
            return Fault(player, Reason.TIME_FORFEIT, detail, stopped_answering=True)
        detail = f"no reply to '{error.command}' within {error.timeout:g}s; {error.noise.words()}"
        return Fault(player, Reason.STALL, detail, stopped_answering=True)
    if isinstance(error, EngineIdleError):
        had = f"; it had {allowance.words}" if allowance is not None else ""
        detail = f"{error.message} (the idle limit{had})"
        return Fault(player, Reason.STALL, detail, stopped_answering=True)
    if isinstance(error, EngineDisconnectedError):
        return Fault(player, Reason.DISCONNECT, str(error), stopped_answering=True)
    if isinstance(error, RulesNotTakenError):
        return Fault(player, Reason.RULES_REFUSED, str(error))
    if isinstance(error, EngineStartError):
        return Fault(player, Reason.CRASH, f"could not start: {error}")
    if isinstance(error, EngineTerminatedError | EnginePipeClosedError):
        return Fault(player, Reason.CRASH, str(error))
    return Fault(player, Reason.UNREADABLE_REPLY, str(error))


def faults_of(ending: Fault | Void | None) -> tuple[Fault, ...]:
    """The engine faults that ended a game: none, one, or both players'."""
    if ending is None:
        return ()
    return ending.faults if isinstance(ending, Void) else (ending,)
