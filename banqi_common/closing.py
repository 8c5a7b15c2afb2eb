"""``Closing``: an object that is its own context manager, closed on leaving the ``with``
block."""

from abc import ABC, abstractmethod
from types import TracebackType
from typing import Self


class Closing(ABC):
    """Something used in a ``with`` block (``with thing as same:``), closed as it leaves."""

    @abstractmethod
    def close(self) -> None:
        """Let go of what it holds."""

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.close()
