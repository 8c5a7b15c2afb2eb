"""The hub's bound on the frames a client sends: 500 a second for each game it plays, and
2,000 a second in however few games."""

import asyncio
from typing import Any, cast

import pytest

pytest.importorskip("uvicorn")

from banqi_arena import wire
from banqi_arena.hub import (
    MAX_FRAMES_PER_SECOND,
    MIN_FRAMES_PER_SECOND,
    RATE_WINDOW,
    ClientLink,
    Refusal,
    _receive_loop,
)


class Pongs:
    """A client that sends ``frames`` pongs at once, then nothing."""

    def __init__(self, frames: int) -> None:
        self.left = frames

    async def receive_text(self) -> str:
        if not self.left:
            raise ConnectionError("closed")
        self.left -= 1
        return wire.encoded(wire.Pong(seq=0))

    async def send_text(self, text: str) -> None:
        pass

    async def close(self, code: int) -> None:
        pass


def frames_taken(frames: int, games: int) -> str:
    """How the hub's receive loop ends for ``frames`` sent at once by a client in ``games``
    games: ``refused`` (a flood) or ``read`` (all read, the client then gone)."""

    async def run() -> str:
        link = ClientLink("a")
        link.games = cast(dict[str, Any], {f"g{n}": object() for n in range(games)})
        try:
            await _receive_loop(Pongs(frames), link)
        except Refusal as refusal:
            assert "frames a second (500 for each game played" in refusal.reason
            return "refused"
        except ConnectionError:
            return "read"
        return "ended"

    return asyncio.run(run())


def test_a_client_may_send_500_frames_a_second_for_each_game_it_plays() -> None:
    burst = int(MAX_FRAMES_PER_SECOND * RATE_WINDOW)
    assert frames_taken(32 * burst, games=32) == "read"  # a relay in 32 games at once
    assert frames_taken(32 * burst + 1, games=32) == "refused"
    assert frames_taken(5 * burst + 1, games=5) == "refused"


def test_a_client_in_few_games_may_send_2000_frames_a_second() -> None:
    """One game of an engine that answers at once sends 500 to 700 frames a second."""
    floor = int(MIN_FRAMES_PER_SECOND * RATE_WINDOW)
    for games in (0, 1, 4):
        assert frames_taken(floor, games=games) == "read"
        assert frames_taken(floor + 1, games=games) == "refused"
