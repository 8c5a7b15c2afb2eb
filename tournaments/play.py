"""Running a whole tournament from a config and a run folder (resume included)."""

from pathlib import Path

from referee.deals import new_seed
from referee.interrupt import run_interruptible

from .config import TournamentConfig
from .results import Standings
from .runner import RunOptions, run_games
from .schedule import ScheduledGame, schedule
from .state import TournamentState, open_run


def prepare(config: TournamentConfig, out: Path) -> tuple[TournamentState, list[ScheduledGame]]:
    """Open (or resume) the run folder and build the schedule."""
    state = open_run(out, config, new_seed())
    return state, schedule(state.config, state.seed)


def run_tournament(
    state: TournamentState, games: list[ScheduledGame], options: RunOptions
) -> Standings:
    """Play the games that have no record yet; return the final standings.

    Ctrl-C stops the run cleanly and raises KeyboardInterrupt: the games being played are
    cut short (their engines told to quit), the records being saved are finished.
    """
    return run_interruptible(run_games(games, state.config, options))
