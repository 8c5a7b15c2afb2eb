"""The default limit on an engine's output line (64 KiB): 60 KiB passes, 70 KiB does not."""

import asyncio
from pathlib import Path

import pytest
from referee_fakes import Fake, play, survivors, write_fake

from protocol.client import EngineClient
from protocol.errors import LineTooLongError
from protocol.messages import Command
from referee.reasons import Reason

UNDER = 60 * 1024
"""Bytes of a payload that must be accepted (the limit is 64 KiB; an 8 KiB one would refuse)."""
OVER = 70 * 1024
"""Bytes of a payload that must be refused (a 512 KiB limit would accept it)."""

LONG_NAME_AND_VERSION = f"""
plain_answer = answer


def answer(i, words):
    if i == 1:
        reply(1, "n" * {UNDER})
    elif i == 2:
        reply(2, "v" * {OVER})
    else:
        plain_answer(i, words)
"""


def test_the_client_takes_a_60_kib_line_and_refuses_a_70_kib_line(
    tmp_path: Path, fakes: list[Fake]
) -> None:
    fake = write_fake(tmp_path, "long", LONG_NAME_AND_VERSION)
    fakes.append(fake)

    async def scenario() -> tuple[str, LineTooLongError]:
        async with await EngineClient.start(fake.command, name="long") as engine:
            name = await engine.request(Command.name(), 10.0)
            with pytest.raises(LineTooLongError) as refused:
                await engine.request(Command.version(), 10.0)
        return name.payload, refused.value

    name, error = asyncio.run(scenario())
    assert name == "n" * UNDER
    assert type(error) is LineTooLongError
    assert error.limit == 64 * 1024
    assert survivors(fake.pids()) == []


def padded_moves(padding: int) -> str:
    """Genmove answers that are legal flips followed by ``padding`` spaces on the same line."""
    return f"""
def on_genmove(i, words):
    reply(i, choose(words[2]) + " " * {padding})
"""


def test_a_genmove_reply_over_the_limit_loses_by_unreadable_reply(
    tmp_path: Path, fakes: list[Fake]
) -> None:
    """Blanks after the move are stripped, so only the line's length can lose the game."""
    under = write_fake(tmp_path / "engines", "under", padded_moves(UNDER))
    over = write_fake(tmp_path / "engines", "over", padded_moves(OVER))
    fakes += [under, over]
    [record] = play(tmp_path / "run", (under.spec(), over.spec()))

    assert record.first == 0
    assert (record.reason, record.winner, record.end_ply) == (Reason.UNREADABLE_REPLY, 0, 1)
    assert record.plies[0].player == 0
    assert record.plies[0].move.endswith(")")  # the padded flip was taken as a flip
    assert survivors([*under.pids(), *over.pids()]) == []
