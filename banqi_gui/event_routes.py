"""The event's pages on ``banqi serve``'s own port: spectators without a token, the
organiser behind one.

Spectators (read-only, no token; the views of ``event_feed``, kept behind the games by the
spectator delay):

- ``GET /``: the event page; ``GET /static/...``: the board's files.
- ``GET /api/event?since=VERSION``: standings, crosstable, games being played and
  finished, entrants (waits up to 20 s for a version past ``since``).
- ``GET /api/event/games/{id}``: a game being played (its board) or finished (its replay).
- ``GET /api/event/games/{id}/record.json`` and ``record.txt``: a finished game's record.
- ``GET /api/event/entrants/{name}``: an entrant's games, score and faults.

The organiser (the ``banqi_organiser`` cookie, set by opening ``/organiser?token=TOKEN``,
or an ``X-Banqi-Organiser`` header):

- ``GET /organiser``: the organiser's page; ``GET /api/organiser?since=VERSION``: who is
  connected, lag, faults, the games waiting for an entrant and those being played.
- ``POST /api/organiser/pause`` and ``/resume``: the event (no new game starts).
- ``POST /api/organiser/entrants/{name}/pause``, ``/resume``, ``/forfeit`` (for good).

Every answer is JSON (errors as ``{"error": ...}`` with a 4xx status) and carries the
security headers; a view goes gzip-compressed to a client that accepts it (compressed once
per change, for everyone: ``http_body``). At most ``MAX_WAITERS`` long polls wait at once
(past it they are answered at once), so a flood of spectators holds no more than that.
"""

from collections.abc import Awaitable, Callable
from typing import Final

from starlette.requests import Request
from starlette.responses import FileResponse, PlainTextResponse, Response
from starlette.routing import BaseRoute, Mount, Route
from starlette.staticfiles import StaticFiles

from banqi_common.errors import InputError
from banqi_engine.position import Position
from referee.text_record import format_text_record
from tournaments.run_control import RunControl

from .event_feed import EventFeed
from .http_body import Body, body_response
from .web_common import STATIC, error_response, has_token, token_page

ORGANISER_COOKIE: Final = "banqi_organiser"
ORGANISER_HEADER: Final = "x-banqi-organiser"
MAX_WAITERS: Final = 2000
"""Long polls waiting at once; past it a ``?since=`` request is answered at once."""
JSON: Final = "application/json"

Endpoint = Callable[[Request], Awaitable[Response]]


class _Waiters:
    """How many long polls wait now."""

    def __init__(self) -> None:
        self.count = 0


def _since(request: Request) -> int | Response | None:
    """``?since=`` as a number, None if absent, or the 400 answer to a bad one."""
    since = request.query_params.get("since")
    if since is None:
        return None
    if not since.isdigit() or len(since) > 18:
        return error_response(400, f"since must be a version number, not {since[:40]!r}")
    return int(since)


def event_routes(
    feed: EventFeed, control: RunControl | None, organiser_token: str
) -> list[BaseRoute]:
    """The spectators' and the organiser's routes of one event."""
    waiters = _Waiters()

    async def long_poll(
        request: Request, which: str, read: Callable[[], Awaitable[Body]]
    ) -> Response:
        since = _since(request)
        if isinstance(since, Response):
            return since
        if since is not None and waiters.count < MAX_WAITERS:
            waiters.count += 1
            try:
                await feed.wait("event" if which == "event" else "organiser", since)
            finally:
                waiters.count -= 1
        return body_response(request, await read(), JSON)

    async def event_page(request: Request) -> Response:
        return FileResponse(STATIC / "event.html")

    async def event(request: Request) -> Response:
        return await long_poll(request, "event", feed.event)

    async def game(request: Request) -> Response:
        view = await feed.game(request.path_params["game"])
        if view is None:
            return error_response(404, "no such game to show (yet)")
        return body_response(request, view, JSON)

    async def record(request: Request) -> Response:
        game_id, fmt = request.path_params["game"], request.path_params["fmt"]
        if fmt not in ("json", "txt"):
            return error_response(404, "a record is record.json or record.txt")
        found = await feed.record(game_id)
        if found is None:
            return error_response(404, "no record of that game to show: it is not over (yet)")
        disposition = {"Content-Disposition": f'attachment; filename="{found.game_id}.{fmt}"'}
        if fmt == "json":
            text = found.model_dump_json(indent=2) + "\n"
            return Response(text, media_type=JSON, headers=disposition)
        try:
            text = format_text_record(found, Position.opening())
        except InputError as error:
            return error_response(409, f"this record has no text form: {error}")
        return PlainTextResponse(text, headers=disposition)

    async def entrant(request: Request) -> Response:
        view = await feed.entrant(request.path_params["name"])
        if view is None:
            return error_response(404, "no such entrant")
        return body_response(request, view, JSON)

    def organiser_only(handler: Endpoint) -> Endpoint:
        async def endpoint(request: Request) -> Response:
            given = request.cookies.get(ORGANISER_COOKIE) or request.headers.get(ORGANISER_HEADER)
            if not given or not has_token(given, organiser_token):
                return error_response(
                    401,
                    "the organiser's pages need the organiser's token: open the address "
                    "'banqi serve' printed",
                )
            return await handler(request)

        return endpoint

    organiser_page = token_page(
        "organiser.html",
        organiser_token,
        ORGANISER_COOKIE,
        "/organiser",
        "wrong token: open the organiser's address that 'banqi serve' printed",
    )

    async def organiser(request: Request) -> Response:
        return await long_poll(request, "organiser", feed.organiser)

    async def act(request: Request) -> Response:
        if control is None:
            return error_response(409, "this event has no organiser's control")
        action = request.path_params["action"]
        name = request.path_params.get("name")
        try:
            if name is None and action == "pause":
                await control.pause()
            elif name is None and action == "resume":
                await control.resume()
            elif name is not None and action == "pause":
                await control.pause_entrant(name)
            elif name is not None and action == "resume":
                await control.resume_entrant(name)
            elif name is not None and action == "forfeit":
                await control.forfeit(name)
            else:
                return error_response(404, f"no action {action!r}: pause, resume or forfeit")
        except InputError as error:
            return error_response(409 if name is None or name in control.names else 404, str(error))
        feed.invalidate()
        return body_response(request, await feed.organiser(), JSON)

    return [
        Route("/", event_page),
        Route("/api/event", event),
        Route("/api/event/games/{game}", game),
        Route("/api/event/games/{game}/record.{fmt}", record),
        Route("/api/event/entrants/{name}", entrant),
        Route("/organiser", organiser_page),
        Route("/api/organiser", organiser_only(organiser)),
        Route("/api/organiser/{action}", organiser_only(act), methods=["POST"]),
        Route("/api/organiser/entrants/{name}/{action}", organiser_only(act), methods=["POST"]),
        Mount("/static", StaticFiles(directory=STATIC), name="static"),
    ]
