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
change, so that a long poll (``wait``) wakes only for a change. A refresh does again only
what changed: a live view is read when its file changes, a board rendered and encoded
when its game's shown plies (or whether it is withheld) change (going on from the board
before: only the new plies are played), and what the finished
games make (standings, crosstable, lists, entrants' games and faults) when the records
shown change (``event_results``); the views are put together from those bytes.
"""

import asyncio
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
from tournaments.run_control import ControlState, RunControl

from .event_results import FinishedCache, FinishedGames, RecordKey, finished_summary
from .http_body import Body
from .json_pieces import json_array, json_bytes, json_fields, json_object
from .replay_view import replay_of_record
from .spectator_delay import NO_DELAY, SpectatorDelay
from .watch import BoardReplay, live_board

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


@dataclass(frozen=True)
class _Board:
    """A game's board as spectators see it at some plies, and its JSON pieces."""

    key: tuple[int, int, bool]
    """Plies shown, plies played, withheld."""
    replay: BoardReplay
    """The board at the plies shown, to go on from."""
    players: tuple[str, str]
    json: bytes
    """The board, as the event's list of live games holds it."""
    game: Body
    """The game's own view (``/api/event/games/{id}``)."""
    entry: bytes
    """The game in its players' lists of games."""


@dataclass
class _Views:
    """The views of one refresh, as bytes."""

    event: bytes = b"{}"
    organiser: bytes = b"{}"
    boards: dict[str, Body] = field(default_factory=dict)
    """The spectators' board of each game being shown as played."""
    finished: dict[str, GameRecord] = field(default_factory=dict)
    """The records spectators may see, by game id."""
    entrants: dict[str, Body] = field(default_factory=dict)


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
        self._boards: dict[str, _Board] = {}
        """The board last shown of each game being shown as played, by game id."""
        self._finished = FinishedCache(facts.names, facts.max_failures)
        self._replays: dict[tuple[str, int], Body] = {}
        self._views = _Views()
        self.event_version = 0
        self.organiser_version = 0
        self._event_body = Body.of(_versioned(0, self._views.event))
        self._organiser_body = Body.of(_versioned(0, self._views.organiser))
        self._refreshed = -math.inf
        self._lock = asyncio.Lock()
        self._changed = asyncio.Condition()

    # -- the views ------------------------------------------------------------------------

    async def event(self) -> Body:
        """The spectators' view of the event (``/api/event``), its version first."""
        await self.fresh()
        return self._event_body

    async def organiser(self) -> Body:
        """The organiser's view (``/api/organiser``), its version first."""
        await self.fresh()
        return self._organiser_body

    async def game(self, game_id: str) -> Body | None:
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

    async def entrant(self, name: str) -> Body | None:
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
                self._event_body = await asyncio.to_thread(
                    Body.of, _versioned(self.event_version, views.event)
                )
                changed = True
            if views.organiser != self._views.organiser:
                self.organiser_version += 1
                self._organiser_body = Body.of(_versioned(self.organiser_version, views.organiser))
                changed = True
            self._views = views
            self._refreshed = time.monotonic()
        if changed:
            async with self._changed:
                self._changed.notify_all()

    # -- reading the folder (in a worker thread) ---------------------------------------------

    def _scan_records(self) -> list[tuple[RecordKey, GameRecord]]:
        """Every record of the folder with its key, in the order the games finished (a
        complete record is read once; a withheld one again when its file changes, as it is
        completed)."""
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
        return sorted(
            (((record.game_id, mtime), record) for mtime, record in self._records.values()),
            key=lambda keyed: keyed[1].finished_at,
        )

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

    def _board(self, view: LiveGame, shown: int, withheld: bool) -> _Board:
        """The game's board at ``shown`` plies (rendered again only when they change)."""
        key = (shown, len(view.plies), withheld)
        board = self._boards.get(view.game_id)
        if board is None or board.key != key:
            cut = view.model_copy(update={"plies": view.plies[:shown]})
            replay = board.replay if board is not None else None
            if replay is None or replay.withheld != withheld:
                replay = BoardReplay(view.rules, withheld=withheld)
            drawn = live_board(cut, withheld=withheld, replay=replay)
            if withheld:
                drawn["colours"] = [None, None]  # who took which colour tells a piece
            del drawn["seconds_since_update"]  # it would change the bytes every refresh
            drawn["plies_hidden"] = len(view.plies) - shown
            encoded = json_bytes(drawn)
            entry = {
                "game_id": drawn["game_id"],
                "players": drawn["players"],
                "colours": drawn["colours"],
                "live": True,
            }
            board = _Board(
                key=key,
                replay=replay,
                players=(view.players[0].name, view.players[1].name),
                json=encoded,
                game=Body.of(json_object([("finished", b"false"), ("board", encoded)])),
                entry=json_bytes(entry),
            )
        return board

    def _build(self, status: _Status, now: datetime) -> _Views:
        records = self._scan_records()
        now_live = self._scan_live()
        delay = self.facts.delay
        by_id = {record.game_id: record for _, record in records}
        finished = self._finished.shown(
            [keyed for keyed in records if delay.end_shown(keyed[1].finished_at, now)]
        )
        everyone = self._finished.faults(records)
        boards: dict[str, _Board] = {}
        running: list[dict[str, Any]] = []
        for game_id in sorted(self._live):
            _, view = self._live[game_id]
            if game_id in finished.by_id:
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
        for game_id in [g for g in self._live if g in finished.by_id or g not in boards]:
            del self._live[game_id]  # its end is shown, or it went without a record
        self._boards = boards
        playing = self._playing()
        public_states = self._states(finished.faults.out, boards.keys(), status)
        all_states = self._states(everyone.out, now_live, status)
        lines = {
            name: self._entrant_line(name, public_states[name], finished, status)
            for name in self.facts.names
        }
        event = json_object(
            [
                *json_fields(
                    {
                        "name": self.facts.name,
                        "rules": self.facts.rules,
                        "delay": _delay_json(delay),
                        "paused": status.control.paused,
                        "games": {
                            "total": self.facts.total_games,
                            "finished": finished.count,
                            "live": len(boards),
                        },
                    }
                ),
                ("standings", finished.standings_json),
                ("crosstable", finished.crosstable_json),
                ("live", json_array(board.json for board in boards.values())),
                ("finished", finished.finished_json),
                ("entrants", json_bytes(list(lines.values()))),
            ]
        )
        organiser = {
            "paused": status.control.paused,
            "entrants": [
                self._organiser_line(
                    name, all_states[name], everyone.of.get(name, []), playing, status
                )
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
        entrants = {}
        for name in self.facts.names:
            page = self._entrant_page(name, lines[name], finished, boards.values())
            before = self._views.entrants.get(name)
            entrants[name] = (
                before if before is not None and before.plain == page else Body.of(page)
            )
        return _Views(
            event=event,
            organiser=json_bytes(organiser),
            boards={game_id: board.game for game_id, board in boards.items()},
            finished=dict(finished.by_id),
            entrants=entrants,
        )

    def _playing(self) -> dict[str, list[str]]:
        """The games each engine is playing, by the live views kept."""
        playing: dict[str, list[str]] = {}
        for game_id, (_, view) in sorted(self._live.items()):
            for name in dict.fromkeys(p.name for p in view.players):
                playing.setdefault(name, []).append(game_id)
        return playing

    def _players_of(self, game_id: str) -> tuple[str, ...]:
        known = self._live.get(game_id)
        return tuple(p.name for p in known[1].players) if known is not None else ()

    def _states(
        self, out: Collection[str], playing: Collection[str], status: _Status
    ) -> dict[str, EntrantState]:
        """Each engine's state: forfeited, ``out`` (too many failures), paused, playing one
        of the ``playing`` games, waiting for its connection, or idle."""
        busy = {name for game_id in playing for name in self._players_of(game_id)}
        waiting = {w.waiting_for for w in status.waiting}
        states: dict[str, EntrantState] = {}
        for name in self.facts.names:
            if name in status.control.forfeited:
                states[name] = "forfeited"
            elif name in out:
                states[name] = "out"
            elif name in status.control.paused_entrants:
                states[name] = "paused"
            elif name in busy:
                states[name] = "playing"
            else:
                states[name] = "waiting" if name in waiting else "idle"
        return states

    def _entrant_line(
        self, name: str, state: EntrantState, finished: FinishedGames, status: _Status
    ) -> dict[str, Any]:
        row = finished.rows.get(name)
        remote = name in self.facts.remote
        return {
            "name": name,
            "remote": remote,
            "connected": (name in status.links) if remote else None,
            "state": state,
            "games": row["games"] if row else 0,
            "points": row["points"] if row else 0,
        }

    def _entrant_page(
        self,
        name: str,
        line: Mapping[str, Any],
        finished: FinishedGames,
        boards: Collection[_Board],
    ) -> bytes:
        """An entrant's page: its line of the event's list, its standings row, its games
        (finished, then being played: in place of the line's count) and its faults."""
        page = dict(json_fields(line))
        page["standing"] = json_bytes(finished.rows.get(name))
        page["games"] = json_array(
            [
                *finished.games_json.get(name, []),
                *(board.entry for board in boards if name in board.players),
            ]
        )
        page["faults"] = json_bytes(finished.faults.of.get(name, []))
        return json_object(page.items())

    def _organiser_line(
        self,
        name: str,
        state: EntrantState,
        faults: Sequence[Mapping[str, str]],
        playing: Mapping[str, list[str]],
        status: _Status,
    ) -> dict[str, Any]:
        link = status.links.get(name)
        remote = name in self.facts.remote
        return {
            "name": name,
            "remote": remote,
            "connected": (link is not None) if remote else None,
            "address": link.address if link else None,
            "rtt_ms": None if link is None or link.rtt_ms is None else round(link.rtt_ms, 1),
            "connected_since": link.connected_since.isoformat() if link else None,
            "state": state,
            "playing": playing.get(name, []),
            "faults": len(faults),
            "last_fault": f"{faults[-1]['reason']}: {faults[-1]['detail']}" if faults else None,
            "paused": name in status.control.paused_entrants,
            "forfeited": name in status.control.forfeited,
        }

    def _replay(self, record: GameRecord) -> Body:
        key = (record.game_id, len(record.plies) * 2 + int(record.withheld))
        replay = self._replays.get(key)
        if replay is None:
            if len(self._replays) >= MAX_REPLAYS:
                self._replays.clear()
            summary = finished_summary(record)
            view = replay_of_record(record).model_dump(mode="json")
            replay = Body.of(json_bytes({"finished": True, "summary": summary, "replay": view}))
            self._replays[key] = replay
        return replay


def _versioned(version: int, view: bytes) -> bytes:
    """A view's JSON object with ``"version"`` as its first key (the view's bytes are
    compared without it, to tell a change)."""
    rest = view[1:]
    return b'{"version":%d' % version + (b"," if rest != b"}" else b"") + rest


def _delay_json(delay: SpectatorDelay) -> dict[str, float] | None:
    if delay.plies is not None:
        return {"plies": delay.plies}
    if delay.seconds is not None:
        return {"seconds": delay.seconds}
    return None
