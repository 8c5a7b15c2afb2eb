"""Playing a tournament: K games at once, each record saved the moment its game ends.

Faults are classified by the referee; an engine that faults ``max_failures``
games in a row is reported loudly and its remaining games are forfeited (each
gets a record with reason ``forfeit``) instead of blocking the run.
"""

import asyncio
from collections.abc import Callable, Container
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

from banqi_engine.layout import format_layout
from referee.deals import layout_from_secret
from referee.game_runner import play_game
from referee.reasons import Reason
from referee.record import GameRecord, PlayerInfo
from referee.storage import save_game, traffic_path

from .reports import write_reports
from .results import GameResult, Standings
from .schedule import ScheduledGame
from .standings import compute_standings

FAILURES = frozenset(
    {Reason.CRASH, Reason.STALL, Reason.UNREADABLE_REPLY, Reason.ILLEGAL_MOVE, Reason.TIME_FORFEIT}
)
"""Reasons that count as the loser's engine failing, for the failures-in-a-row rule."""


def game_result(record: GameRecord, pair_ids: dict[str, int]) -> GameResult:
    """A record as the statistics see it: seats in move order, winner by seat."""
    first = record.first
    names = (record.players[first].name, record.players[1 - first].name)
    winner = None if record.winner is None else (0 if record.winner == first else 1)
    return GameResult(first=names[0], second=names[1], winner=winner, pair=pair_ids[record.deal])


def standings_from_records(
    records: list[GameRecord], names: list[str], deals: list[str]
) -> Standings:
    """Standings recomputed from the records alone."""
    pair_ids = {deal: index for index, deal in enumerate(dict.fromkeys(deals))}
    return compute_standings((game_result(r, pair_ids) for r in records), names)


@dataclass
class FailureTracker:
    """Faults in a row per engine, and which engines are out of the tournament."""

    limit: int
    in_a_row: dict[str, int] = field(default_factory=dict)
    last_fault: dict[str, str] = field(default_factory=dict)
    out: set[str] = field(default_factory=set)

    def add(self, record: GameRecord) -> list[str]:
        """Count a finished game; return the engines it puts out of the tournament."""
        if record.reason == Reason.FORFEIT:
            return []
        loser = None if record.winner is None else record.players[1 - record.winner].name
        newly_out = []
        for player in record.players:
            if player.name == loser and record.reason in FAILURES:
                self.in_a_row[player.name] = self.in_a_row.get(player.name, 0) + 1
                self.last_fault[player.name] = f"{record.reason.value}: {record.detail}"
                if self.in_a_row[player.name] >= self.limit and player.name not in self.out:
                    self.out.add(player.name)
                    newly_out.append(player.name)
            else:
                self.in_a_row[player.name] = 0
        return newly_out


def games_left(games: list[ScheduledGame], records: Container[str], name: str) -> int:
    """How many scheduled games of engine ``name`` have no record yet."""
    return sum(
        1
        for game in games
        if game.setup.game_id not in records and name in (s.name for s in game.setup.players)
    )


def forfeit_record(game: ScheduledGame, out_engines: set[str]) -> GameRecord:
    """The record of a game not played because an engine was put out of the tournament."""
    setup = game.setup
    names = [spec.name for spec in setup.players]
    losers = [index for index, name in enumerate(names) if name in out_engines]
    winner = None if len(losers) == 2 else 1 - losers[0]
    if winner is None:
        result = "draw: both engines forfeited"
    else:
        result = f"{names[winner]} wins: {names[1 - winner]} forfeited"
    now = datetime.now(UTC)
    return GameRecord(
        game_id=setup.game_id,
        rules=setup.rules,
        time_control=setup.time_control,
        players=(
            PlayerInfo(name=names[0], command=list(setup.players[0].command)),
            PlayerInfo(name=names[1], command=list(setup.players[1].command)),
        ),
        first=setup.first,
        seed=setup.seed,
        deal=setup.deal,
        deal_secret=setup.deal_secret,
        layout=format_layout(layout_from_secret(setup.deal_secret)),
        started_at=now,
        finished_at=now,
        plies=[],
        winner=winner,
        reason=Reason.FORFEIT,
        result=result,
        detail="the engine failed too many games in a row",
        end_ply=0,
    )


def store(
    out: Path, record: GameRecord, ordered: list[GameRecord], names: list[str], deals: list[str]
) -> Standings:
    """Save a finished game's record, then recompute and write the standings.

    It runs in a worker thread: the fsyncs and the recomputation would otherwise stall
    the event loop and with it the clocks of the games still being played.
    """
    save_game(out, record)
    standings = standings_from_records(ordered, names, deals)
    write_reports(out, standings)
    return standings


@dataclass
class RunEvents:
    """What the runner tells its caller as it goes (progress output lives in the CLI)."""

    game_done: Callable[[GameRecord, Standings], None]
    engine_out: Callable[[str, int, str], None]


async def run_games(
    games: list[ScheduledGame],
    done: dict[str, GameRecord],
    out: Path,
    concurrency: int,
    tracker: FailureTracker,
    names: list[str],
    log_traffic: bool,
    events: RunEvents,
) -> Standings:
    """Play every scheduled game that has no record yet, ``concurrency`` at a time."""
    deals = [g.setup.deal for g in games]
    records = dict(done)
    queue = [g for g in games if g.setup.game_id not in done]
    lock = asyncio.Lock()

    async def finish(record: GameRecord) -> None:
        async with lock:
            records[record.game_id] = record
            newly_out = tracker.add(record)
            ordered = [records[g.setup.game_id] for g in games if g.setup.game_id in records]
            standings = await asyncio.to_thread(store, out, record, ordered, names, deals)
            for name in newly_out:
                remaining = games_left(games, records, name)
                events.engine_out(name, remaining, tracker.last_fault.get(name, ""))
            events.game_done(record, standings)

    async def worker() -> None:
        while queue:
            game = queue.pop(0)
            players = {spec.name for spec in game.setup.players}
            if players & tracker.out:
                await finish(forfeit_record(game, players & tracker.out))
                continue
            log = traffic_path(out, game.setup.game_id) if log_traffic else None
            await finish(await play_game(game.setup, log))

    await asyncio.gather(*(worker() for _ in range(concurrency)))
    ordered = [records[g.setup.game_id] for g in games if g.setup.game_id in records]
    standings = standings_from_records(ordered, names, deals)
    write_reports(out, standings)
    return standings
