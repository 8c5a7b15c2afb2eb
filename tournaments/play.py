"""Running a whole tournament from a config and a run folder (resume included)."""

from pathlib import Path

from banqi_common.interrupt import run_interruptible
from referee.deal_book import LoadedBook, check_same_book, stamp_of
from referee.deals import new_seed
from referee.macs import MacKeys

from .config import TournamentConfig
from .pairs import ScheduledGame
from .results import Standings
from .run_size import check_memory
from .runner import RunOptions, run_games
from .schedule import schedule
from .state import STATE_FILE, TournamentState, open_run


def prepare(
    config: TournamentConfig, out: Path, macs: MacKeys, book: LoadedBook | None = None
) -> tuple[TournamentState, list[ScheduledGame]]:
    """Open (or resume) the run folder and build the schedule; with a deal ``book``, refuse
    one other than a resumed run's, or one with fewer deals than the schedule has or with an
    opening its rules do not allow. A
    schedule too big for the machine's memory is refused before it is built."""
    check_memory(config.games_total())
    resumed = (out / STATE_FILE).exists()
    state = open_run(out, config, new_seed(), macs)
    if resumed:
        check_same_book(state.deal_book, book, out)
    else:
        state = state.model_copy(update={"deal_book": stamp_of(book)})
    games = list(schedule(state.config, state.seed))
    if book is not None:
        book.check_fits(game.setup for game in games)
    return state, games


def run_tournament(
    state: TournamentState, games: list[ScheduledGame], options: RunOptions
) -> Standings:
    """Play the games that have no record yet; return the final standings.

    Ctrl-C stops the run cleanly and raises KeyboardInterrupt: the games being played are
    cut short (their engines told to quit), the records being saved are finished.
    """
    return run_interruptible(run_games(games, state.config, options))
