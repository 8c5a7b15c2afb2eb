"""An event as its spectators and its organiser see it, built from its run folder.

The feed reads what the run writes anyway: each game's public live view
(``referee.live``: only what its engines were told), the records of finished games (a
record whose deal has a game still running is withheld: no layout, flips as ``b6(?)``)
and nothing else: never a transcript, a deal secret or the referee's key. From them, at
most every ``REFRESH_SECONDS`` and only while someone asks, it builds the spectators'
view, kept behind the games by the delay (``spectator_delay``), and the organiser's,
which is not delayed and adds what the arena knows (connections, lag, games waiting for
an entrant) and the organiser's pauses and forfeits (``tournaments.run_control``).

Each view is built once per refresh, in a worker thread so that the event loop keeps
serving the games' frames, and kept as the bytes every request gets: a thousand
spectators cost the games no more than one. A view's version goes up when its bytes
change, so that a long poll (``wait``) wakes only for a change.
"""

import asyncio
import json
import math
import os
import random
import time
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Final, Literal, Protocol

from pydantic import BaseModel, ConfigDict

from banqi_common.errors import InputError
from referee.live import LIVE_DIR, LiveGame, read_live
from referee.record import GameRecord, read_record
from referee.storage import GAMES_DIR
from tournaments.failures import FailureTracker
from tournaments.from_records import standings_from_records
from tournaments.results import Standings
from tournaments.run_control import ControlState, RunControl

from .replay_view import replay_of_record
from .spectator_delay import NO_DELAY, SpectatorDelay
from .watch import STANDING_FIELDS, game_summary, live_board

REFRESH_SECONDS: Final = 0.5
"""Shortest time between two reads of the run folder."""
LONG_POLL_SECONDS: Final = 20.0
"""Longest a ``?since=`` request waits for a change."""
WAKE_SPREAD_SECONDS: Final = 0.25
"""Over how long the answers of the long polls a change wakes are spread."""
MAX_REPLAYS: Final = 256
"""Replays of finished games kept built (the cache starts again past it)."""

EntrantState = Literal["playing", "waiting", "idle", "paused", "forfeited", "out"]


class EntrantLink(BaseModel):
    """A remote entrant's open connection, as the arena sees it."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    address: str
    rtt_ms: float | None
    connected_since: datetime


class WaitingGame(BaseModel):
    """A game that cannot start until a remote entrant connects."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    game_id: str
    players: tuple[str, str]
    waiting_for: str
    since: datetime


class ArenaStatus(Protocol):
    """What the arena tells the feed: its connections and the games waiting for one."""

    def links(self) -> Mapping[str, EntrantLink]:
        """The open connection of each connected remote entrant."""
        ...

    def waiting(self) -> Sequence[WaitingGame]:
        """The games waiting for an entrant to connect."""
        ...


@dataclass(frozen=True)
class EventFacts:
    """What the feed knows of the event beyond its folder."""

    name: str
    rules: str
    names: tuple[str, ...]
    """Every engine, in the config's order."""
    remote: frozenset[str]
    max_failures: int
    total_games: int
    deal_games: Mapping[str, tuple[str, ...]]
    """The games of each deal (paired games share one, and so the pieces turned up)."""
    delay: SpectatorDelay = NO_DELAY


@dataclass(frozen=True)
class _Status:
    """What the arena and the organiser's control said, read in the event loop."""

    links: Mapping[str, EntrantLink]
    waiting: Sequence[WaitingGame]
    control: ControlState


@dataclass
class _Views:
    """The views of one refresh, as bytes."""

    event: bytes = b"{}"
    organiser: bytes = b"{}"
    boards: dict[str, bytes] = field(default_factory=dict)
    """The spectators' board of each game being shown as played."""
    finished: dict[str, GameRecord] = field(default_factory=dict)
    """The records spectators may see, by game id."""
    entrants: dict[str, bytes] = field(default_factory=dict)


def json_bytes(data: Any) -> bytes:
    """Compact JSON (an infinite Elo as the string ``+inf`` or ``-inf``)."""
    return json.dumps(_finite(data), separators=(",", ":")).encode()


def _finite(data: Any) -> Any:
    if isinstance(data, float) and math.isinf(data):
        return "+inf" if data > 0 else "-inf"
    if isinstance(data, dict):
        return {key: _finite(value) for key, value in data.items()}
    if isinstance(data, list | tuple):
        return [_finite(value) for value in data]
    return data


class EventFeed:
    """The spectators' and the organiser's views of one event's run folder."""

    def __init__(
        self,
        folder: Path,
        facts: EventFacts,
        arena: ArenaStatus | None = None,
        control: RunControl | None = None,
        clock: Callable[[], datetime] = lambda: datetime.now(UTC),
    ) -> None:
        self.folder = folder
        self.facts = facts
        self._arena = arena
        self._control = control
        self._clock = clock
        self._records: dict[str, tuple[int, GameRecord]] = {}
        """Records by file name: the file's mtime and the record."""
        self._live: dict[str, tuple[int, LiveGame]] = {}
        """The last live view seen of each game, by game id, with its file's mtime."""
        self._boards: dict[tuple[str, int, int, bool], dict[str, Any]] = {}
        """Boards of games being played, by game id, plies shown and played, withheld."""
        self._standings: tuple[tuple[str, ...], Standings] | None = None
        self._replays: dict[tuple[str, int], bytes] = {}
        self._views = _Views()
        self.event_version = 0
        self.organiser_version = 0
        self._refreshed = -math.inf
        self._lock = asyncio.Lock()
        self._changed = asyncio.Condition()

    # -- the views ------------------------------------------------------------------------

    async def event(self) -> bytes:
        """The spectators' view of the event (``/api/event``), its version first."""
        await self.fresh()
        return _versioned(self.event_version, self._views.event)

    async def organiser(self) -> bytes:
        """The organiser's view (``/api/organiser``), its version first."""
        await self.fresh()
        return _versioned(self.organiser_version, self._views.organiser)

    async def game(self, game_id: str) -> bytes | None:
        """A game as spectators may see it (None: no such game shown)."""
        await self.fresh()
        board = self._views.boards.get(game_id)
        if board is not None:
            return board
        record = self._views.finished.get(game_id)
        if record is None:
            return None
        return await asyncio.to_thread(self._replay, record)

    async def record(self, game_id: str) -> GameRecord | None:
        """The record of a finished game spectators may see (None: none)."""
        await self.fresh()
        return self._views.finished.get(game_id)

    async def entrant(self, name: str) -> bytes | None:
        """An entrant's page (None: no such entrant)."""
        await self.fresh()
        return self._views.entrants.get(name)

    async def wait(self, which: Literal["event", "organiser"], since: int) -> None:
        """Return once the view's version is past ``since``, or after ``LONG_POLL_SECONDS``.

        Woken by a change, a wait returns after a random share of ``WAKE_SPREAD_SECONDS``:
        the answers of a crowd of spectators are spread out, so that they never hold the
        event loop, and with it the games' frames and clocks, all at once."""
        deadline = time.monotonic() + LONG_POLL_SECONDS
        woken = False
        while True:
            await self.fresh()
            version = self.event_version if which == "event" else self.organiser_version
            left = deadline - time.monotonic()
            if version > since or left <= 0:
                break
            woken = True
            try:
                async with self._changed:
                    await asyncio.wait_for(self._changed.wait(), min(left, REFRESH_SECONDS))
            except TimeoutError:
                pass
        if woken and version > since:
            await asyncio.sleep(random.random() * WAKE_SPREAD_SECONDS)

    def invalidate(self) -> None:
        """Make the next request read the folder again (the organiser just acted)."""
        self._refreshed = -math.inf

    async def fresh(self) -> None:
        """Refresh the views if the last refresh is older than ``REFRESH_SECONDS``."""
        if time.monotonic() - self._refreshed < REFRESH_SECONDS:
            return
        async with self._lock:
            if time.monotonic() - self._refreshed < REFRESH_SECONDS:
                return
            status = _Status(
                dict(self._arena.links()) if self._arena else {},
                list(self._arena.waiting()) if self._arena else [],
                self._control.state if self._control else ControlState(),
            )
            views = await asyncio.to_thread(self._build, status, self._clock())
            changed = False
            if views.event != self._views.event:
                self.event_version += 1
                changed = True
            if views.organiser != self._views.organiser:
                self.organiser_version += 1
                changed = True
            self._views = views
            self._refreshed = time.monotonic()
        if changed:
            async with self._changed:
                self._changed.notify_all()

    # -- reading the folder (in a worker thread) ---------------------------------------------

    def _scan_records(self) -> list[GameRecord]:
        """Every record of the folder, in the order the games finished (a complete record
        is read once; a withheld one again when its file changes, as it is completed)."""
        folder = self.folder / GAMES_DIR
        try:
            names = [name for name in os.listdir(folder) if name.endswith(".json")]
        except OSError:
            names = []
        for name in names:
            known = self._records.get(name)
            if known is not None and not known[1].withheld:
                continue
            try:
                mtime = os.stat(folder / name).st_mtime_ns
                if known is not None and known[0] == mtime:
                    continue
                self._records[name] = (mtime, read_record(folder / name))
            except (OSError, InputError):
                continue  # being written, or not a record of this run
        kept = set(names)
        for name in [name for name in self._records if name not in kept]:
            del self._records[name]
        return sorted((r for _, r in self._records.values()), key=lambda r: r.finished_at)

    def _scan_live(self) -> set[str]:
        """Read the live views that changed; the game ids that have one now."""
        folder = self.folder / LIVE_DIR
        try:
            names = [name for name in os.listdir(folder) if name.endswith(".json")]
        except OSError:
            names = []
        now_live = set()
        for name in names:
            game_id = name[: -len(".json")]
            try:
                mtime = os.stat(folder / name).st_mtime_ns
                known = self._live.get(game_id)
                if known is None or known[0] != mtime:
                    view = read_live(folder / name)
                    if view.game_id != game_id:
                        continue
                    self._live[game_id] = (mtime, view)
            except (OSError, InputError):
                if game_id not in self._live:
                    continue  # being replaced: the last one read stands
            now_live.add(game_id)
        return now_live

    def _board(self, view: LiveGame, shown: int, withheld: bool) -> dict[str, Any]:
        key = (view.game_id, shown, len(view.plies), withheld)
        board = self._boards.get(key)
        if board is None:
            cut = view.model_copy(update={"plies": view.plies[:shown]})
            board = live_board(cut, withheld=withheld)
            if withheld:
                board["colours"] = [None, None]  # who took which colour tells a piece
            del board["seconds_since_update"]  # it would change the bytes every refresh
            board["plies_hidden"] = len(view.plies) - shown
            self._boards[key] = board
        return board

    def _build(self, status: _Status, now: datetime) -> _Views:
        records = self._scan_records()
        now_live = self._scan_live()
        delay = self.facts.delay
        by_id = {record.game_id: record for record in records}
        shown_records = [_public(r) for r in records if delay.end_shown(r.finished_at, now)]
        shown_ids = {record.game_id for record in shown_records}
        boards: dict[str, dict[str, Any]] = {}
        running: list[dict[str, Any]] = []
        for game_id in sorted(self._live):
            _, view = self._live[game_id]
            if game_id in shown_ids:
                continue  # its end is shown: its record speaks for it
            if game_id not in now_live and game_id not in by_id:
                continue  # gone without a record: not a game of this run any more
            shown = delay.shown_plies(view.plies, view.updated_at, now)
            deal = self.facts.deal_games.get(view.deal)  # unknown: withheld, to be safe
            withheld = deal is None or bool(set(deal) - {game_id} - by_id.keys())
            boards[game_id] = self._board(view, shown, withheld)
            if game_id in now_live:
                running.append(
                    {
                        "game_id": game_id,
                        "players": [p.name for p in view.players],
                        "plies": len(view.plies),
                    }
                )
        for game_id in [g for g in self._live if g in shown_ids or g not in boards]:
            del self._live[game_id]  # its end is shown, or it went without a record
        self._boards = {key: b for key, b in self._boards.items() if key[0] in boards}
        standings = self._standings_of(shown_records)
        public_states = self._states(shown_records, boards.keys(), status)
        all_states = self._states(records, now_live, status)
        event = {
            "name": self.facts.name,
            "rules": self.facts.rules,
            "delay": _delay_json(delay),
            "paused": status.control.paused,
            "games": {
                "total": self.facts.total_games,
                "finished": len(shown_records),
                "live": len(boards),
            },
            "standings": _rows(standings),
            "crosstable": _crosstable(standings),
            "live": list(boards.values()),
            "finished": [_finished(r) for r in shown_records],
            "entrants": [
                self._entrant_line(name, public_states[name], standings, status)
                for name in self.facts.names
            ],
        }
        organiser = {
            "paused": status.control.paused,
            "entrants": [
                self._organiser_line(name, all_states[name], records, status)
                for name in self.facts.names
            ],
            "waiting": [
                {
                    "game_id": w.game_id,
                    "players": list(w.players),
                    "waiting_for": [w.waiting_for],
                    "since": w.since.isoformat(),
                }
                for w in status.waiting
            ],
            "running": running,
        }
        entrants = {
            name: json_bytes(
                {
                    **self._entrant_line(name, public_states[name], standings, status),
                    "standing": _row_of(standings, name),
                    "games": [
                        game_summary(r) | {"finished_at": r.finished_at.isoformat()}
                        for r in shown_records
                        if name in (p.name for p in r.players)
                    ]
                    + [
                        {
                            "game_id": b["game_id"],
                            "players": b["players"],
                            "colours": b["colours"],
                            "live": True,
                        }
                        for b in boards.values()
                        if name in b["players"]
                    ],
                    "faults": _faults(shown_records, name),
                }
            )
            for name in self.facts.names
        }
        return _Views(
            event=json_bytes(event),
            organiser=json_bytes(organiser),
            boards={
                game_id: json_bytes({"finished": False, "board": b})
                for game_id, b in boards.items()
            },
            finished={r.game_id: r for r in shown_records},
            entrants=entrants,
        )

    def _players_of(self, game_id: str) -> tuple[str, ...]:
        known = self._live.get(game_id)
        return tuple(p.name for p in known[1].players) if known is not None else ()

    def _standings_of(self, records: list[GameRecord]) -> Standings:
        """The standings of these records (recomputed only when they change)."""
        key = tuple(f"{r.game_id}:{r.winner}:{r.void}" for r in records)
        if self._standings is None or self._standings[0] != key:
            deals = [r.deal for r in records]
            standings = standings_from_records(records, list(self.facts.names), deals)
            self._standings = (key, standings)
        return self._standings[1]

    def _states(
        self, records: list[GameRecord], playing: Collection[str], status: _Status
    ) -> dict[str, EntrantState]:
        """Each engine's state: forfeited, out (too many failures), paused, playing one of
        the ``playing`` games, waiting for its connection, or idle."""
        tracker = FailureTracker(self.facts.max_failures)
        for record in records:
            tracker.add(record)
        busy = {name for game_id in playing for name in self._players_of(game_id)}
        waiting = {w.waiting_for for w in status.waiting}
        states: dict[str, EntrantState] = {}
        for name in self.facts.names:
            if name in status.control.forfeited:
                states[name] = "forfeited"
            elif name in tracker.out:
                states[name] = "out"
            elif name in status.control.paused_entrants:
                states[name] = "paused"
            elif name in busy:
                states[name] = "playing"
            else:
                states[name] = "waiting" if name in waiting else "idle"
        return states

    def _entrant_line(
        self, name: str, state: EntrantState, standings: Standings, status: _Status
    ) -> dict[str, Any]:
        row = _row_of(standings, name)
        remote = name in self.facts.remote
        return {
            "name": name,
            "remote": remote,
            "connected": (name in status.links) if remote else None,
            "state": state,
            "games": row["games"] if row else 0,
            "points": row["points"] if row else 0,
        }

    def _organiser_line(
        self, name: str, state: EntrantState, records: list[GameRecord], status: _Status
    ) -> dict[str, Any]:
        link = status.links.get(name)
        faults = _faults(records, name)
        remote = name in self.facts.remote
        return {
            "name": name,
            "remote": remote,
            "connected": (link is not None) if remote else None,
            "address": link.address if link else None,
            "rtt_ms": None if link is None or link.rtt_ms is None else round(link.rtt_ms, 1),
            "connected_since": link.connected_since.isoformat() if link else None,
            "state": state,
            "playing": sorted(
                game_id
                for game_id, (_, view) in self._live.items()
                if name in (p.name for p in view.players)
            ),
            "faults": len(faults),
            "last_fault": f"{faults[-1]['reason']}: {faults[-1]['detail']}" if faults else None,
            "paused": name in status.control.paused_entrants,
            "forfeited": name in status.control.forfeited,
        }

    def _replay(self, record: GameRecord) -> bytes:
        key = (record.game_id, len(record.plies) * 2 + int(record.withheld))
        replay = self._replays.get(key)
        if replay is None:
            if len(self._replays) >= MAX_REPLAYS:
                self._replays.clear()
            finished = _finished(record)
            view = replay_of_record(record).model_dump(mode="json")
            replay = json_bytes({"finished": True, "summary": finished, "replay": view})
            self._replays[key] = replay
        return replay


def _versioned(version: int, view: bytes) -> bytes:
    """A view's JSON object with ``"version"`` as its first key (the view's bytes are
    compared without it, to tell a change)."""
    rest = view[1:]
    return b'{"version":%d' % version + (b"," if rest != b"}" else b"") + rest


def _public(record: GameRecord) -> GameRecord:
    """A record as spectators may see it: a withheld one also without the players'
    colours (the first flip's colour is that of a piece face down in the other game of
    its deal) and so without its MAC."""
    if not record.withheld:
        return record
    players = tuple(p.model_copy(update={"colour": None}) for p in record.players)
    return record.model_copy(update={"players": players, "mac": None})


def _delay_json(delay: SpectatorDelay) -> dict[str, float] | None:
    if delay.plies is not None:
        return {"plies": delay.plies}
    if delay.seconds is not None:
        return {"seconds": delay.seconds}
    return None


def _finished(record: GameRecord) -> dict[str, Any]:
    return game_summary(record) | {"finished_at": record.finished_at.isoformat()}


def _rows(standings: Standings) -> list[dict[str, Any]]:
    return [
        {key: value for key, value in row.model_dump().items() if key in STANDING_FIELDS}
        for row in standings.rows
    ]


def _row_of(standings: Standings, name: str) -> dict[str, Any] | None:
    for row in _rows(standings):
        if row["name"] == name:
            return row
    return None


def _crosstable(standings: Standings) -> dict[str, Any]:
    names = [row.name for row in standings.rows]
    cells: list[list[dict[str, Any] | None]] = []
    for first in names:
        line: list[dict[str, Any] | None] = []
        for second in names:
            cell = standings.crosstable.get(first, {}).get(second)
            if first == second or cell is None:
                line.append(None)
                continue
            line.append(
                {
                    "wins": cell.wins,
                    "draws": cell.draws,
                    "losses": cell.losses,
                    "points": cell.wins + cell.draws / 2,
                    "games": cell.wins + cell.draws + cell.losses + cell.void,
                }
            )
        cells.append(line)
    return {"names": names, "cells": cells}


def _faults(records: list[GameRecord], name: str) -> list[dict[str, str]]:
    """The games ``name`` lost by a fault of its engine (or that were void), oldest first."""
    faults = []
    for record in records:
        names = [p.name for p in record.players]
        if name not in names:
            continue
        lost = record.winner is not None and names[1 - record.winner] == name
        if record.void or (lost and record.loser_failed):
            faults.append(
                {"game_id": record.game_id, "reason": record.reason.value, "detail": record.detail}
            )
    return faults
