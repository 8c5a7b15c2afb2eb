"""``run_interruptible``: Ctrl-C cancels the run, lets its clean-up end, and prints nothing."""

import asyncio
import gc
import os
import signal
import threading
import time
from collections.abc import Iterator

import pytest

from banqi_common.interrupt import run_interruptible


@pytest.fixture(autouse=True)
def _ctrl_c_is_ours() -> Iterator[None]:
    """These tests send SIGINT to this process: only where Python's own handler has it."""
    if threading.current_thread() is not threading.main_thread():
        pytest.skip("signals reach only the main thread")
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    yield
    signal.signal(signal.SIGINT, previous)


def ctrl_c_in(seconds: float) -> None:
    """Send SIGINT to this process after ``seconds`` (call it in the loop)."""
    asyncio.get_running_loop().call_later(seconds, os.kill, os.getpid(), signal.SIGINT)


def assert_nothing_printed(
    capsys: pytest.CaptureFixture[str], caplog: pytest.LogCaptureFixture
) -> None:
    gc.collect()  # a task whose exception nobody took complains when it is collected
    assert caplog.records == []
    assert capsys.readouterr() == ("", "")


def test_ctrl_c_lets_the_clean_up_end_then_raises_keyboard_interrupt(
    capsys: pytest.CaptureFixture[str], caplog: pytest.LogCaptureFixture
) -> None:
    done: list[str] = []

    def save_record() -> None:
        time.sleep(0.3)
        done.append("record saved")

    async def quit_engines(seconds: float) -> None:
        await asyncio.sleep(seconds)
        done.append("engines quit")

    async def game(number: int) -> None:
        try:
            if number == 0:
                await asyncio.to_thread(save_record)
            await asyncio.sleep(30)
        finally:
            await asyncio.shield(quit_engines(0.1 + 0.3 * number))

    requests: list[asyncio.Future[None]] = []

    async def fails_late() -> None:
        await asyncio.sleep(0.2)
        raise RuntimeError("pipe closed")  # a request whose engine stopped, left behind

    async def main() -> None:
        ctrl_c_in(0.1)
        requests.append(asyncio.ensure_future(fails_late()))  # never awaited
        await asyncio.gather(game(0), game(1), game(2))

    started = time.monotonic()
    with pytest.raises(KeyboardInterrupt):
        run_interruptible(main())
    assert time.monotonic() - started < 5
    assert sorted(done) == ["engines quit"] * 3 + ["record saved"]
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler
    requests.clear()
    assert_nothing_printed(capsys, caplog)


def test_a_second_ctrl_c_cuts_the_clean_up_short(
    capsys: pytest.CaptureFixture[str], caplog: pytest.LogCaptureFixture
) -> None:
    cut: list[str] = []

    async def slow_clean_up() -> None:
        try:
            await asyncio.sleep(30)
        except asyncio.CancelledError:
            cut.append("cut")
            raise

    async def main() -> None:
        ctrl_c_in(0.1)
        ctrl_c_in(0.3)
        try:
            await asyncio.sleep(30)
        finally:
            await asyncio.shield(slow_clean_up())

    started = time.monotonic()
    with pytest.raises(KeyboardInterrupt):
        run_interruptible(main())
    assert time.monotonic() - started < 5
    assert cut == ["cut"]
    assert_nothing_printed(capsys, caplog)


def test_without_ctrl_c_the_result_comes_back_and_tasks_left_behind_are_cancelled() -> None:
    left: list[str] = []
    left_behind: list[asyncio.Future[None]] = []

    async def straggler() -> None:
        try:
            await asyncio.sleep(30)
        finally:
            left.append("cancelled")

    async def main() -> int:
        left_behind.append(asyncio.ensure_future(straggler()))
        await asyncio.sleep(0)
        return 5

    started = time.monotonic()
    assert run_interruptible(main()) == 5
    assert time.monotonic() - started < 5
    assert left == ["cancelled"]


def test_an_error_comes_back_as_it_is() -> None:
    async def main() -> None:
        raise ValueError("bad config")

    with pytest.raises(ValueError, match="bad config"):
        run_interruptible(main())


def test_ctrl_c_ignored_by_the_process_stays_ignored() -> None:
    async def main() -> str:
        ctrl_c_in(0.05)
        await asyncio.sleep(0.3)
        return "played on"

    signal.signal(signal.SIGINT, signal.SIG_IGN)
    assert run_interruptible(main()) == "played on"
    assert signal.getsignal(signal.SIGINT) is signal.SIG_IGN
