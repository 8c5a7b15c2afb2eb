"""A game's live view written off the event loop: the newest view wins and never gives way
to an older one, an ended game's view never comes back, a failing write stops nothing."""

import asyncio
import logging
import random
import threading
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from gui_helpers import live_game
from in_process_engines import engine_spec, in_process
from referee_fakes import play

import referee.live_writer
from referee.live import LIVE_DIR, LiveGame, end_live, live_file, read_live, write_live
from referee.live_writer import LIVE_WORKERS, LiveViewWriter


def view(number: int, game: str = "g1") -> Callable[[], LiveGame]:
    """The view numbered ``number`` of ``game`` (its one ply ``number`` ms long)."""
    return lambda: live_game(game, ["b6(K)"], ms=number)


class Disk:
    """``write_live`` and ``end_live`` that log what they did (``g1 write 2``, ``g1 remove``)
    and in which thread; the writes of the games in ``hold`` wait until ``released``."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch, hold: frozenset[str]) -> None:
        self.hold = hold
        self.done: list[str] = []
        self.writing: list[str] = []  # the games whose write has begun
        self.threads: set[str] = set()
        self.released = threading.Event()
        monkeypatch.setattr(referee.live_writer, "write_live", self.write)
        monkeypatch.setattr(referee.live_writer, "end_live", self.remove)

    def write(self, path: Path, made: LiveGame) -> bool:
        self.threads.add(threading.current_thread().name)
        self.writing.append(path.stem)
        if path.stem in self.hold:
            assert self.released.wait(5)
        self.done.append(f"{path.stem} write {made.plies[0].ms}")
        return write_live(path, made)

    def remove(self, path: Path) -> None:
        self.done.append(f"{path.stem} remove")
        end_live(path)


async def until(test: Callable[[], bool]) -> None:
    """Wait until ``test()`` (5 s at most)."""
    for _ in range(500):
        if test():
            return
        await asyncio.sleep(0.01)
    raise AssertionError("waited 5 s in vain")


def test_the_newest_view_is_written_next_and_never_an_older_one_after_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    disk = Disk(monkeypatch, hold=frozenset({"g1"}))
    path = live_file(tmp_path, "g1")
    writer = LiveViewWriter(path)

    async def game() -> None:
        writer.show(view(1))
        await until(lambda: "g1" in disk.writing)
        for number in range(2, 6):
            writer.show(view(number))  # while view 1 is being written
        disk.released.set()
        await until(lambda: disk.done == ["g1 write 1", "g1 write 5"])
        assert read_live(path).plies[0].ms == 5
        await writer.end()

    asyncio.run(asyncio.wait_for(game(), 10))
    assert disk.done == ["g1 write 1", "g1 write 5", "g1 remove"]
    assert not path.exists()
    assert threading.main_thread().name not in disk.threads  # never in the event loop


def test_games_written_at_once_each_go_forward_to_their_newest_view(tmp_path: Path) -> None:
    """Many games, each shown views faster than they are written: each file only moves on."""
    seen: dict[str, list[int]] = {}
    slow = random.Random(4)

    def write(path: Path, made: LiveGame) -> bool:
        time.sleep(slow.random() / 1000)
        seen.setdefault(path.stem, []).append(made.plies[0].ms)
        return write_live(path, made)

    async def game(writer: LiveViewWriter) -> None:
        for number in range(1, 101):
            writer.show(view(number))
            await asyncio.sleep(slow.random() / 2000)
        while not writer.path.exists() or read_live(writer.path).plies[0].ms != 100:
            await asyncio.sleep(0.01)  # the newest is written in the end
        await writer.end()

    async def event() -> None:
        writers = [LiveViewWriter(live_file(tmp_path, f"g{number}")) for number in range(8)]
        await asyncio.gather(*(game(writer) for writer in writers))

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(referee.live_writer, "write_live", write)
        asyncio.run(asyncio.wait_for(event(), 20))
    assert len(seen) == 8
    for written in seen.values():
        assert written == sorted(set(written))  # never back to an older view
        assert written[-1] == 100
    assert not list((tmp_path / LIVE_DIR).iterdir())  # each removed at its game's end


@pytest.mark.parametrize("cancelled", [False, True])
def test_an_ended_game_is_removed_after_its_write_in_flight(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, cancelled: bool
) -> None:
    """A write that lands after the removal would show a finished game as live; the
    removal is not lost when the game's task is cancelled while it waits."""
    disk = Disk(monkeypatch, hold=frozenset({"g1"}))
    path = live_file(tmp_path, "g1")
    writer = LiveViewWriter(path)

    async def game() -> None:
        writer.show(view(1))
        await until(lambda: "g1" in disk.writing)
        ending = asyncio.ensure_future(writer.end())
        await asyncio.sleep(0.05)
        assert not ending.done()  # waits for the write in flight
        writer.show(view(2))  # too late: the game has ended
        if cancelled:
            ending.cancel()
        disk.released.set()
        if cancelled:
            with pytest.raises(asyncio.CancelledError):
                await ending
            await until(lambda: "g1 remove" in disk.done)
        else:
            await ending

    asyncio.run(asyncio.wait_for(game(), 10))
    assert disk.done == ["g1 write 1", "g1 remove"]
    assert not path.exists()


def test_a_cancelled_game_waiting_for_a_worker_is_still_removed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every worker busy with other games' writes when the game ends and its task is
    cancelled: its removal waits for a worker, and then runs."""
    busy = frozenset(f"busy{number}" for number in range(LIVE_WORKERS))
    disk = Disk(monkeypatch, hold=busy)
    path = live_file(tmp_path, "g1")
    writer = LiveViewWriter(path)
    others = [LiveViewWriter(live_file(tmp_path, game)) for game in sorted(busy)]

    async def event() -> None:
        writer.show(view(1))
        await until(lambda: "g1 write 1" in disk.done)
        for other in others:
            other.show(view(1, other.path.stem))
        await until(lambda: set(disk.writing) >= busy)
        writer.show(view(2))
        ending = asyncio.ensure_future(writer.end())
        await asyncio.sleep(0.05)
        ending.cancel()
        with pytest.raises(asyncio.CancelledError):
            await ending
        disk.released.set()
        await until(lambda: "g1 remove" in disk.done)
        for other in others:
            await other.end()

    asyncio.run(asyncio.wait_for(event(), 10))
    assert not path.exists()


def test_a_failing_write_is_warned_once_and_nothing_more_is_written(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    (tmp_path / LIVE_DIR).write_text("a file where the folder should be")
    writer = LiveViewWriter(live_file(tmp_path, "g1"))

    async def game() -> None:
        for number in range(1, 4):
            writer.show(view(number))
            await asyncio.sleep(0.05)
        await writer.end()

    with caplog.at_level(logging.WARNING, logger="referee.live"):
        asyncio.run(asyncio.wait_for(game(), 10))
    assert len(caplog.messages) == 1
    assert caplog.messages[0].startswith(f"cannot write live view g1 to {tmp_path / LIVE_DIR}:")


def test_a_game_whose_live_view_cannot_be_written_is_played_to_its_end(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    out = tmp_path / "run"
    out.mkdir()
    (out / LIVE_DIR).write_text("a file where the folder should be")
    specs = (engine_spec("a", "--level", "0"), engine_spec("b", "--level", "0"))
    with caplog.at_level(logging.WARNING, logger="referee.live"):
        [record] = play(out, specs, games=1, start_engine=in_process())
    assert len(record.plies) > 10
    assert [message.split(":")[0] for message in caplog.messages] == [
        f"cannot write live view {record.game_id} to {out / LIVE_DIR}"
    ]
