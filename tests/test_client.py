"""The DCTP engine client against small misbehaving fake engines (Python scripts)."""

import asyncio
import sys
import time
import tracemalloc
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import TypeVar

import pytest
from fake_output import FAKE_OUTPUT

from protocol.client import EngineClient
from protocol.errors import (
    EnginePipeClosedError,
    EngineStartError,
    EngineTerminatedError,
    EngineTimeoutError,
    LineTooLongError,
    MalformedReplyError,
    WrongReplyIdError,
)
from protocol.messages import Command, Reply

T = TypeVar("T")

ENGINE_TEMPLATE = (
    r"""
import os, signal, subprocess, sys, time
"""
    + FAKE_OUTPUT
    + r"""
def answer(i, words):
    if i == 1:
        reply(1, "fake")
    elif i == 4:
        out(b"=4 protocol_version\nname\nlist_commands\nquit\ngenmove\n")
    elif i == 12:
        reply(12, "a2 a3")
    elif i == 5:
        reply(5)
        sys.exit(0)
    else:
        reply(i)

on_command = answer
on_eof = lambda: None

CUSTOM

while True:
    line = sys.stdin.readline()
    if not line:
        break
    words = line.split()
    if words:
        on_command(int(words[0]), words)
on_eof()
"""
)


def engine_script(tmp_path: Path, custom: str = "") -> list[str]:
    """A fake engine: the template with ``custom`` code (which may rebind on_command)."""
    path = tmp_path / "fake_engine.py"
    path.write_text(ENGINE_TEMPLATE.replace("CUSTOM", custom))
    return [sys.executable, str(path)]


def on_genmove(*lines: str) -> str:
    """Custom code that runs ``lines`` when a genmove comes, then answers as usual."""
    body = "".join(f"        {line}\n" for line in lines)
    return f"def on_command(i, words):\n    if i == 12:\n{body}    answer(i, words)\n"


def run(scenario: Callable[[], Awaitable[T]]) -> T:
    async def main() -> T:
        return await scenario()

    return asyncio.run(main())


def is_alive(pid: int) -> bool:
    """Whether ``pid`` is a running process (a zombie counts as dead)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except FileNotFoundError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] not in ("Z", "X")


def wait_dead(pid: int, timeout: float = 2.0) -> bool:
    deadline = time.monotonic() + timeout
    while is_alive(pid):
        if time.monotonic() > deadline:
            return False
        time.sleep(0.02)
    return True


def test_well_behaved_engine(tmp_path: Path) -> None:
    log: list[str] = []

    async def scenario() -> None:
        engine = await EngineClient.start(
            engine_script(tmp_path), name="good", traffic_log=log.append
        )
        async with engine:
            assert await engine.request(Command.name(), 5.0) == Reply(1, True, "fake")
            assert await engine.request(Command.reset_board(), 5.0) == Reply(7, True)
            reply, seconds = await engine.request_timed(Command.genmove("red"), 5.0)
            assert reply == Reply(12, True, "a2 a3")
            assert 0 <= seconds < 5.0
        assert engine.returncode == 0
        assert not is_alive(engine.pid)

    run(scenario)
    assert log[:2] == ["> 1 name", "< =1 fake"]
    assert "> 12 genmove red" in log
    assert "< =12 a2 a3" in log
    assert "> 5 quit" in log


def test_list_commands_collects_continuation_lines(tmp_path: Path) -> None:
    async def scenario() -> tuple[Reply, Reply]:
        async with await EngineClient.start(engine_script(tmp_path)) as engine:
            listed = await engine.request(Command.list_commands(), 5.0)
            after = await engine.request(Command.name(), 5.0)
        return listed, after

    listed, after = run(scenario)
    assert listed == Reply(4, True, "protocol_version\nname\nlist_commands\nquit\ngenmove")
    assert after == Reply(1, True, "fake")


def test_list_commands_slow_lines_end_at_next_reply(tmp_path: Path) -> None:
    custom = r"""
def on_command(i, words):
    if i == 4:
        out(b"=4\n")
        for name in (b"name", b"", b"genmove"):
            time.sleep(0.05)
            out(name + b"\n")
    else:
        answer(i, words)
"""

    async def scenario() -> Reply:
        async with await EngineClient.start(engine_script(tmp_path, custom)) as engine:
            return await engine.request(Command.list_commands(), 5.0)

    assert run(scenario) == Reply(4, True, "name\ngenmove")


def test_overlapping_requests_are_matched_in_order(tmp_path: Path) -> None:
    async def scenario() -> list[Reply]:
        async with await EngineClient.start(engine_script(tmp_path)) as engine:
            commands = (Command.name(), Command.ready(), Command.genmove("red"))
            return list(await asyncio.gather(*(engine.request(c, 5.0) for c in commands)))

    assert run(scenario) == [Reply(1, True, "fake"), Reply(14, True), Reply(12, True, "a2 a3")]


def test_working_directory_and_environment(tmp_path: Path) -> None:
    custom = r"""
def on_command(i, words):
    reply(1, os.getcwd() + " " + os.environ["ENGINE_FLAVOUR"]) if i == 1 else answer(i, words)
"""
    script = engine_script(tmp_path, custom)
    workdir = tmp_path / "work"
    workdir.mkdir()

    async def scenario() -> Reply:
        env = {"ENGINE_FLAVOUR": "mild"}
        async with await EngineClient.start(script, cwd=workdir, env=env) as engine:
            return await engine.request(Command.name(), 5.0)

    assert run(scenario).payload == f"{workdir} mild"


def genmove_reply(tmp_path: Path, line: bytes, colour: str) -> Reply:
    """The client's reply to a genmove (id 12) that the fake answers with the raw ``line``."""
    custom = f"""
def on_command(i, words):
    out({line!r}) if i == 12 else answer(i, words)
"""

    async def scenario() -> Reply:
        async with await EngineClient.start(engine_script(tmp_path, custom)) as engine:
            return await engine.request(Command.genmove(colour), 5.0)

    return run(scenario)


def test_failure_reply_is_returned(tmp_path: Path) -> None:
    reply = genmove_reply(tmp_path, b"?12 illegal move\n", "black")
    assert reply == Reply(12, False, "illegal move")


def test_crash_mid_game(tmp_path: Path) -> None:
    custom = on_genmove(
        r'sys.stderr.write("Traceback: something broke\n")', "sys.stderr.flush()", "os._exit(3)"
    )

    async def scenario() -> EngineTerminatedError:
        async with await EngineClient.start(engine_script(tmp_path, custom), name="crashy") as e:
            assert (await e.request(Command.reset_board(), 5.0)).ok
            with pytest.raises(EngineTerminatedError) as caught:
                await e.request(Command.genmove("red"), 5.0)
            assert e.returncode == 3
            with pytest.raises(EngineTerminatedError):
                await e.request(Command.name(), 5.0)
        return caught.value

    error = run(scenario)
    assert error.returncode == 3
    assert error.engine == "crashy"
    assert "crashy" in str(error)
    assert "something broke" in str(error)


def test_crash_while_a_child_holds_the_pipes(tmp_path: Path) -> None:
    custom = r"""
child = subprocess.Popen(["sleep", "60"])

def on_command(i, words):
    reply(1, str(child.pid)) if i == 1 else os._exit(4)
"""

    async def scenario() -> int:
        async with await EngineClient.start(engine_script(tmp_path, custom)) as engine:
            child = int((await engine.request(Command.name(), 5.0)).payload)
            with pytest.raises(EngineTerminatedError) as caught:
                await engine.request(Command.genmove("red"), 5.0)
            assert caught.value.returncode == 4
        return child

    assert wait_dead(run(scenario))


def test_closed_stdout_while_alive(tmp_path: Path) -> None:
    custom = on_genmove("os.close(1)", "time.sleep(30)")

    async def scenario() -> None:
        async with await EngineClient.start(engine_script(tmp_path, custom)) as engine:
            with pytest.raises(EnginePipeClosedError):
                await engine.request(Command.genmove("red"), 5.0)
            assert engine.returncode is None
            await engine.quit(timeout=0.2)
            assert not is_alive(engine.pid)

    run(scenario)


def test_hanging_engine_times_out_and_quit_cleans_up(tmp_path: Path) -> None:
    custom = r"""
def on_command(i, words):
    time.sleep(60) if i == 12 else answer(i, words)
"""

    async def scenario() -> None:
        engine = await EngineClient.start(engine_script(tmp_path, custom), name="sleepy")
        started = time.monotonic()
        with pytest.raises(EngineTimeoutError) as caught:
            await engine.request(Command.genmove("red"), 0.3)
        assert 0.3 <= time.monotonic() - started < 1.5
        assert caught.value.timeout == 0.3
        assert "12 genmove red" in str(caught.value)
        started = time.monotonic()
        await engine.quit()
        assert time.monotonic() - started < 2.5
        assert engine.returncode is not None
        assert not is_alive(engine.pid)

    run(scenario)


def test_late_reply_after_timeout_is_discarded(tmp_path: Path) -> None:
    custom = on_genmove("time.sleep(0.4)")

    async def scenario() -> Reply:
        async with await EngineClient.start(engine_script(tmp_path, custom)) as engine:
            with pytest.raises(EngineTimeoutError):
                await engine.request(Command.genmove("red"), 0.1)
            return await engine.request(Command.name(), 5.0)

    assert run(scenario) == Reply(1, True, "fake")


def test_noise_is_logged_and_skipped(tmp_path: Path) -> None:
    custom = r"""
def on_command(i, words):
    out(b" a  b  c  d\n8 X  X  X  X\n\xff\xfe not utf-8 \xc3\n=abc\n?\n= 12\n=12x\n\r\n")
    out(f"={i} a2 a3\r\n".encode() if i == 12 else f"={i}\r\n".encode())
"""
    log: list[str] = []

    async def scenario() -> tuple[Reply, Reply]:
        script = engine_script(tmp_path, custom)
        async with await EngineClient.start(script, traffic_log=log.append) as engine:
            first = await engine.request(Command.reset_board(), 5.0)
            second = await engine.request(Command.genmove("red"), 5.0)
        return first, second

    assert run(scenario) == (Reply(7, True), Reply(12, True, "a2 a3"))
    assert "< 8 X  X  X  X" in log
    assert "< \ufffd\ufffd not utf-8 \ufffd" in log
    assert "< = 12" in log


def test_wrong_reply_id(tmp_path: Path) -> None:
    custom = r"""
def on_command(i, words):
    reply(10, "a2 a3") if i == 12 else answer(i, words)
"""

    async def scenario() -> WrongReplyIdError:
        async with await EngineClient.start(engine_script(tmp_path, custom), name="liar") as e:
            with pytest.raises(WrongReplyIdError) as caught:
                await e.request(Command.genmove("red"), 5.0)
        return caught.value

    error = run(scenario)
    assert (error.expected, error.received) == (12, 10)
    assert "liar" in str(error)


def test_unsolicited_reply(tmp_path: Path) -> None:
    custom = r"""
def on_command(i, words):
    answer(i, words)
    if i == 7:
        reply(7)
"""

    async def scenario() -> WrongReplyIdError:
        async with await EngineClient.start(engine_script(tmp_path, custom)) as engine:
            await engine.request(Command.reset_board(), 5.0)
            await asyncio.sleep(0.2)
            with pytest.raises(WrongReplyIdError) as caught:
                await engine.request(Command.name(), 5.0)
        return caught.value

    error = run(scenario)
    assert (error.expected, error.received) == (None, 7)


def test_reply_with_unusable_payload(tmp_path: Path) -> None:
    with pytest.raises(MalformedReplyError) as caught:
        genmove_reply(tmp_path, b"=12 a2\xff a3\n", "red")
    assert type(caught.value) is MalformedReplyError


def test_endless_line_is_bounded(tmp_path: Path) -> None:
    custom = r"""
def on_command(i, words):
    if i == 12:
        out(b"x" * (8 << 20))
        time.sleep(30)
    answer(i, words)
"""

    async def scenario() -> None:
        engine = await EngineClient.start(engine_script(tmp_path, custom), max_line_bytes=4096)
        async with engine:
            with pytest.raises(LineTooLongError) as caught:
                await engine.request(Command.genmove("red"), 5.0)
            assert caught.value.limit == 4096
            with pytest.raises(LineTooLongError):
                await engine.request(Command.name(), 5.0)
            await asyncio.sleep(0.3)
            await engine.quit(timeout=0.1)

    tracemalloc.start()
    try:
        run(scenario)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 3 << 20


def test_stderr_flood_does_not_block(tmp_path: Path) -> None:
    custom = r"""
def on_command(i, words):
    if i == 12:
        for _ in range(4000):
            sys.stderr.buffer.write(b"e" * 1000 + b"\n")
        sys.stderr.buffer.write(b"y" * 200000)
        sys.stderr.buffer.write(b"\nlast words\n")
        sys.stderr.buffer.flush()
    answer(i, words)
"""
    log: list[str] = []

    async def scenario() -> str:
        script = engine_script(tmp_path, custom)
        async with await EngineClient.start(script, traffic_log=log.append) as engine:
            assert await engine.request(Command.genmove("red"), 10.0) == Reply(12, True, "a2 a3")
            await asyncio.sleep(0.1)
            return engine.stderr_tail

    tail = run(scenario)
    assert len(tail) <= 4096
    assert tail.endswith("last words\n")
    assert log.count("! " + "e" * 1000) == 4000
    assert "! last words" in log


def test_process_group_is_killed(tmp_path: Path) -> None:
    custom = r"""
signal.signal(signal.SIGTERM, signal.SIG_IGN)
child = subprocess.Popen(["sleep", "60"])

def on_command(i, words):
    if i == 1:
        reply(1, str(child.pid))
    elif i != 5:
        answer(i, words)

on_eof = lambda: time.sleep(60)
"""

    async def scenario() -> tuple[int, int]:
        engine = await EngineClient.start(engine_script(tmp_path, custom))
        child = int((await engine.request(Command.name(), 5.0)).payload)
        started = time.monotonic()
        await engine.quit(timeout=0.3, term_timeout=0.3)
        assert time.monotonic() - started < 2.0
        assert engine.returncode == -9
        return engine.pid, child

    pid, child = run(scenario)
    assert wait_dead(pid)
    assert wait_dead(child)


def test_children_outliving_the_engine_are_killed(tmp_path: Path) -> None:
    custom = r"""
child = subprocess.Popen(["sleep", "60"])

def on_command(i, words):
    reply(1, str(child.pid)) if i == 1 else answer(i, words)
"""

    async def scenario() -> tuple[int, int]:
        async with await EngineClient.start(engine_script(tmp_path, custom)) as engine:
            child = int((await engine.request(Command.name(), 5.0)).payload)
        assert engine.returncode == 0
        return engine.pid, child

    pid, child = run(scenario)
    assert wait_dead(pid)
    assert wait_dead(child)


def test_kill_is_the_hard_path(tmp_path: Path) -> None:
    async def scenario() -> EngineClient:
        engine = await EngineClient.start(engine_script(tmp_path))
        await engine.kill()
        with pytest.raises(EngineTerminatedError) as caught:
            await engine.request(Command.name(), 1.0)
        assert caught.value.returncode == -9
        await engine.quit()
        return engine

    engine = run(scenario)
    assert engine.returncode == -9
    assert not is_alive(engine.pid)


def test_missing_program() -> None:
    async def scenario() -> None:
        await EngineClient.start(["/nonexistent/engine"], name="ghost")

    with pytest.raises(EngineStartError, match="ghost"):
        run(scenario)
