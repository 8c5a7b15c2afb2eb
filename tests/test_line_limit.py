"""The default limit on an engine's output line (64 KiB): 60 KiB passes, 70 KiB does not,
and a line not ended yet is refused a byte over the limit the manual gives."""

import asyncio
import re
import time
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
ROOT = Path(__file__).resolve().parent.parent

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


DOCUMENTED_LIMIT = re.compile(r"stdout line may be at most [\d ]+KiB \(([\d,]+) bytes\)")
"""Where the manual says how long an engine's line may be (docs/dctp.md)."""


def documented_limit() -> int:
    found = DOCUMENTED_LIMIT.search((ROOT / "docs" / "dctp.md").read_text(encoding="utf-8"))
    assert found is not None
    return int(found.group(1).replace(",", ""))


def endless_name(length: int) -> str:
    """An engine whose ``name`` reply is a line of ``length`` bytes that it leaves unended
    for a while (a second), then ends."""
    return f"""
plain_answer = answer


def answer(i, words):
    if i == 1:
        out(b"=1 " + b"n" * ({length} - 3))
        time.sleep(1.0)
        out(b"\\n")
    else:
        plain_answer(i, words)
"""


@pytest.mark.parametrize("over", [False, True], ids=["at the limit", "a byte over"])
def test_an_unended_line_is_refused_a_byte_over_the_documented_limit(
    tmp_path: Path, fakes: list[Fake], over: bool
) -> None:
    """Before its newline: a line of the manual's limit waits for it, one byte longer is
    refused at once (not when the newline comes, nor at four times the limit)."""
    limit = documented_limit()
    fake = write_fake(tmp_path, "endless", endless_name(limit + over))
    fakes.append(fake)

    async def name() -> tuple[str | LineTooLongError, float]:
        async with await EngineClient.start(fake.command, name="endless") as engine:
            await engine.request(Command.protocol_version(), 10.0)
            asked = time.monotonic()
            try:
                reply = (await engine.request(Command.name(), 10.0)).payload
            except LineTooLongError as error:
                return error, time.monotonic() - asked
            return reply, time.monotonic() - asked

    answer, seconds = asyncio.run(name())
    if over:
        assert isinstance(answer, LineTooLongError) and answer.limit == limit
        assert seconds < 0.9  # refused before the newline came
    else:
        assert answer == "n" * (limit - 3)
        assert seconds >= 0.9
