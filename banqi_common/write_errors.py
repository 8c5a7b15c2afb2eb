"""Files that cannot be written (a read-only folder, a full disk): one error, one wording."""

import contextlib
from collections.abc import Iterator

from .errors import InputError


class WriteError(InputError):
    """A file or folder the referee could not write: ``cannot <action>: <reason>``, the
    action naming what and where, the reason the system's, in lower case."""


def os_reason(error: OSError) -> str:
    """The system's words for ``error`` in lower case, e.g. ``no space left on device``."""
    words = error.strerror or str(error)
    return words[:1].lower() + words[1:]


@contextlib.contextmanager
def writing(action: str) -> Iterator[None]:
    """Run the block; an OSError in it becomes WriteError ``cannot <action>: <reason>``
    (e.g. ``write record g0001 to runs/m/games``)."""
    try:
        yield
    except OSError as error:
        raise WriteError(f"cannot {action}: {os_reason(error)}") from None
