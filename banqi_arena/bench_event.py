"""One event of the arena bench: the real ``banqi serve`` played by a swarm of relays,
under a load, and what it cost.

The event is a round-robin of remote entrants in a temporary folder, their tokens made as
``banqi serve --add-entrant`` makes them, and the server started as its own process (so
that its CPU time and memory are its own, read from ``/proc``). The relays
(``bench_swarm``) play in this process; spectators (``bench_spectators``) ask from
another, niced, process. Once the event's games or seconds are up, the organiser pauses
it (``POST /api/organiser/pause``) and the games being played are played to their end;
then the server is stopped. The figures come from the relays' measures, ``/proc`` and
the records the server wrote.
"""

import asyncio
import contextlib
import json
import math
import os
import re
import signal
import sys
import tempfile
import time
import urllib.request
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Final

from pydantic import BaseModel, ValidationError

from banqi_engine.rules import RuleSet
from banqi_gui.event_routes import ORGANISER_HEADER
from referee.record import GameRecord, read_record
from referee.storage import GAMES_DIR
from referee.timecontrol import TimeControl

from .bench_figures import ArenaBench, Load, RunFigures, SpectatorFigures, Spread
from .bench_spectators import SpectatorPlan, watch_from_another_process
from .bench_swarm import Storm, SwarmMeasures, run_swarm
from .tokens import add_entrant

SERVER_START_SECONDS: Final = 60.0
"""Seconds the server has to say its address."""
STOP_SECONDS: Final = 30.0
"""Seconds the server has to exit once stopped, before it is killed."""
DRAIN_STALL_SECONDS: Final = 60.0
"""Seconds without a ply after which the games being played at the pause are given up."""
STALL_SECONDS: Final = 30
"""The event's stall timeout: slack for a relay on a loaded machine."""
POLL_SECONDS: Final = 0.1
ORGANISER_SECONDS: Final = 30.0
"""Seconds an organiser's request may take."""
BANQI: Final = (sys.executable, "-c", "from banqi_cli.main import cli; cli()")


class RunningGame(BaseModel):
    """A game being played, as the organiser's view lists it."""

    game_id: str


class OrganiserView(BaseModel):
    """What the bench reads of the organiser's view of the event (the rest is ignored)."""

    running: list[RunningGame]


class EventError(Exception):
    """The event could not be played (the server did not start, or stopped early)."""


@dataclass(frozen=True)
class EventPlan:
    """What each event of a bench plays."""

    entrants: int
    games_at_once: int
    games: int | None
    seconds: float | None
    time_control: TimeControl
    rules: RuleSet
    level: int
    spectators: int
    think_seconds: float = 0.0
    seed: int = 1


def entrant_names(count: int) -> list[str]:
    """The remote entrants' names: ``relay-01`` and on."""
    return [f"relay-{number:02d}" for number in range(1, count + 1)]


def _toml_table(values: Mapping[str, object]) -> str:
    """An inline TOML table of scalars (JSON's strings, numbers and booleans are TOML's)."""
    return "{ " + ", ".join(f"{key} = {json.dumps(value)}" for key, value in values.items()) + " }"


def _rounds(plan: EventPlan) -> int:
    """Rounds enough for the games asked (two games a pairing a round)."""
    per_round = plan.entrants * (plan.entrants - 1)
    return 1 if plan.games is None else math.ceil(plan.games / per_round)


def scheduled_games(plan: EventPlan) -> int:
    """How many games the event's schedule holds."""
    return _rounds(plan) * plan.entrants * (plan.entrants - 1)


def write_event(folder: Path, plan: EventPlan) -> tuple[Path, Path, dict[str, str]]:
    """The event's config file, its run folder and each entrant's token."""
    names = entrant_names(plan.entrants)
    rounds = _rounds(plan)
    clock = {"time": plan.time_control.time, "increment": plan.time_control.increment}
    lines = [
        f"rounds = {rounds}",
        f"concurrency = {plan.games_at_once}",
        f"stall_timeout = {STALL_SECONDS}",
        f"seed = {plan.seed}",
        f"time = {_toml_table(clock)}",
        f"rules = {_toml_table(plan.rules.model_dump())}",
    ]
    for name in names:
        lines += ["", "[[engines]]", f'name = "{name}"', "remote = true"]
    config = folder / "event.toml"
    config.write_text("\n".join(lines) + "\n", encoding="utf-8")
    run = folder / "run"
    tokens = {name: add_entrant(run, name)[0] for name in names}
    return config, run, tokens


def process_cpu(pid: int) -> float:
    """CPU seconds (user and system) process ``pid`` has used so far; OSError once it has
    gone."""
    with open(f"/proc/{pid}/stat", encoding="ascii") as stat:
        fields = stat.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def peak_rss_mib(pid: int) -> float:
    """The peak resident memory of process ``pid`` (VmHWM), in MiB; OSError once it has
    gone."""
    with open(f"/proc/{pid}/status", encoding="ascii") as status:
        for line in status:
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    raise OSError(f"process {pid} has no memory left to read")


class _Usage:
    """The server's CPU time and peak memory, as last read (a process that has just
    exited keeps its last reading)."""

    def __init__(self, pid: int) -> None:
        self.pid = pid
        self.cpu = 0.0
        self.peak_mib = 0.0
        self.read()

    def read(self) -> None:
        with contextlib.suppress(OSError):
            self.cpu, self.peak_mib = process_cpu(self.pid), peak_rss_mib(self.pid)


class _Server:
    """``banqi serve`` of one event, running as its own process."""

    def __init__(self, process: asyncio.subprocess.Process, log: Path) -> None:
        self.process = process
        self.log = log
        self.port = 0

    @classmethod
    async def start(cls, folder: Path, config: Path, run: Path, plan: EventPlan) -> "_Server":
        log = folder / "serve.log"
        args = ["serve", str(config), "--out", str(run), "--port", "0", "--quiet"]
        args += ["--max-per-address", str(2 * plan.entrants + 8)]
        with log.open("wb") as output:
            process = await asyncio.create_subprocess_exec(
                *BANQI, *args, stdin=asyncio.subprocess.DEVNULL, stdout=output, stderr=output
            )
        server = cls(process, log)
        await server._read_address()
        return server

    def said(self) -> str:
        """What the server has printed so far."""
        return self.log.read_text(encoding="utf-8", errors="replace")

    def failure(self, what: str) -> EventError:
        tail = "\n".join(self.said().splitlines()[-20:])
        return EventError(f"{what}; banqi serve said:\n{tail}")

    async def _read_address(self) -> None:
        until = time.monotonic() + SERVER_START_SECONDS
        while time.monotonic() < until:
            said = self.said()
            address = re.search(r"ws://[^\s/]+:(\d+)/arena", said)
            if address:
                self.port = int(address.group(1))
                return
            if self.process.returncode is not None:
                raise self.failure(f"banqi serve exited with status {self.process.returncode}")
            await asyncio.sleep(POLL_SECONDS)
        raise self.failure(f"banqi serve gave no address within {SERVER_START_SECONDS:g}s")

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    async def organiser(self, method: str, path: str) -> "OrganiserView":
        """An organiser's request of the server's API, and its answer."""
        token = re.search(r"organiser\?token=([A-Za-z0-9_-]+)", self.said())
        if token is None:
            raise self.failure("banqi serve gave no organiser's token")
        headers = {ORGANISER_HEADER: token.group(1)}
        request = urllib.request.Request(self.base + path, method=method, headers=headers)

        def ask() -> OrganiserView:
            with urllib.request.urlopen(request, timeout=ORGANISER_SECONDS) as answer:
                return OrganiserView.model_validate_json(answer.read())

        try:
            return await asyncio.to_thread(ask)
        except (OSError, ValidationError) as error:
            raise self.failure(f"the organiser's {method} {path} failed: {error}") from None

    async def stop(self) -> None:
        """Stop the server as Ctrl-C does, and kill it if it does not exit in time."""
        if self.process.returncode is None:
            with contextlib.suppress(ProcessLookupError):
                self.process.send_signal(signal.SIGINT)
            try:
                async with asyncio.timeout(STOP_SECONDS):
                    await self.process.wait()
            except TimeoutError:
                self.process.kill()
                await self.process.wait()


def _storm(load: Load) -> Storm | None:
    return Storm() if load is Load.RELAY_STORM else None


def _spectator_plan(load: Load, plan: EventPlan, base: str) -> SpectatorPlan | None:
    modes = {Load.SPECTATORS: "poll", Load.FLOOD: "flood", Load.SLOW_READERS: "slow"}
    mode = modes.get(load)
    return None if mode is None else SpectatorPlan(base=base, mode=mode, clients=plan.spectators)


async def _until_bound(
    plan: EventPlan, measures: SwarmMeasures, server: _Server, usage: _Usage
) -> list[str]:
    """Return once the event's games have all been played, or once its bound is reached
    and the games being played then have ended (or have had their time); ``usage`` read
    all along. What went wrong, if anything."""
    started = time.monotonic()
    while not measures.finished.is_set():
        usage.read()
        if server.process.returncode is not None:
            raise server.failure(f"banqi serve exited with status {server.process.returncode}")
        elapsed = time.monotonic() - started
        over_time = plan.seconds is not None and elapsed >= plan.seconds
        enough = plan.games is not None and plan.games < scheduled_games(plan)
        if over_time or (enough and len(measures.started) >= (plan.games or 0)):
            return await _drain(measures, server, usage)
        await asyncio.sleep(POLL_SECONDS)
    return []


async def _drain(measures: SwarmMeasures, server: _Server, usage: _Usage) -> list[str]:
    """Pause the event and wait for the games being played to end, as long as they go on
    (a ply within ``DRAIN_STALL_SECONDS``); what went wrong, if anything."""
    await server.organiser("POST", "/api/organiser/pause")
    plies, last_ply = len(measures.thinking), time.monotonic()
    while not measures.finished.is_set():
        usage.read()
        running = (await server.organiser("GET", "/api/organiser")).running
        if not running:
            return []
        if len(measures.thinking) != plies:
            plies, last_ply = len(measures.thinking), time.monotonic()
        elif time.monotonic() - last_ply > DRAIN_STALL_SECONDS:
            games = ", ".join(game.game_id for game in running)
            return [f"no ply for {DRAIN_STALL_SECONDS:g}s after the pause, in games {games}"]
        await asyncio.sleep(4 * POLL_SECONDS)
    return []


def read_records(run: Path) -> list[GameRecord]:
    """The records the event's run folder holds."""
    return [read_record(path) for path in sorted((run / GAMES_DIR).glob("*.json"))]


def overcharges(records: list[GameRecord], measures: SwarmMeasures) -> list[float]:
    """Each measured ply's charged ms less its engine's own time, in ms (under a storm,
    only the plies of relays that stayed connected)."""
    found = []
    for record in records:
        for index, ply in enumerate(record.plies):
            key = (record.game_id, index)
            took = measures.thinking.get(key)
            if took is not None and key in measures.steady:
                found.append(ply.ms - 1000 * took)
    return found


def problems_of(records: list[GameRecord], measures: SwarmMeasures) -> list[str]:
    """Why the event does not count as run: no game, games not ended on the board, relay
    errors."""
    problems = [] if records else ["no game was recorded"]
    ended: dict[str, list[GameRecord]] = {}
    for record in records:
        if not record.reason.is_board_end:
            ended.setdefault(record.reason, []).append(record)
    for reason, games in sorted(ended.items()):
        first = games[0]
        problems.append(
            f"{len(games)} game{'s' if len(games) > 1 else ''} ended by {reason}, the first "
            f"{first.game_id}: {first.detail}"
        )
    if measures.error_count:
        shown = "; ".join(measures.errors[:5])
        problems.append(f"{measures.error_count} relay errors, the first: {shown}")
    return problems


async def play_event(plan: EventPlan, load: Load, folder: Path, number: int = 1) -> RunFigures:
    """Play one event under ``load`` in ``folder`` (in round ``number`` of the bench); its
    figures. EventError if the server fails."""
    config, run, tokens = write_event(folder, plan)
    server = await _Server.start(folder, config, run, plan)
    measures = SwarmMeasures()
    url = f"ws://127.0.0.1:{server.port}/arena"
    watched: SpectatorFigures | None = None
    try:
        usage = _Usage(server.process.pid)
        cpu_before, relays_before = usage.cpu, time.process_time()
        began = time.monotonic()
        swarm = asyncio.create_task(
            run_swarm(
                url, tokens, plan.rules, plan.level, measures, _storm(load), plan.think_seconds
            )
        )
        spectators = _spectator_plan(load, plan, server.base)
        stop_watching = asyncio.Event()
        watching = (
            None
            if spectators is None
            else asyncio.create_task(watch_from_another_process(spectators, stop_watching))
        )
        try:
            late = await _until_bound(plan, measures, server, usage)
            usage.read()
            wall = time.monotonic() - began
            relays_cpu = time.process_time() - relays_before
        finally:
            stop_watching.set()
            if watching is not None:
                watched = await watching
            swarm.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await swarm
    finally:
        await server.stop()
    records = read_records(run)
    plies = sum(len(record.plies) for record in records)
    return RunFigures(
        load=load,
        round=number,
        games=len(records),
        plies=plies,
        wall_seconds=wall,
        server_cpu_seconds=usage.cpu - cpu_before,
        server_ms_per_ply=1000 * (usage.cpu - cpu_before) / max(1, plies),
        relays_cpu_seconds=relays_cpu,
        peak_rss_mib=usage.peak_mib,
        turnaround_ms=Spread.of([1000 * seconds for seconds in measures.turnarounds]),
        overcharge_ms=Spread.of(overcharges(records, measures)),
        relays_lag_ms=Spread.of([1000 * seconds for seconds in measures.lags]),
        relay_connects=measures.connects,
        relay_drops=measures.drops,
        spectators=watched,
        problems=late + problems_of(records, measures),
    )


def play_bench(
    plan: EventPlan,
    loads: list[Load],
    repeat: int,
    engine: str,
    ran: Callable[[RunFigures], None],
) -> ArenaBench:
    """Play one event under each of ``loads`` in turn, ``repeat`` times over, each in a
    folder of its own that is removed after it, telling ``ran`` each one's figures; all of
    them."""
    runs = []
    for number in range(1, repeat + 1):
        for load in loads:
            with tempfile.TemporaryDirectory(prefix="banqi-bench-arena-") as folder:
                figures = asyncio.run(play_event(plan, load, Path(folder), number))
            ran(figures)
            runs.append(figures)
    return ArenaBench(
        entrants=plan.entrants,
        games_at_once=plan.games_at_once,
        games=plan.games,
        seconds=plan.seconds,
        time_control=plan.time_control.describe(),
        rules=plan.rules.name,
        engine=engine,
        think_ms=1000 * plan.think_seconds,
        repeat=repeat,
        runs=runs,
    )
