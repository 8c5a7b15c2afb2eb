"""What a driver needs of an engine it talks to: ``EngineConnection``, a process or not."""

from typing import Protocol

from .messages import Command, Reply


class EngineConnection(Protocol):
    """An engine that answers DCTP commands: an :class:`~protocol.client.EngineClient`
    process, or an :class:`~protocol.in_process.InProcessEngine` in tests."""

    @property
    def name(self) -> str:
        """The engine's name, as used in errors."""
        ...

    @property
    def pid(self) -> int | None:
        """The id of the engine's process (and process group); None when it has none."""
        ...

    @property
    def isolation(self) -> str:
        """How the engine is kept apart from its driver, e.g. ``bwrap`` or ``none``."""
        ...

    async def request(self, command: Command, timeout: float | None) -> Reply:
        """Send ``command`` and return its reply; ``protocol.errors`` says how it failed."""
        ...

    async def quit(self) -> int | None:
        """End the engine and release everything it holds; its exit status if it has one."""
        ...

    async def kill(self) -> None:
        """End the engine at once, without asking it, and release everything it holds."""
        ...
