"""The finished games' part of an event's views, rebuilt only when the records change.

Standings, crosstable, the list of finished games, each entrant's finished games and
faults, and who is out: all derived from the records alone, and so kept, the parts the
views are made of as JSON, until a record arrives, is completed (no longer withheld) or
goes. The standings' rating fit, the dearest part, is redone only when a result changes.
"""

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from referee.record import GameRecord
from tournaments.failures import FailureTracker
from tournaments.from_records import standings_from_records
from tournaments.results import Standings

from .json_pieces import json_array, json_bytes
from .watch import STANDING_FIELDS, game_summary

RecordKey = tuple[str, int]
"""A record as read: its game id and its file's mtime (a completed record is rewritten)."""

Fault = dict[str, str]
"""A game an entrant lost by a fault of its engine (or a void game): id, reason, detail."""


@dataclass(frozen=True)
class Faults:
    """Each entrant's faults over some records, oldest first, and who is out for them."""

    key: tuple[RecordKey, ...]
    of: Mapping[str, list[Fault]]
    out: frozenset[str]


@dataclass(frozen=True)
class FinishedGames:
    """The finished games spectators may see, and what their views show of them."""

    key: tuple[RecordKey, ...]
    by_id: Mapping[str, GameRecord]
    """The records as spectators may see them (``public``), by game id."""
    count: int
    rows: Mapping[str, dict[str, Any]]
    """Each entrant's standings row, the fields the pages show."""
    standings_json: bytes
    crosstable_json: bytes
    finished_json: bytes
    """The finished games, in the order they ended, as the event's list shows them."""
    games_json: Mapping[str, list[bytes]]
    """Each entrant's finished games, as its page lists them."""
    faults: Faults


class FinishedCache:
    """The last ``FinishedGames`` and ``Faults`` built, rebuilt when their records change."""

    def __init__(self, names: tuple[str, ...], max_failures: int) -> None:
        self._names = names
        self._max_failures = max_failures
        self._shown: FinishedGames | None = None
        self._faults: Faults | None = None
        self._standings: tuple[tuple[str, ...], Standings] | None = None
        self._summaries: dict[RecordKey, bytes] = {}

    def shown(self, records: Sequence[tuple[RecordKey, GameRecord]]) -> FinishedGames:
        """What spectators see of these records (in the order the games ended)."""
        key = tuple(record_key for record_key, _ in records)
        if self._shown is None or self._shown.key != key:
            self._shown = self._finished(key, [public(record) for _, record in records])
        return self._shown

    def faults(self, records: Sequence[tuple[RecordKey, GameRecord]]) -> Faults:
        """The faults and who is out over these records (in the order the games ended)."""
        key = tuple(record_key for record_key, _ in records)
        if self._faults is None or self._faults.key != key:
            self._faults = self._faults_of(key, [record for _, record in records])
        return self._faults

    def _finished(self, key: tuple[RecordKey, ...], records: list[GameRecord]) -> FinishedGames:
        standings = self._standings_of(records)
        rows = [
            {name: value for name, value in row.model_dump().items() if name in STANDING_FIELDS}
            for row in standings.rows
        ]
        self._summaries = {
            record_key: self._summaries.get(record_key) or json_bytes(finished_summary(record))
            for record_key, record in zip(key, records, strict=True)
        }
        summaries = [self._summaries[record_key] for record_key in key]
        games: dict[str, list[bytes]] = {name: [] for name in self._names}
        for record, summary in zip(records, summaries, strict=True):
            for name in dict.fromkeys(p.name for p in record.players):
                games.setdefault(name, []).append(summary)
        return FinishedGames(
            key=key,
            by_id={record.game_id: record for record in records},
            count=len(records),
            rows={row["name"]: row for row in rows},
            standings_json=json_bytes(rows),
            crosstable_json=json_bytes(_crosstable(standings)),
            finished_json=json_array(summaries),
            games_json=games,
            faults=self._faults_of(key, records),
        )

    def _standings_of(self, records: list[GameRecord]) -> Standings:
        """The standings of these records (the ratings fitted again only when a result
        changes, not when a withheld record is completed)."""
        key = tuple(f"{r.game_id}:{r.winner}:{r.void}" for r in records)
        if self._standings is None or self._standings[0] != key:
            deals = [r.deal for r in records]
            standings = standings_from_records(records, list(self._names), deals)
            self._standings = (key, standings)
        return self._standings[1]

    def _faults_of(self, key: tuple[RecordKey, ...], records: list[GameRecord]) -> Faults:
        tracker = FailureTracker(self._max_failures)
        faults: dict[str, list[Fault]] = {}
        for record in records:
            tracker.add(record)
            names = [p.name for p in record.players]
            for name in dict.fromkeys(names):
                lost = record.winner is not None and names[1 - record.winner] == name
                if record.void or (lost and record.loser_failed):
                    faults.setdefault(name, []).append(
                        {
                            "game_id": record.game_id,
                            "reason": record.reason.value,
                            "detail": record.detail,
                        }
                    )
        return Faults(key=key, of=faults, out=frozenset(tracker.out))


def public(record: GameRecord) -> GameRecord:
    """A record as spectators may see it: a withheld one also without the players'
    colours (the first flip's colour is that of a piece face down in the other game of
    its deal) and so without its MAC."""
    if not record.withheld:
        return record
    players = tuple(p.model_copy(update={"colour": None}) for p in record.players)
    return record.model_copy(update={"players": players, "mac": None})


def finished_summary(record: GameRecord) -> dict[str, Any]:
    """A finished game in the event's lists: its summary and when it ended."""
    return game_summary(record) | {"finished_at": record.finished_at.isoformat()}


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
