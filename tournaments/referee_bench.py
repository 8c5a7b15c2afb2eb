"""The referee's own cost: a tournament between two random players, CPU split by process.

The referee runs in this process; the engines are its children. ``resource``
gives the CPU time of each side, so the referee's overhead per ply is measured
apart from the engines' thinking and start-up.
"""

import resource
import secrets
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from banqi_common.interrupt import run_interruptible
from banqi_engine.rules import RuleSet
from referee.engine_spec import EngineSpec
from referee.record import read_record
from referee.storage import record_path

from .config import TournamentConfig, builtin_engine_command
from .runner import RunEvents, RunOptions, run_games
from .schedule import schedule


@dataclass(frozen=True)
class RefereeBench:
    """What one referee benchmark run measured."""

    games: int
    plies: int
    wall_seconds: float
    referee_cpu_seconds: float
    engine_cpu_seconds: float

    @property
    def referee_ms_per_ply(self) -> float:
        """Referee CPU per ply (judging, clocks, echoes, records, standings), in ms."""
        return 1000 * self.referee_cpu_seconds / max(1, self.plies)


def _cpu(who: int) -> float:
    usage = resource.getrusage(who)
    return usage.ru_utime + usage.ru_stime


def bench_referee(games: int, concurrency: int, rules: RuleSet) -> RefereeBench:
    """Play ``games`` games (rounded up to pairs) between two level-0 engines."""
    engines = tuple(
        EngineSpec(
            name=f"random-{i}", command=builtin_engine_command("--level", "0", "--seed", str(i))
        )
        for i in (1, 2)
    )
    config = TournamentConfig(
        engines=engines, rounds=max(1, (games + 1) // 2), rules=rules, concurrency=concurrency
    )
    with tempfile.TemporaryDirectory(prefix="banqi-bench-") as folder:
        out = Path(folder)
        scheduled = list(schedule(config, seed=1))
        events = RunEvents(lambda record, standings: None, lambda name, left, last: None)
        referee_before = _cpu(resource.RUSAGE_SELF)
        engines_before = _cpu(resource.RUSAGE_CHILDREN)
        start = time.perf_counter()
        run_interruptible(
            run_games(
                scheduled, config, RunOptions(key=secrets.token_bytes(32), out=out, events=events)
            )
        )
        wall = time.perf_counter() - start
        plies = sum(
            len(read_record(record_path(out, game.setup.game_id)).plies) for game in scheduled
        )
    return RefereeBench(
        games=len(scheduled),
        plies=plies,
        wall_seconds=wall,
        referee_cpu_seconds=_cpu(resource.RUSAGE_SELF) - referee_before,
        engine_cpu_seconds=_cpu(resource.RUSAGE_CHILDREN) - engines_before,
    )
