"""How big a run may be, checked from its config before any of its schedule is built.

A run holds at most :data:`MAX_RUN_GAMES` games: its schedule, records and standings are
held whole while it plays. Before the schedule is built, a run is also refused when the
schedule alone (about :data:`SCHEDULED_GAME_BYTES` a game) would not fit in the memory
the machine has available.
"""

from pathlib import Path
from typing import Final

from banqi_common.errors import InputError

MAX_RUN_GAMES: Final = 1_000_000
"""The most games one run (a tournament, a match, an SPRT) plays."""

SCHEDULED_GAME_BYTES: Final = 2_000
"""Memory one scheduled game takes while a run holds its schedule (measured about
1,500 bytes; rounded up)."""

MEMINFO: Final = Path("/proc/meminfo")


class RunSizeError(InputError):
    """A run too big to be held."""


def games_over_limit(games: int, what: str) -> str | None:
    """Why a run of ``games`` games (``what``: how its config makes them) is refused, or None
    when it is within :data:`MAX_RUN_GAMES`."""
    if games <= MAX_RUN_GAMES:
        return None
    return (
        f"{what} is {games:,} games; a run holds at most {MAX_RUN_GAMES:,} "
        "(fewer rounds, engines or games)"
    )


def available_memory() -> int | None:
    """The memory available to a new program, in bytes (``MemAvailable``), or None where the
    system does not say."""
    try:
        lines = MEMINFO.read_text(encoding="ascii").splitlines()
    except OSError:
        return None
    for line in lines:
        name, _, value = line.partition(":")
        if name == "MemAvailable":
            return int(value.split()[0]) * 1024
    return None


def _amount(size: int) -> str:
    """Bytes in GB (one decimal), or in MB below a GB."""
    return f"{size / 1e9:.1f} GB" if size >= 1e9 else f"{size / 1e6:.0f} MB"


def check_memory(games: int, available: int | None = None) -> None:
    """Refuse a schedule of ``games`` games that would not fit in ``available`` bytes (by
    default what the machine has available now; no check where it does not say)."""
    room = available_memory() if available is None else available
    needed = games * SCHEDULED_GAME_BYTES
    if room is not None and needed > room:
        raise RunSizeError(
            f"a schedule of {games:,} games needs about {_amount(needed)}; this machine has "
            f"{_amount(room)} available: play fewer rounds or engines"
        )
