"""The play sessions a server holds, at most ``LIMIT``: the oldest is closed for a new one."""

import asyncio
from typing import Final

from banqi_engine.errors import RulesInputError

from .play_session import PlaySession, SessionError
from .play_settings import PlayOptions, PlaySettings

LIMIT: Final = 16


class Sessions:
    """Play sessions by id."""

    def __init__(self, options: PlayOptions) -> None:
        self.options = options
        self._sessions: dict[str, PlaySession] = {}

    async def create(self, settings: PlaySettings) -> PlaySession:
        """A new game with these settings, its engine starting; SessionError if they
        cannot be played (also by the engine chosen: rules it must take but does not)."""
        engine = None
        if settings.mode == "engine":
            engine = self.options.choice(settings.engine)
            if engine is None:
                offered = ", ".join(choice.id for choice in self.options.engines)
                raise SessionError(400, f"no engine {settings.engine!r}; offered: {offered}")
        try:
            session = PlaySession(settings, self.options, engine)
        except RulesInputError as error:
            raise SessionError(400, str(error)) from None
        await session.seat_engine()  # refused if the engine does not take rules it must
        while len(self._sessions) >= LIMIT:
            oldest = next(iter(self._sessions))
            await self._sessions.pop(oldest).close()
        self._sessions[session.id] = session
        session.start()
        return session

    def get(self, session_id: str) -> PlaySession:
        """The session of that id; SessionError 404 if there is none."""
        session = self._sessions.get(session_id)
        if session is None:
            raise SessionError(404, "no such game here (it ended with a server restart?)")
        return session

    async def close(self, session_id: str) -> None:
        """End a session and stop its engines."""
        session = self._sessions.pop(session_id, None)
        if session is None:
            raise SessionError(404, "no such game here")
        await session.close()

    async def close_all(self) -> None:
        """Stop every session's engines (the server is stopping)."""
        sessions = list(self._sessions.values())
        self._sessions.clear()
        await asyncio.gather(*(s.close() for s in sessions), return_exceptions=True)
