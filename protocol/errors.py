"""Exceptions of the DCTP layer."""

from dataclasses import dataclass
from typing import Final

from banqi_common.errors import BanqiError
from banqi_common.short_text import shortened

from .resource_watch import LimitKind


class ProtocolError(BanqiError):
    """Base class of every DCTP error."""


class CommandSyntaxError(ProtocolError):
    """A command line that is not a valid DCTP command.

    ``id`` is the command id when the line had a usable one (the engine answers
    ``?<id> <message>``), or None when it had none (the engine ignores the line).
    """

    def __init__(self, message: str, id: int | None = None) -> None:
        super().__init__(message)
        self.id = id

    def __reduce__(self) -> tuple[type["CommandSyntaxError"], tuple[str, int | None]]:
        return type(self), (str(self), self.id)


class ReplySyntaxError(ProtocolError):
    """A reply payload that does not have the form its command requires."""


class EngineError(ProtocolError):
    """An engine process misbehaved or could not be talked to.

    ``engine`` is the name the client was given; ``str()`` names it. The
    constructor arguments are kept in ``args`` so the errors pickle.
    """

    def __init__(self, engine: str, message: str) -> None:
        super().__init__(engine, message)
        self.engine = engine
        self.message = message

    def __str__(self) -> str:
        return f"engine {self.engine!r}: {self.message}"

    def _keep(self, engine: str, **given: object) -> None:
        """Keep a subclass's constructor arguments: in ``args``, in order, so that the error
        pickles, and each as the attribute of its name (declared on the subclass)."""
        self.args = (engine, *given.values())
        for name, value in given.items():
            setattr(self, name, value)


class EngineStartError(EngineError):
    """The engine process could not be started (missing file, not executable, ...)."""


def _with_stderr(message: str, stderr_tail: str) -> str:
    last = stderr_tail.strip().splitlines()[-3:]
    return f"{message} (stderr ends: {' | '.join(last)})" if last else message


class EngineTerminatedError(EngineError):
    """The engine process exited; ``returncode`` is its exit status (negative: killed by signal)."""

    returncode: int | None
    stderr_tail: str

    def __init__(self, engine: str, returncode: int | None, stderr_tail: str = "") -> None:
        super().__init__(
            engine, _with_stderr(f"the process exited with return code {returncode}", stderr_tail)
        )
        self._keep(engine, returncode=returncode, stderr_tail=stderr_tail)


class EngineDisconnectedError(EngineError):
    """The connection to the machine the engine runs on dropped (a remote engine)."""


class EnginePipeClosedError(EngineError):
    """The engine's stdout reached end of file, or its stdin broke, while it may still run."""


FLUSH_HINT: Final = "an engine that does not flush its output after each line looks like this"
"""Said of every command left without a reply while the engine printed nothing: the usual
cause is output kept in the engine's buffer."""

NOISE_PREVIEW_CHARS: Final = 40
"""How much of the first line that was not a reply a message quotes."""


@dataclass(frozen=True)
class Noise:
    """The lines an engine printed on stdout that were not the reply awaited: how many, and
    the first (empty when none)."""

    count: int = 0
    first: str = ""

    def words(self) -> str:
        """What the engine printed meanwhile, for a message saying it did not reply; the
        flush hint when it printed nothing."""
        if not self.count:
            return FLUSH_HINT
        lines = "line that is not a reply" if self.count == 1 else "lines that are not replies"
        first = shortened(self.first, NOISE_PREVIEW_CHARS)
        return f"meanwhile {self.count} {lines}, the first {first!r}"


class EngineTimeoutError(EngineError):
    """No reply to ``command`` (a command line) within ``timeout`` seconds; ``noise`` is what
    the engine printed on stdout meanwhile that was not the reply."""

    command: str
    timeout: float
    noise: Noise

    def __init__(self, engine: str, command: str, timeout: float, noise: Noise = Noise()) -> None:
        super().__init__(engine, f"no reply to {command!r} within {timeout:g} s; {noise.words()}")
        self._keep(engine, command=command, timeout=timeout, noise=noise)


class MalformedReplyError(EngineError):
    """A reply line, or a reply's payload, that cannot be used."""


class LineTooLongError(MalformedReplyError):
    """The engine wrote more than ``limit`` bytes on stdout without a newline."""

    limit: int

    def __init__(self, engine: str, limit: int) -> None:
        super().__init__(engine, f"an output line exceeds {limit} bytes")
        self._keep(engine, limit=limit)


class WrongReplyIdError(EngineError):
    """A reply whose id is not the id of the command waiting for it.

    ``expected`` is None for a reply that came while no command was waiting.
    """

    expected: int | None
    received: int
    line: str

    def __init__(self, engine: str, expected: int | None, received: int, line: str) -> None:
        waiting = "no command was waiting" if expected is None else f"expected id {expected}"
        super().__init__(engine, f"unexpected reply {line!r} ({waiting})")
        self._keep(engine, expected=expected, received=received, line=line)


class EngineLimitError(EngineError):
    """The engine went over a limit of its sandbox and was stopped; ``kind`` says which
    (``memory``, ``processes``, ``room``, ``cpu``), ``words`` what happened."""

    kind: LimitKind
    words: str

    def __init__(self, engine: str, kind: LimitKind, words: str) -> None:
        super().__init__(engine, words)
        self._keep(engine, kind=kind, words=words)
