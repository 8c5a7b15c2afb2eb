"""The play sessions a server holds, and when each is closed (its engine stopped).

A session lives while a page asks about it: the page long-polls its game's state as long
as it shows it, so a session no page has asked about for ``SessionLimits.idle`` seconds,
and that no request is waiting on, was left (its tab closed, its machine asleep) and is
closed by the reaper. A page that is being left says so (``leave``): its session is then
closed after ``SessionLimits.grace`` seconds, unless a page asks about it again (a reload
does, at once).

At most ``SessionLimits.games`` sessions at once: a new game first takes the place of a
finished one (the least recently asked about; its record is saved already), and is
refused (429, saying what to do) when every game held is still being played, rather than
end another tab's game.
"""

import asyncio
import contextlib
import logging
import time
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass

from banqi_engine.errors import RulesInputError

from .play_session import PlaySession, SessionError
from .play_settings import PlayOptions, PlaySettings

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class SessionLimits:
    """How many games a server holds, and when it closes one no page asks about."""

    games: int = 16
    """The most sessions at once."""
    idle: float = 90.0
    """Seconds a session may go without a page asking about it before it is closed."""
    grace: float = 10.0
    """Seconds a session is kept after its page said it was leaving (a reload returns)."""
    sweep: float = 5.0
    """Seconds between two looks for sessions to close."""


class Sessions:
    """Play sessions by id, each with the time by which a page must ask about it again."""

    def __init__(self, options: PlayOptions, limits: SessionLimits = SessionLimits()) -> None:
        self.options = options
        self.limits = limits
        self._sessions: dict[str, PlaySession] = {}
        self._deadlines: dict[str, float] = {}
        self._waiting: Counter[str] = Counter()
        self._leaving: set[str] = set()
        self._starting = 0

    async def create(self, settings: PlaySettings) -> PlaySession:
        """A new game with these settings, its engine starting; SessionError if they
        cannot be played (also by the engine chosen: rules it must take but does not), or
        429 if the server holds as many games as it may and none of them is finished."""
        engine = None
        if settings.mode == "engine":
            engine = self.options.choice(settings.engine)
            if engine is None:
                offered = ", ".join(choice.id for choice in self.options.engines)
                raise SessionError(400, f"no engine {settings.engine!r}; offered: {offered}")
        await self.reap()
        await _close_each(self._make_room())
        self._starting += 1  # the room is held from now on, also while the engine starts
        try:
            session = PlaySession(settings, self.options, engine)
            await session.seat_engine()  # refused if the engine does not take rules it must
        except RulesInputError as error:
            raise SessionError(400, str(error)) from None
        finally:
            self._starting -= 1
        self._sessions[session.id] = session
        self._touch(session.id)
        session.start()
        return session

    def get(self, session_id: str) -> PlaySession:
        """The session of that id, kept for another ``idle`` seconds; SessionError 404 if
        there is none."""
        session = self._sessions.get(session_id)
        if session is None:
            raise SessionError(404, "no such game here (it ended with a server restart?)")
        self._touch(session_id)
        self._leaving.discard(session_id)
        return session

    @contextlib.contextmanager
    def waiting(self, session_id: str) -> Iterator[None]:
        """A request waits on the session (a long poll): it is not closed meanwhile, and is
        kept for another ``idle`` seconds after, unless its page left meanwhile."""
        self._waiting[session_id] += 1
        try:
            yield
        finally:
            self._waiting[session_id] -= 1
            if not self._waiting[session_id]:
                del self._waiting[session_id]
            if session_id in self._sessions and session_id not in self._leaving:
                self._touch(session_id)

    def leave(self, session_id: str) -> None:
        """The session's page is being left: close it in ``grace`` seconds unless a page
        asks about it again (the requests waiting on it return now, so that a page still
        showing it asks again); SessionError 404 if there is none."""
        session = self._sessions.get(session_id)
        if session is None:
            raise SessionError(404, "no such game here")
        soon = time.monotonic() + self.limits.grace
        self._deadlines[session_id] = min(self._deadlines[session_id], soon)
        self._leaving.add(session_id)
        session.wake()

    async def close(self, session_id: str) -> None:
        """End a session and stop its engines."""
        if session_id not in self._sessions:
            raise SessionError(404, "no such game here")
        await self._pop(session_id).close()

    async def reap(self) -> None:
        """Close every session no page has asked about in time (and none waits on)."""
        now = time.monotonic()
        due = [i for i, when in self._deadlines.items() if when <= now and i not in self._waiting]
        await _close_each([self._pop(session_id) for session_id in due])

    async def reap_forever(self) -> None:
        """Reap every ``sweep`` seconds, until cancelled."""
        while True:
            await asyncio.sleep(self.limits.sweep)
            await self.reap()

    def wake_all(self) -> None:
        """Every request waiting on a session returns now (the server is stopping)."""
        for session in self._sessions.values():
            session.wake()

    async def close_all(self) -> None:
        """Stop every session's engines (the server is stopping)."""
        await _close_each([self._pop(session_id) for session_id in list(self._sessions)])

    def _touch(self, session_id: str) -> None:
        self._deadlines[session_id] = time.monotonic() + self.limits.idle

    def _pop(self, session_id: str) -> PlaySession:
        del self._deadlines[session_id]
        self._leaving.discard(session_id)
        return self._sessions.pop(session_id)

    def _make_room(self) -> list[PlaySession]:
        """Room for one more game: the finished sessions taken out for it (the least
        recently asked about first), to be closed; SessionError 429 if there are not
        enough finished ones."""
        limit = self.limits.games
        needed = len(self._sessions) + self._starting + 1 - limit
        if needed <= 0:
            return []
        finished = sorted(
            (s.id for s in self._sessions.values() if s.record is not None),
            key=self._deadlines.__getitem__,
        )
        if len(finished) < needed:
            raise SessionError(
                429,
                f"this server plays at most {limit} games at once and all of them are in "
                "play: end one (New game or Resign in its tab, or close its tab: its game "
                f"ends within {self.limits.grace:g} s), then start a new one",
            )
        return [self._pop(session_id) for session_id in finished[:needed]]


async def _close_each(sessions: list[PlaySession]) -> None:
    """Close sessions together; a failure to close one is logged, never raised."""
    results = await asyncio.gather(*(s.close() for s in sessions), return_exceptions=True)
    for result in results:
        if isinstance(result, Exception):
            log.warning("closing a game failed: %s", result)
