"""Running a whole tournament from a config and a run folder (resume included)."""

import asyncio
from pathlib import Path

from referee.deals import new_seed

from .config import TournamentConfig
from .results import Standings
from .runner import FailureTracker, RunEvents, games_left, run_games
from .schedule import ScheduledGame, schedule
from .state import TournamentState, existing_records, open_run


def prepare(
    config: TournamentConfig, out: Path, key: bytes
) -> tuple[TournamentState, list[ScheduledGame]]:
    """Open (or resume) the run folder and build the schedule."""
    state = open_run(out, config, new_seed())
    return state, schedule(state.config, state.seed, key)


def run_tournament(
    state: TournamentState,
    games: list[ScheduledGame],
    out: Path,
    events: RunEvents,
    log_traffic: bool = False,
) -> Standings:
    """Play the games that have no record yet; return the final standings."""
    done = existing_records(out, [g.setup.game_id for g in games])
    tracker = FailureTracker(state.config.max_failures)
    for record in sorted(done.values(), key=lambda r: r.finished_at):
        tracker.add(record)
    for name in sorted(tracker.out):
        remaining = games_left(games, done, name)
        if remaining:
            events.engine_out(name, remaining, tracker.last_fault.get(name, ""))
    names = [spec.name for spec in state.config.engines]
    return asyncio.run(
        run_games(games, done, out, state.config.concurrency, tracker, names, log_traffic, events)
    )
