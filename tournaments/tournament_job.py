"""A whole tournament as one call: the referee key and deal book, where the games are
played (sandboxed here, or on the config's cluster), the run folder locked, opened and
resumed (its state written and its records read before any engine starts), the engine
checks, every game played; what a script or the command line runs."""

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from pydantic import BaseModel, ConfigDict

from referee.engine_start import EngineFactory
from referee.macs import MacKeys
from referee.record import GameRecord

from .config import ConfigError, TournamentConfig
from .engine_places import Notices, Playing, check_before_games, playing_for
from .placed_options import placed_options
from .play import prepare, run_tournament
from .report_about import run_asked
from .results import Standings
from .run_access import RunAccess
from .run_adopt import adopt_unsigned
from .run_control import RunControl
from .run_folder import existing_records
from .run_start import taken_run_folder
from .runner import PlayPlace, RunEvents, RunOptions
from .state import STATE_FILE, TOURNAMENT, start_run_folder


@dataclass(frozen=True)
class ArenaRun:
    """What an arena is told of the run it plays: its config as resumed, its games by deal,
    and the organiser's control of it."""

    config: TournamentConfig
    deal_games: Mapping[str, tuple[str, ...]]
    """The game ids of each deal, in schedule order."""
    control: RunControl


class Arena(Protocol):
    """Where remote entrants play: a server their clients connect to (``banqi serve``)."""

    def place(self, start_engine: EngineFactory, run: ArenaRun) -> PlayPlace:
        """Where the run's games are played: remote entrants on their connections, the
        others started by ``start_engine``."""
        ...


class TournamentJob(BaseModel):
    """A tournament to run: its config (its ``cluster`` says where its games are played),
    its run folder, whether it keeps its games' DCTP traffic, and its access."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    config: TournamentConfig
    out: Path
    log_traffic: bool = False
    access: RunAccess = RunAccess()


@dataclass(frozen=True)
class TournamentStart:
    """The tournament as it starts: its config (as resumed), how many games it has and has
    played, how many at once (in words), and a progress suffix (a cluster's)."""

    config: TournamentConfig
    games: int
    already: int
    at_once: str
    status: Callable[[], str]


@dataclass(frozen=True)
class TournamentEvents:
    """What the tournament tells its caller as it goes."""

    notices: Notices
    started: Callable[[TournamentStart], None]
    game_done: Callable[[GameRecord, Standings], None]
    engine_out: Callable[[str, int | None, str], None]


def run_tournament_job(
    job: TournamentJob,
    events: TournamentEvents,
    start_engine: EngineFactory | None = None,
    arena: Arena | None = None,
) -> Standings:
    """Start or resume the tournament in its folder and play it to the end, its engines
    started sandboxed (or by ``start_engine``, if given) or on the config's cluster, its
    remote entrants in the ``arena``; the final standings (also written in the folder).

    The folder (and the deal book, if any) is checked first and its state written, then the
    engines are checked (on a cluster, on every worker as the run starts); a new run refused
    there leaves no folder (``tournaments.run_start``). InputError (or OSError) for what
    cannot be used (the folder's MACs too); EngineChecksInterrupted for Ctrl-C while the
    engines are checked, KeyboardInterrupt during the games (finished ones kept).
    """
    config, out = job.config, job.out
    access = job.access.model_copy(update={"cluster": config.cluster})
    key = access.referee_key()
    macs = MacKeys(key)
    book = access.deal_book()
    if config.remote_names() and arena is None:
        names = ", ".join(sorted(config.remote_names()))
        raise ConfigError(f"remote = true ({names}): remote entrants play only under banqi serve")
    if arena is not None and access.cluster is not None:
        raise ConfigError("a tournament with remote entrants is played here, not on a cluster")
    local = [entry for entry in config.engines if not entry.remote]
    with taken_run_folder(out, [STATE_FILE]) as folder:
        play, cluster = playing_for(access, config, out, local, events.notices, start_engine)
        if access.adopt_unsigned:
            adopt_unsigned(out, [TOURNAMENT], macs)
        state, games = prepare(config, out, macs, book)
        control = None
        if arena is not None:
            control = RunControl(out, [entry.name for entry in state.config.engines])
            deal_games: dict[str, tuple[str, ...]] = {}
            for game in games:
                deal_games[game.setup.deal] = (
                    *deal_games.get(game.setup.deal, ()),
                    game.setup.game_id,
                )
            arena_run = ArenaRun(state.config, deal_games, control)
            play = Playing(
                play.start_engine, arena.place(play.start_engine, arena_run), play.status
            )
        start_run_folder(out, state, macs)
        found = existing_records(out, [g.setup for g in games], macs)
        run = state.config
        folder.engines_start()
        if cluster is None:
            local_run = [entry for entry in run.engines if not entry.remote]
            check_before_games(local_run, play.start_engine, run)
        at_once = play.at_once(run.concurrency, access.concurrency_given)
        if arena is not None:  # played here, remote entrants or not
            at_once = f"{run.concurrency} at once"
        events.started(TournamentStart(run, len(games), len(found), at_once, play.status))
        options = RunOptions(
            key=key,
            out=out,
            events=RunEvents(events.game_done, events.engine_out),
            log_traffic=job.log_traffic,
            book=book,
            found=found,
            asked=run_asked(
                run,
                [entry.spec() for entry in run.engines],
                state.seed,
                state.deal_book,
                [run.own_time(index) for index in range(len(run.engines))],
            ),
            control=control,
            **placed_options(play, run),
        )
        return run_tournament(state, games, options)
