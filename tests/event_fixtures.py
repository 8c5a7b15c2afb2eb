"""A stand-in for the event pages of ``banqi serve``: the pages themselves (``/`` and
``/organiser``, the static files) and answers of the shapes of the event's web API, made
from a played match (real boards, replays and records), so that the pages can be driven in
a browser with no arena behind them. The organiser's commands are noted (``posts``) and
change what the next answers say; ``advance`` plays one more ply of the first live game."""

import asyncio
import threading
from datetime import UTC, datetime
from typing import Any, Final

from spectator_data import live_view
from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import (
    FileResponse,
    JSONResponse,
    PlainTextResponse,
    RedirectResponse,
    Response,
)
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from banqi_engine.position import Position
from banqi_gui.replay_view import replay_of_record
from banqi_gui.watch import STANDING_FIELDS, game_summary, live_board
from banqi_gui.web_common import STATIC, SecurityHeaders
from referee.record import GameRecord
from referee.text_record import format_text_record
from tournaments.from_records import standings_from_records

ORGANISER_TOKEN: Final = "organiser-token-for-tests"
COOKIE: Final = "banqi_organiser"
HOUSE: Final = "house"
"""A local entrant that has played no game yet."""
LONG_POLL: Final = 1.5
"""Seconds a ``?since=`` request waits for a change here."""


class EventFixture:
    """The event: two finished games, two being played (cut from the same records), three
    entrants (two remote), ``delay`` as ``banqi serve --spectator-delay`` gives it."""

    def __init__(self, records: list[GameRecord], delay: dict[str, float] | None) -> None:
        self.records = records
        self.delay = delay
        self.names = [records[0].players[0].name, records[0].players[1].name, HOUSE]
        self.shown = {"live00": 11, "live01": 16}
        """Plies shown of each game being played (cut from records 0 and 1)."""
        self.paused = False
        self.paused_entrants: set[str] = set()
        self.forfeited: set[str] = set()
        self.posts: list[str] = []
        self.version = 1
        self.lock = threading.Lock()

    def advance(self) -> None:
        """One more ply of the first game being played."""
        with self.lock:
            self.shown["live00"] += 1
            self.version += 1

    # -- the spectators' answers ----------------------------------------------------------

    def boards(self) -> dict[str, dict[str, Any]]:
        boards = {}
        for (game_id, plies), record in zip(self.shown.items(), self.records, strict=True):
            board = live_board(live_view(record, game_id, plies))
            del board["seconds_since_update"]  # the event's boards have none
            boards[game_id] = board | {"plies_hidden": 0}
        return boards

    def finished(self) -> list[dict[str, Any]]:
        return [
            game_summary(record) | {"finished_at": record.finished_at.isoformat()}
            for record in self.records
        ]

    def standings(self) -> tuple[list[dict[str, Any]], dict[str, Any]]:
        standings = standings_from_records(self.records, self.names, [r.deal for r in self.records])
        rows = [
            {key: value for key, value in row.model_dump().items() if key in STANDING_FIELDS}
            for row in standings.rows
        ]
        rows[0]["elo"] = "+inf"  # the API may send an infinite Elo as a string
        names = [row.name for row in standings.rows]
        cells = [
            [
                None
                if a == b
                else {
                    "wins": (cell := standings.crosstable[a][b]).wins,
                    "draws": cell.draws,
                    "losses": cell.losses,
                    "points": cell.wins + cell.draws / 2,
                    "games": cell.wins + cell.draws + cell.losses + cell.void,
                }
                for b in names
            ]
            for a in names
        ]
        return rows, {"names": names, "cells": cells}

    def state_of(self, name: str) -> str:
        if name in self.forfeited:
            return "forfeited"
        if name in self.paused_entrants:
            return "paused"
        return "idle" if name == HOUSE else "playing"

    def entrant_line(self, name: str) -> dict[str, Any]:
        rows, _ = self.standings()
        row = next(row for row in rows if row["name"] == name)
        remote = name != HOUSE
        return {
            "name": name,
            "remote": remote,
            "connected": (name == self.names[0]) if remote else None,
            "state": self.state_of(name),
            "games": row["games"],
            "points": row["points"],
        }

    def event(self) -> dict[str, Any]:
        rows, crosstable = self.standings()
        return {
            "version": self.version,
            "name": "Winter cup",
            "rules": self.records[0].rules.name,
            "delay": self.delay,
            "paused": self.paused,
            "games": {"total": 6, "finished": len(self.records), "live": len(self.shown)},
            "standings": rows,
            "crosstable": crosstable,
            "live": list(self.boards().values()),
            "finished": self.finished(),
            "entrants": [self.entrant_line(name) for name in self.names],
        }

    def faults(self, name: str) -> list[dict[str, str]]:
        if name != self.names[1]:
            return []
        return [
            {"game_id": self.records[1].game_id, "reason": "time-loss", "detail": "no move in 10 s"}
        ]

    def entrant(self, name: str) -> dict[str, Any] | None:
        if name not in self.names:
            return None
        rows, _ = self.standings()
        games: list[dict[str, Any]] = [g for g in self.finished() if name in g["players"]]
        games += [
            {
                "game_id": b["game_id"],
                "players": b["players"],
                "colours": b["colours"],
                "live": True,
            }
            for b in self.boards().values()
            if name in b["players"]
        ]
        return self.entrant_line(name) | {
            "standing": next(row for row in rows if row["name"] == name),
            "games": games,
            "faults": self.faults(name),
        }

    # -- the organiser's ------------------------------------------------------------------

    def organiser(self) -> dict[str, Any]:
        since = datetime(2026, 12, 1, 9, 30, tzinfo=UTC).isoformat()
        entrants = []
        for name in self.names:
            line = self.entrant_line(name)
            linked = bool(line["connected"])
            entrants.append(
                line
                | {
                    "address": "10.0.0.7" if linked else None,
                    "rtt_ms": 23.4 if linked else None,
                    "connected_since": since if linked else None,
                    "playing": [
                        b["game_id"] for b in self.boards().values() if name in b["players"]
                    ],
                    "faults": len(self.faults(name)),
                    "last_fault": "time-loss: no move in 10 s" if self.faults(name) else None,
                    "paused": name in self.paused_entrants,
                    "forfeited": name in self.forfeited,
                }
            )
        return {
            "version": self.version,
            "paused": self.paused,
            "entrants": entrants,
            "waiting": [
                {
                    "game_id": "g0009",
                    "players": [HOUSE, self.names[1]],
                    "waiting_for": [self.names[1]],
                    "since": since,
                }
            ],
            "running": [
                {"game_id": b["game_id"], "players": b["players"], "plies": len(b["plies"])}
                for b in self.boards().values()
            ],
        }

    def command(self, name: str | None, action: str) -> None:
        with self.lock:
            if name is None:
                self.paused = action == "pause"
            elif action == "pause":
                self.paused_entrants.add(name)
            elif action == "resume":
                self.paused_entrants.discard(name)
            else:
                self.forfeited.add(name)
            self.version += 1


def event_app(event: EventFixture) -> Starlette:
    """The pages and the API answers of ``event``."""

    async def wait(request: Request) -> None:
        since = request.query_params.get("since")
        if since is None:
            return
        for _ in range(int(LONG_POLL / 0.02)):
            if event.version > int(since):
                return
            await asyncio.sleep(0.02)

    async def spectators(request: Request) -> Response:
        await wait(request)
        return JSONResponse(event.event())

    async def game(request: Request) -> Response:
        game_id = request.path_params["game"]
        boards = event.boards()
        if game_id in boards:
            return JSONResponse({"finished": False, "board": boards[game_id]})
        for record, summary in zip(event.records, event.finished(), strict=True):
            if record.game_id == game_id:
                replay = replay_of_record(record).model_dump(mode="json")
                return JSONResponse({"finished": True, "summary": summary, "replay": replay})
        return JSONResponse({"error": "no such game to show (yet)"}, status_code=404)

    async def record(request: Request) -> Response:
        found = next(r for r in event.records if r.game_id == request.path_params["game"])
        if request.path_params["fmt"] == "json":
            return Response(found.model_dump_json(indent=2), media_type="application/json")
        return PlainTextResponse(format_text_record(found, Position.opening()))

    async def entrant(request: Request) -> Response:
        found = event.entrant(request.path_params["name"])
        if found is None:
            return JSONResponse({"error": "no such entrant"}, status_code=404)
        return JSONResponse(found)

    def organiser_only(request: Request) -> bool:
        given = request.cookies.get(COOKIE) or request.headers.get("x-banqi-organiser")
        return given == ORGANISER_TOKEN

    async def organiser_page(request: Request) -> Response:
        given = request.query_params.get("token")
        if given is None:
            return FileResponse(STATIC / "organiser.html")
        response = RedirectResponse("/organiser", status_code=303)
        response.set_cookie(COOKIE, given, httponly=True, samesite="strict")
        return response

    async def organiser(request: Request) -> Response:
        if not organiser_only(request):
            return JSONResponse({"error": "the organiser's pages need its token"}, status_code=401)
        await wait(request)
        return JSONResponse(event.organiser())

    async def act(request: Request) -> Response:
        if not organiser_only(request):
            return JSONResponse({"error": "the organiser's pages need its token"}, status_code=401)
        event.posts.append(request.url.path)
        event.command(request.path_params.get("name"), request.path_params["action"])
        return JSONResponse(event.organiser())

    async def page(request: Request) -> Response:
        return FileResponse(STATIC / "event.html")

    return Starlette(
        routes=[
            Route("/", page),
            Route("/api/event", spectators),
            Route("/api/event/games/{game}", game),
            Route("/api/event/games/{game}/record.{fmt}", record),
            Route("/api/event/entrants/{name}", entrant),
            Route("/organiser", organiser_page),
            Route("/api/organiser", organiser),
            Route("/api/organiser/{action}", act, methods=["POST"]),
            Route("/api/organiser/entrants/{name}/{action}", act, methods=["POST"]),
            Mount("/static", StaticFiles(directory=STATIC), name="static"),
        ],
        middleware=[Middleware(SecurityHeaders)],
    )
