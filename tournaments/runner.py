"""Playing a tournament's games: K at once, each record saved the moment its game ends.

A record is withheld until every game of its deal has one (``referee.deal_records``),
also across a resume; records a killed run left withheld with their deal complete are
completed when the run opens. Standings and failures count a withheld record like any
other: its result is known.

A game's deal is made as the game starts: the shuffle of its secret, derived from the
referee key, or, in a run dealt from a deal book (``RunOptions.book``), the book's entry k
for the run's k-th distinct deal in schedule order (``referee.deal_book``).

Faults are classified by the referee; an engine that fails ``max_failures`` games in
a row is reported loudly and its remaining games are forfeited (each gets a record
with reason ``forfeit``) instead of blocking the run.
"""

import asyncio
from collections.abc import Awaitable, Callable, Iterable, Mapping
from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass
from pathlib import Path

from referee.deal_book import LoadedBook, entries_by_deal
from referee.deal_records import DealRecords
from referee.deals import Deal, dealt
from referee.engine_start import EngineFactory, start_engine_process
from referee.game_runner import PlayedGame, play_game
from referee.game_setup import GameSetup, deal_secret_of
from referee.live import clear_live_views, live_file
from referee.macs import MacKeys
from referee.record import GameRecord

from .config import TournamentConfig
from .failures import FORFEIT_DETAIL, FailureTracker, forfeit_record, games_left
from .from_records import standings_from_records
from .pairs import ScheduledGame
from .report_about import RunAsked, about_run
from .reports import write_reports
from .results import Standings
from .run_control import ORGANISER_FORFEIT_DETAIL, RunControl
from .run_folder import existing_records

GamePlayer = Callable[[GameSetup, Deal, bool, Path | None], Awaitable[PlayedGame]]
"""Plays one game (setup, deal, keep the transcript?, live view path) and returns it
finished; the runner then saves it. The default plays it here with ``play_game``."""

PlayPlace = Callable[[MacKeys], AbstractAsyncContextManager[tuple[GamePlayer, int]]]
"""Opened once for a run, with the keys of its records' MACs (a cluster's workers MAC what
they return): who plays each game, and how many games at once."""


def play_here(start_engine: EngineFactory) -> GamePlayer:
    """Games played in this process, their engines started by ``start_engine``."""

    async def play(
        setup: GameSetup, deal: Deal, keep_traffic: bool, live_path: Path | None
    ) -> PlayedGame:
        return await play_game(
            setup, deal, keep_traffic=keep_traffic, start_engine=start_engine, live_path=live_path
        )

    return play


async def save_whole(saving: Awaitable[None]) -> None:
    """Finish saving what a worker has played even if the run is being stopped; then, if it
    is, stop the worker too."""
    await asyncio.shield(saving)
    task = asyncio.current_task()
    if task is not None and task.cancelling():
        raise asyncio.CancelledError


@dataclass(frozen=True)
class RunEvents:
    """What the runner tells its caller as it goes (progress output lives in the CLI)."""

    game_done: Callable[[GameRecord, Standings], None]
    engine_out: Callable[[str, int, str], None]


@dataclass(frozen=True, kw_only=True)
class RunOptions:
    """How to run a tournament's games: the referee key its deals come from (or the deal book
    they are read from), where to write, whom to tell, how to start engines."""

    key: bytes
    out: Path
    events: RunEvents
    log_traffic: bool = False
    start_engine: EngineFactory = start_engine_process
    book: LoadedBook | None = None
    admit: Callable[[ScheduledGame], bool] | None = None
    """Asked as each queued game is about to start: a game it refuses is not played (None:
    every game is played). An SPRT stops starting pairs once it has its verdict."""
    live_views: bool = True
    """Write each game's public live view (``referee.live``) while it is played. A caller
    turns it off where an unsandboxed engine could read the live view of the other game of
    its deal, played at the same time."""
    play_on: PlayPlace | None = None
    """Where the games are played (None: here, with ``start_engine``, as many at once as the
    settings say); a cluster plays each on a worker (``tournaments.cluster``)."""
    found: Mapping[str, GameRecord] | None = None
    """The records the run folder held, by game id, as the run read them before its engines
    started (``tournaments.run_start``); None: read them as the games start."""
    asked: RunAsked | None = None
    """What the run's config asked, for the reports' block about the run (None: the block
    says only what the records say)."""
    control: RunControl | None = None
    """The organiser's pauses and forfeits (``tournaments.run_control``); None: every queued
    game starts as soon as a worker is free."""


@dataclass(frozen=True)
class RunSettings:
    """What the runner needs of a run's config: its engines' names, how many games at once,
    how many failures in a row put an engine out, and a gauntlet's gauntlet engines (their
    head-to-head lines end the reports)."""

    names: list[str]
    concurrency: int
    max_failures: int
    gauntlet: tuple[str, ...] = ()

    @classmethod
    def of(cls, config: TournamentConfig) -> "RunSettings":
        """The settings of a tournament."""
        names = [spec.name for spec in config.engines]
        return cls(names, config.concurrency, config.max_failures, config.gauntlet_names())


class _Run:
    """The games of one run, the records so far, and who is out."""

    def __init__(
        self, games: Iterable[ScheduledGame], settings: RunSettings, options: RunOptions
    ) -> None:
        self.games = list(games)
        self.options = options
        self.concurrency = settings.concurrency
        self.names = settings.names
        self.gauntlet = settings.gauntlet
        self.deals = [g.setup.deal for g in self.games]
        if options.book is not None:
            options.book.check_fits(g.setup for g in self.games)
        self.entries = entries_by_deal(self.deals)
        self.macs = MacKeys(options.key)
        self.records = (
            dict(options.found)
            if options.found is not None
            else existing_records(options.out, [g.setup for g in self.games], self.macs)
        )
        clear_live_views(options.out)  # of games a killed run was playing
        self.saver = DealRecords(
            options.out, options.key, [g.setup for g in self.games], self.records, options.book
        )
        self.tracker = FailureTracker(settings.max_failures)
        for record in sorted(self.records.values(), key=lambda r: r.finished_at):
            self.tracker.add(record)
        self.queue = [g for g in self.games if g.setup.game_id not in self.records]
        self.lock = asyncio.Lock()
        self.play: GamePlayer = play_here(options.start_engine)

    def ordered(self) -> list[GameRecord]:
        """The records so far, in schedule order."""
        return [
            self.records[g.setup.game_id] for g in self.games if g.setup.game_id in self.records
        ]

    def report_out(self, names: list[str]) -> None:
        """Tell the caller about engines put out and how many of their games are forfeited."""
        for name in names:
            remaining = games_left(self.games, self.records, name)
            if remaining:
                last = self.tracker.last_fault.get(name, "")
                self.options.events.engine_out(name, remaining, last)

    def complete_ready(self) -> None:
        """Complete the records a killed run left withheld though their deal is complete."""
        self.keep(self.saver.complete_ready())

    def keep(self, saved: list[GameRecord]) -> None:
        """Hold the records just saved, as saved."""
        self.records.update((record.game_id, record) for record in saved)

    def store(self, record: GameRecord, transcript: str | None) -> Standings:
        """Save a finished game's record (and the deal's, if it completes it), then
        recompute and write the standings.

        It runs in a worker thread, under the run's lock: the fsyncs and the recomputation
        would otherwise stall the event loop and with it the clocks of the games still
        being played.
        """
        self.keep(self.saver.save(record, transcript))
        records = self.ordered()
        standings = standings_from_records(records, self.names, self.deals)
        about = about_run(records, self.options.asked)
        write_reports(self.options.out, standings, self.gauntlet, about=about)
        return standings

    async def finish(self, record: GameRecord, transcript: str | None = None) -> None:
        """Store a finished game's record and the standings, then tell the caller."""
        async with self.lock:
            newly_out = self.tracker.add(record)
            standings = await asyncio.to_thread(self.store, record, transcript)
            self.report_out(newly_out)
            self.options.events.game_done(self.records[record.game_id], standings)

    async def play_all(self) -> None:
        """Play the queue, ``concurrency`` games at once."""
        await asyncio.gather(*(self.worker() for _ in range(self.concurrency)))

    def deal_of(self, game: ScheduledGame) -> Deal:
        """The game's deal, made as it starts: its book entry, or the shuffle of its secret."""
        book = self.options.book
        if book is not None:
            return book.deal(self.entries[game.setup.deal])
        return dealt(deal_secret_of(game.setup, self.options.key))

    async def next_game(self) -> ScheduledGame | None:
        """The next queued game to start, once the organiser's control lets one start
        (None: the queue is empty)."""
        control = self.options.control
        while self.queue:
            if control is None:
                return self.queue.pop(0)
            index = control.startable(self.queue)
            if index is not None:
                return self.queue.pop(index)
            await control.changed()
        return None

    async def worker(self) -> None:
        """Play (or forfeit) queued games one after the other."""
        options = self.options
        while (game := await self.next_game()) is not None:
            if options.admit is not None and not options.admit(game):
                continue
            deal = self.deal_of(game)
            players = {spec.name for spec in game.setup.players}
            by_organiser = players & (options.control.forfeited() if options.control else set())
            forfeited = (players & self.tracker.out) | by_organiser
            if forfeited:
                detail = ORGANISER_FORFEIT_DETAIL if by_organiser else FORFEIT_DETAIL
                record = forfeit_record(game, forfeited, deal, detail)
                await asyncio.shield(self.finish(record))
                continue
            live_path = live_file(options.out, game.setup.game_id) if options.live_views else None
            played = await self.play(game.setup, deal, options.log_traffic, live_path)
            await save_whole(self.finish(played.record, played.transcript))


@dataclass(frozen=True)
class RunEnd:
    """How a run's games ended: the final standings (also written), and every record, in
    schedule order."""

    standings: Standings
    records: list[GameRecord]


async def run_games(
    games: Iterable[ScheduledGame], config: TournamentConfig, options: RunOptions
) -> Standings:
    """Play every scheduled game of a tournament that has no record in the run folder yet;
    the final standings."""
    return (await run_scheduled(games, RunSettings.of(config), options)).standings


async def run_scheduled(
    games: Iterable[ScheduledGame], settings: RunSettings, options: RunOptions
) -> RunEnd:
    """Play every scheduled game that has no record in the run folder yet.

    ``settings.concurrency`` games at a time; engines already out (from the records of an
    earlier run) are reported first. Returns the final standings (also written) and the
    records.
    """
    run = _Run(games, settings, options)
    run.complete_ready()
    run.report_out(sorted(run.tracker.out))
    if options.play_on is None:
        await run.play_all()
    else:
        async with options.play_on(run.macs) as (run.play, run.concurrency):
            await run.play_all()
    records = run.ordered()
    standings = standings_from_records(records, run.names, run.deals)
    about = about_run(records, options.asked)
    write_reports(options.out, standings, settings.gauntlet, about=about)
    return RunEnd(standings, records)
