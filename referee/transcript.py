"""The DCTP transcript of one game (``--log-traffic``), bounded whatever the engines write.

Every command the referee sends is kept. Of what each engine writes, the transcript keeps
its first ``ENGINE_OUTPUT_CHARS`` characters of stdout lines and the last
``STDERR_TAIL_CHARS`` characters of stderr lines, and says how much it left out, so an
engine that floods its pipes cannot grow the referee's memory or the log file.
"""

import itertools
import time
from collections import deque
from dataclasses import dataclass, field
from typing import Final

from protocol.line_protocol import TrafficLog

ENGINE_OUTPUT_CHARS: Final = 1024 * 1024
"""Characters of one engine's stdout lines kept per game; later lines are left out."""
STDERR_TAIL_CHARS: Final = 64 * 1024
"""Characters of one engine's stderr lines kept per game: the last ones."""


@dataclass
class _EngineLines:
    """What one engine wrote, within its bounds."""

    name: str
    output_chars: int = 0
    output_cut: bool = False
    stderr: deque[tuple[int, str]] = field(default_factory=deque)
    stderr_chars: int = 0
    stderr_dropped: int = 0


class Transcript:
    """The lines of one game's DCTP traffic, each with its time and engine."""

    def __init__(self) -> None:
        self._start = time.monotonic()
        self._order = itertools.count()
        self._lines: list[tuple[int, str]] = []
        self._engines: list[_EngineLines] = []

    def logger(self, name: str) -> TrafficLog:
        """The traffic log of the engine called ``name`` (see ``protocol.line_protocol``)."""
        engine = _EngineLines(name)
        self._engines.append(engine)

        def log(line: str) -> None:
            stamped = (next(self._order), f"{time.monotonic() - self._start:9.3f} [{name}] {line}")
            if line.startswith("! "):
                self._keep_stderr(engine, stamped)
            elif line.startswith("< "):
                self._keep_output(engine, stamped)
            else:
                self._lines.append(stamped)

        return log

    def _keep_output(self, engine: _EngineLines, stamped: tuple[int, str]) -> None:
        if engine.output_cut:
            return
        engine.output_chars += len(stamped[1])
        if engine.output_chars <= ENGINE_OUTPUT_CHARS:
            self._lines.append(stamped)
            return
        engine.output_cut = True
        note = (
            f"{stamped[1][:9]} [{engine.name}] < [stdout beyond {ENGINE_OUTPUT_CHARS} "
            "characters not kept]"
        )
        self._lines.append((stamped[0], note))

    @staticmethod
    def _keep_stderr(engine: _EngineLines, stamped: tuple[int, str]) -> None:
        engine.stderr.append(stamped)
        engine.stderr_chars += len(stamped[1])
        while engine.stderr_chars > STDERR_TAIL_CHARS and len(engine.stderr) > 1:
            _, dropped = engine.stderr.popleft()
            engine.stderr_chars -= len(dropped)
            engine.stderr_dropped += len(dropped)

    def text(self) -> str:
        """The whole transcript, one line per message in the order they happened."""
        lines = list(self._lines)
        for engine in self._engines:
            if engine.stderr_dropped:
                order, first = engine.stderr[0]
                note = (
                    f"{first[:9]} [{engine.name}] ! [{engine.stderr_dropped} characters of "
                    "earlier stderr not kept]"
                )
                lines.append((order, note))
            lines.extend(engine.stderr)
        lines.sort(key=lambda line: line[0])  # stable: a note stays before the line it heads
        return "".join(f"{text}\n" for _, text in lines)
