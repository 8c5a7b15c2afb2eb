"""Playing a run's games on a Dask cluster (``pip install 'banqi[cluster]'``).

The coordinator stays the only writer of the run folder: each game is one task, sent with
its deal (the secret goes to the worker that plays it, as an argument of that task only)
and its game's MAC key (``referee.macs``: derived from the referee key, which never leaves
the coordinator), played there by the referee with sandboxed engines, and returned as JSON
text, the record MAC'd with that key, that the coordinator validates (the game, its
players, its MAC) and saves like a game played here. A task whose worker dies is run
again from the start elsewhere by Dask; its result comes back once, so a game is saved once.
"""

import asyncio
import contextlib
import json
import platform
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

from banqi_common.errors import InputError
from banqi_engine.rules import RuleSet
from referee.deals import Deal
from referee.engine_check import EngineCheckError, check_engines
from referee.engine_spec import EngineSpec
from referee.engine_start import process_engines
from referee.game_runner import PlayedGame, play_game
from referee.game_setup import GameSetup
from referee.macs import MacKeys, mac_matches, signed
from referee.record import GameRecord, WorkerInfo
from referee.sandbox import SandboxMode, keep_referee_private

from .runner import GamePlayer, PlayPlace

GAMES: Final = "games"
"""The worker resource a game takes one of (``dask worker ... --resources games=N``)."""

NEEDS_DASK: Final = "--cluster needs Dask: pip install 'banqi[cluster]'"

RETRIES: Final = 1
"""Times a game whose task raised is tried again."""


class ClusterError(InputError):
    """A cluster that cannot be used: not reachable, no workers, or an engine that cannot
    start on one of its workers."""


@dataclass(frozen=True)
class WorkerEngines:
    """How a worker starts engines: the sandbox mode and the paths kept out of their sight."""

    sandbox: SandboxMode
    hidden: tuple[str, ...]


def cpu_model() -> str:
    """This machine's CPU model, from ``/proc/cpuinfo`` where there is one."""
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as handle:
            for line in handle:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def play_on_worker(
    setup_json: str, deal: Deal, keep_traffic: bool, engines: WorkerEngines, game_key: bytes
) -> str:
    """The task: play one game here with the referee, return its record (with this worker's
    address and CPU, MAC'd with ``game_key``) and transcript as JSON text."""
    from distributed import get_worker

    keep_referee_private()
    factory, _ = process_engines(engines.sandbox, [Path(p) for p in engines.hidden])
    setup = GameSetup.model_validate_json(setup_json)
    played = asyncio.run(play_game(setup, deal, keep_traffic=keep_traffic, start_engine=factory))
    worker = WorkerInfo(address=get_worker().address, cpu=cpu_model())
    record = signed(played.record.model_copy(update={"worker": worker}), game_key)
    return json.dumps({"record": record.model_dump_json(), "transcript": played.transcript})


async def check_on_worker(
    specs_json: list[str], engines: WorkerEngines, time_ms: int, timeout: float, rules_json: str
) -> str | None:
    """Run on every worker: each engine started and handshaken (and told the rules it must
    be told); the failure, or None."""
    keep_referee_private()
    specs = [EngineSpec.model_validate_json(text) for text in specs_json]
    rules = RuleSet.model_validate_json(rules_json)
    try:
        factory, _ = process_engines(engines.sandbox, [Path(p) for p in engines.hidden])
        await check_engines(specs, factory, time_ms, timeout, rules)
    except InputError as error:
        return str(error)
    return None


def received(text: str, setup: GameSetup, game_key: bytes) -> PlayedGame:
    """A worker's answer as a finished game, checked against the game it was sent and its
    game's MAC key."""
    data = json.loads(text)
    record = GameRecord.model_validate_json(data["record"])
    names = tuple(player.name for player in record.players)
    if record.game_id != setup.game_id or names != tuple(p.name for p in setup.players):
        raise ClusterError(f"a worker returned a record that is not game {setup.game_id}'s")
    if not mac_matches(record, record.mac, game_key):
        raise ClusterError(
            f"a worker returned a record of game {setup.game_id} without its valid MAC"
        )
    transcript = data["transcript"]
    return PlayedGame(record, transcript if isinstance(transcript, str) else None)


@dataclass
class ClusterPlayer:
    """Plays games as tasks on a Dask cluster (a ``tournaments.runner.GamePlayer``)."""

    client: Any
    engines: WorkerEngines
    macs: MacKeys
    running: int = 0
    """Games being played now."""
    connected: int = 0
    """Workers connected when last asked."""

    async def workers(self) -> dict[str, Any]:
        """The workers connected now, by address (also counted for ``status``)."""
        info: dict[str, Any] = (await self.client.scheduler.identity(n_workers=-1))["workers"]
        self.connected = len(info)
        return info

    async def slots(self) -> int:
        """Games the cluster plays at once: its workers' ``games`` resources."""
        workers = await self.workers()
        return sum(int(w.get("resources", {}).get(GAMES, 0)) for w in workers.values())

    def status(self) -> str:
        """A progress suffix: workers connected (when last asked) and games running."""
        workers = f"{self.connected} worker{'' if self.connected == 1 else 's'}"
        games = f"{self.running} game{'' if self.running == 1 else 's'} running"
        return f"[cluster: {workers}, {games}]"

    async def check(
        self, specs: Sequence[EngineSpec], time_ms: int, timeout: float, rules: RuleSet
    ) -> None:
        """Each engine started and handshaken on every worker (with ``rules``); ClusterError
        names the worker and the engine that cannot."""
        fields = set(EngineSpec.model_fields)  # a tournament's entries say more
        texts = [json.dumps(spec.model_dump(mode="json", include=fields)) for spec in specs]
        rules_json = rules.model_dump_json()
        results = await self.client.run(
            check_on_worker, texts, self.engines, time_ms, timeout, rules_json
        )
        if not results:
            raise ClusterError("the cluster has no workers")
        for address, failure in sorted(results.items()):
            if failure is not None:
                raise EngineCheckError(f"on worker {address}: {failure}")

    async def __call__(
        self, setup: GameSetup, deal: Deal, keep_traffic: bool, live_path: Path | None
    ) -> PlayedGame:
        """Play the game on a worker with a free game slot; wait for its record."""
        game_key = self.macs.game(setup.seed, setup.game_id)
        future = self.client.submit(
            play_on_worker,
            setup.model_dump_json(),
            deal,
            keep_traffic,
            self.engines,
            game_key,
            pure=False,
            retries=RETRIES,
            resources={GAMES: 1},
        )
        self.running += 1
        try:
            text = await future
        except asyncio.CancelledError:
            with contextlib.suppress(Exception):  # the scheduler may be gone already
                await future.cancel()
            raise
        except Exception as error:  # e.g. KilledWorker: its workers kept dying
            raise ClusterError(f"game {setup.game_id} failed on the cluster: {error!r}") from None
        finally:
            self.running -= 1
        await self.workers()
        return received(text, setup, game_key)


@asynccontextmanager
async def cluster_player(
    address: str, engines: WorkerEngines, macs: MacKeys, security: Any = None
) -> AsyncIterator[ClusterPlayer]:
    """Connect to the scheduler at ``address`` (or start ``local:N``, a LocalCluster of N
    worker processes with two threads and one game slot each) and give a player, whose
    games' records are MAC'd with ``macs``' game keys."""
    try:
        from distributed import Client, LocalCluster
    except ImportError:
        raise ClusterError(NEEDS_DASK) from None
    cluster: Any = None
    if address.startswith("local:"):
        count = address.removeprefix("local:")
        if not count.isdigit() or int(count) < 1:
            raise ClusterError(f"--cluster {address}: local:N needs a number of workers N >= 1")
        cluster = await LocalCluster(  # type: ignore[no-untyped-call]
            n_workers=int(count),
            processes=True,
            threads_per_worker=2,
            resources={GAMES: 1},
            dashboard_address=None,
            asynchronous=True,
        )
        target: Any = cluster
    else:
        target = address
    try:
        try:
            client: Any = await Client(  # type: ignore[no-untyped-call]
                target, asynchronous=True, timeout=30, security=security
            )
        except OSError as error:
            raise ClusterError(f"cannot reach the Dask scheduler at {address}: {error}") from None
        try:
            yield ClusterPlayer(client, engines, macs)
        finally:
            await client.close()
    finally:
        if cluster is not None:
            await cluster.close()


class Cluster:
    """A run's games played on a cluster: the scheduler's address (or ``local:N``), how its
    workers start engines, and the TLS ``security`` (a ``distributed.Security``, or None)."""

    def __init__(self, address: str, engines: WorkerEngines, security: Any = None) -> None:
        self.address = address
        self.engines = engines
        self.security = security
        self.player: ClusterPlayer | None = None

    def status(self) -> str:
        """A progress suffix once the run is on the cluster, else empty."""
        return "" if self.player is None else f" {self.player.status()}"

    def place(
        self,
        specs: Sequence[EngineSpec],
        time_ms: int,
        timeout: float,
        rules: RuleSet,
        concurrency: int | None,
    ) -> PlayPlace:
        """Where a run plays (``RunOptions.play_on``): connected, every engine checked on
        every worker (with ``rules``), ``concurrency`` games at once (None: the cluster's
        game slots)."""

        @asynccontextmanager
        async def opened(macs: MacKeys) -> AsyncIterator[tuple[GamePlayer, int]]:
            connecting = cluster_player(self.address, self.engines, macs, self.security)
            async with connecting as player:
                await player.check(specs, time_ms, timeout, rules)
                slots = concurrency or await player.slots()
                if slots < 1:
                    raise ClusterError(
                        f"the workers of {self.address} have no {GAMES!r} resource: start "
                        f"them with 'dask worker ... --resources {GAMES}=N'"
                    )
                self.player = player
                try:
                    yield player, slots
                finally:
                    self.player = None

        return opened
