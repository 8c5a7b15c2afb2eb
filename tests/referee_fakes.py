"""Fake DCTP engines for the referee tests: small Python scripts run with ``sys.executable``.

A fake answers every command by its id. By default it plays the first square it
has not seen flipped (it learns flips from the ``11 flip`` echoes) and resigns
when none is left; ``legal=True`` makes it track the whole game from the echoes
with ``banqi_engine`` and play the first legal move. Custom code, pasted in
before the main loop, rebinds ``on_genmove``, ``on_echo``, ``answer`` or
``choose`` to misbehave. Every fake process appends its pid to ``<name>.pids``
in its folder; fakes that start helpers write their pids to ``<name>.children``
(sandboxed, only when the folder is the fake's room, its ``cwd``).
"""

import asyncio
import contextlib
import os
import signal
import sys
import time
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from fake_output import FAKE_OUTPUT

from banqi_engine.rules import PRESETS
from referee.engine_spec import EngineSpec
from referee.engine_start import EngineFactory, start_engine_process
from referee.macs import MacKeys
from referee.record import GameRecord
from referee.timecontrol import TimeControl
from tournaments.match import open_match, run_match, start_match_folder
from tournaments.match_config import MatchConfig
from tournaments.runner import RunEvents, RunOptions

FAKE_TEMPLATE = r"""
import os, signal, subprocess, sys, time

HERE = __HERE__
NAME = __NAME__
SQUARES = [f + r for r in "12345678" for f in "abcd"]
face_down = list(SQUARES)
genmoves = 0


def note(kind, value):
    try:
        with open(os.path.join(HERE, f"{NAME}.{kind}"), "a") as handle:
            handle.write(f"{value}\n")
    except OSError:
        pass  # sandboxed without its folder as its room: it cannot write there


def first_process():
    try:
        os.close(os.open(os.path.join(HERE, f"{NAME}.first"), os.O_CREAT | os.O_EXCL))
    except FileExistsError:
        return False
    except OSError:
        pass
    return True


__OUTPUT__

def track(i, words):
    if i == 11 and words[2] in face_down:
        face_down.remove(words[2])


def choose(colour):
    return next((f"{sq} {sq}" for sq in face_down), "a0 a0")


def on_genmove(i, words):
    reply(i, choose(words[2]))


def on_echo(i, words):
    track(i, words)
    reply(i)


def received(line):
    pass


def answer(i, words):
    global genmoves
    if i == 1:
        reply(1, NAME)
    elif i == 5:
        reply(5)
        sys.exit(0)
    elif i == 12:
        genmoves += 1
        on_genmove(i, words)
    elif i in (10, 11):
        on_echo(i, words)
    else:
        reply(i)


note("pids", os.getpid())
__LEGAL__
__CUSTOM__
while True:
    line = sys.stdin.buffer.readline()
    if not line:
        break
    received(line)
    words = line.decode("utf-8", "replace").split()
    if words and words[0].isdigit():
        answer(int(words[0]), words)
"""

LEGAL_PLAYER = r"""
from banqi_engine.game import Game
from banqi_engine.pieces import piece_from_letter
from banqi_engine.rules import PRESETS
from banqi_engine.squares import parse_square, square_name

game = Game(PRESETS[__RULES__])


def track(i, words):
    if i == 11:
        game.play(parse_square(words[2]) * 33, piece_from_letter(words[3]))
    else:
        game.play(parse_square(words[2]) << 5 | parse_square(words[3]))


def choose(colour):
    moves = game.legal_moves()
    if not moves:
        return "a0 a0"
    return f"{square_name(moves[0] >> 5)} {square_name(moves[0] & 31)}"
"""

TEST_KEY = bytes(range(32))
TEST_MACS = MacKeys(TEST_KEY)
"""The MAC keys of ``TEST_KEY``."""


def rule_set_fake(accepts: bool) -> str:
    """Custom code of a fake that lists ``rule_set`` among its commands, and then takes the
    rule set it is told (``accepts``) or refuses it."""
    answer = "reply(19)" if accepts else 'out(b"?19 cannot play these rules\\n")'
    return f"""
plain_answer = answer


def answer(i, words):
    if i == 4:
        out(b"=4 protocol_version\\nname\\nrule_set\\ngenmove\\n")
    elif i == 19:
        {answer}
    else:
        plain_answer(i, words)
"""


@dataclass(frozen=True)
class Fake:
    """A fake engine script in ``folder`` and the pid files its processes write."""

    folder: Path
    name: str

    @property
    def script(self) -> Path:
        return self.folder / f"{self.name}.py"

    @property
    def command(self) -> tuple[str, ...]:
        return (sys.executable, str(self.script))

    def spec(self) -> EngineSpec:
        return EngineSpec(name=self.name, command=self.command)

    def pids(self) -> list[int]:
        """The pid of every process of this fake started so far, in order."""
        return _read_pids(self.folder / f"{self.name}.pids")

    def children(self) -> list[int]:
        """The pids of the helper processes the fake's processes started."""
        return _read_pids(self.folder / f"{self.name}.children")


def _read_pids(path: Path) -> list[int]:
    if not path.exists():
        return []
    return [int(line) for line in path.read_text().split()]


def write_fake(
    folder: Path, name: str, custom: str = "", legal: bool = False, rules: str = "casual"
) -> Fake:
    """Write the fake engine ``name`` into ``folder``; ``custom`` is pasted before its loop."""
    folder.mkdir(parents=True, exist_ok=True)
    fake = Fake(folder, name)
    legal_code = LEGAL_PLAYER.replace("__RULES__", repr(rules)) if legal else ""
    text = (
        FAKE_TEMPLATE.replace("__HERE__", repr(str(folder)))
        .replace("__NAME__", repr(name))
        .replace("__LEGAL__", legal_code)
        .replace("__OUTPUT__", FAKE_OUTPUT)
        .replace("__CUSTOM__", custom)
    )
    fake.script.write_text(text)
    return fake


def play(
    out: Path,
    engines: tuple[EngineSpec, EngineSpec],
    *,
    games: int = 1,
    rules: str = "casual",
    time_control: TimeControl | None = None,
    stall_timeout: float = 5.0,
    seed: int = 7,
    key: bytes = TEST_KEY,
    log_traffic: bool = False,
    start_engine: EngineFactory = start_engine_process,
) -> list[GameRecord]:
    """Run a match in this process and return its records (also saved under ``out``)."""
    config = MatchConfig(
        engines=engines,
        games=games,
        rules=PRESETS[rules],
        time_control=time_control or TimeControl(),
        seed=seed,
        out=out,
        log_traffic=log_traffic,
        stall_timeout=stall_timeout,
    )
    macs = MacKeys(key)
    start_match_folder(open_match(config, True, macs), macs)
    events = RunEvents(lambda record, standings: None, lambda name, left, last: None)
    options = RunOptions(
        key=key, out=out, events=events, log_traffic=log_traffic, start_engine=start_engine
    )
    return asyncio.run(run_match(config, options))


def process_state(pid: int) -> tuple[str, int] | None:
    """The state letter and parent pid of ``pid``, or None when no such process exists."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except (FileNotFoundError, ProcessLookupError):
        return None
    fields = stat.rsplit(")", 1)[1].split()
    return fields[0], int(fields[1])


def is_running(pid: int) -> bool:
    """Whether ``pid`` runs (a zombie does not)."""
    state = process_state(pid)
    return state is not None and state[0] not in ("Z", "X")


def is_unreaped_child(pid: int) -> bool:
    """Whether ``pid`` is a zombie child of this process that nobody waited for."""
    state = process_state(pid)
    return state is not None and state[0] == "Z" and state[1] == os.getpid()


def survivors(pids: Iterable[int], timeout: float = 2.0) -> list[int]:
    """The processes among ``pids`` still running (or left unreaped) after ``timeout``."""
    pending = list(pids)
    deadline = time.monotonic() + timeout
    while True:
        pending = [pid for pid in pending if is_running(pid) or is_unreaped_child(pid)]
        if not pending or time.monotonic() > deadline:
            return pending
        time.sleep(0.02)


def running_scripts(fakes: Iterable[Fake], timeout: float = 2.0) -> list[int]:
    """Processes (seen from here, sandboxed or not) whose command line names a fake's script
    and that still run after ``timeout``: a sandbox's own processes count too."""
    scripts = [str(fake.script).encode() for fake in fakes]
    deadline = time.monotonic() + timeout
    while True:
        found = []
        for entry in Path("/proc").iterdir():
            if not entry.name.isdigit() or int(entry.name) == os.getpid():
                continue
            try:
                words = (entry / "cmdline").read_bytes().split(b"\0")
            except OSError:
                continue
            if any(script in words for script in scripts) and is_running(int(entry.name)):
                found.append(int(entry.name))
        if not found or time.monotonic() > deadline:
            return found
        time.sleep(0.02)


def kill_all(pids: Iterable[int]) -> None:
    """Clean-up after a failed test: SIGKILL every pid that still runs."""
    for pid in pids:
        if is_running(pid):
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)


REPORTING = r"""
_plain_answer = answer


def answer(i, words):
    if i == 1:
        reply(1, "report:" + REPORT)
    else:
        _plain_answer(i, words)
"""
"""Pasted after code that sets ``REPORT``: the fake answers ``name`` with it, which the
record keeps as the player's ``engine_name`` (prefixed ``report:``)."""


def attacker(folder: Path, name: str, attack: str) -> Fake:
    """A legal-playing fake that runs ``attack`` (which sets ``REPORT``) as it starts."""
    return write_fake(folder, name, attack + REPORTING, legal=True)
