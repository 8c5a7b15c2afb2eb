"""The ASGI app: the static page, and a JSON API for play, watch and replay.

Every ``/api/`` request needs the server's token (the ``banqi_token`` cookie, set by
opening the address ``banqi gui`` prints, or an ``X-Banqi-Token`` header): an engine on
the same machine, which may reach the loopback address, cannot read games through it.
A bad request gets a JSON ``{"error": ...}`` with a 4xx status and changes nothing.

API (JSON in and out):

- ``GET /api/options``: the engines offered, the rule-set presets.
- ``POST /api/games`` (``PlaySettings``): a new game; its state (422 if the engine does
  not take a rule set it must be told, such as one with moves onto face-down pieces).
- ``GET /api/games/{id}?since=VERSION``: its state (waits up to 20 s for a change past
  ``VERSION``); ``DELETE`` ends it; ``POST .../leave`` (the page is being left) ends it
  in a few seconds unless it is asked about again. A game no page asks about for a while
  is ended (``sessions.SessionLimits``), and a new game past the limit is refused (429).
- ``POST /api/games/{id}/action`` ``{"move": "a2-a3"}`` (also onto a face-down piece,
  where the rules allow it: the server turns it up) or ``{"move": "b6"}`` (a flip);
  ``/hint``, ``/undo``, ``/resign``: the state after it (``/hint``: also ``hint``). A
  state's ``legal`` lists each action's kind: flip, move, capture, jump or reveal.
- ``GET /api/games/{id}/record.json`` and ``record.txt``: the record of a finished game.
- ``GET /api/runs``; ``GET /api/runs/{run}/watch``: live games, finished games and
  standings; ``GET /api/runs/{run}/games/{game_id}``: a finished game's replay.
- ``POST /api/replay?rules=NAME&name=FILE`` with a record file as the body: its replay.
"""

import asyncio
import contextlib
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any, Final, TypeVar

from pydantic import BaseModel, ConfigDict, Field, ValidationError
from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import (
    JSONResponse,
    PlainTextResponse,
    Response,
)
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from banqi_common.bounded_json import JsonShapeError, Shape, bounded_json
from banqi_common.errors import InputError
from banqi_engine.errors import RulesInputError
from banqi_engine.pieces import PIECE_LETTERS
from banqi_engine.position import Position
from banqi_engine.rules import PRESETS
from referee.text_record import format_text_record

from .play_session import PlaySession, SessionError
from .play_settings import UNTIMED_ENGINE_MOVE_TIME, PlayOptions, PlaySettings
from .replay_view import replay_of_upload
from .sessions import SessionLimits, Sessions
from .watch import RecordCache, RunFolders, WatchError, record_replay, watch_view
from .web_common import (
    STATIC,
    SecurityHeaders,
    error_response,
    has_token,
    internal_error,
    token_page,
)

COOKIE: Final = "banqi_token"
HEADER: Final = "x-banqi-token"
MAX_BODY: Final = 64 * 1024
"""Largest JSON request body, in bytes."""
BODY_SHAPE: Final = Shape(depth=8, values=200, string=MAX_BODY)
"""What a request body may hold: the settings and actions are flat, a rule set two deep."""
MAX_UPLOAD: Final = 4 * 1024 * 1024
"""Largest record file the replay page may upload, in bytes."""
LONG_POLL: Final = 20.0

M = TypeVar("M", bound=BaseModel)


@dataclass(frozen=True)
class GuiConfig:
    """What one server shows: its token, the play options, the run folders, and how many
    games it holds and for how long."""

    token: str
    play: PlayOptions
    runs: RunFolders
    limits: SessionLimits = field(default_factory=SessionLimits)


class ActionBody(BaseModel):
    """A person's action: a move or capture ``a2-a3`` (also onto a face-down piece), or a
    flip by its square ``b6``."""

    model_config = ConfigDict(extra="forbid")

    move: str = Field(max_length=16)


class _ApiError(Exception):
    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.message = message


async def _body(request: Request, limit: int) -> bytes:
    """The request body, refused with 413 past ``limit`` bytes."""
    chunks: list[bytes] = []
    size = 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > limit:
            raise _ApiError(413, f"the request body is larger than {limit} bytes")
        chunks.append(chunk)
    return b"".join(chunks)


async def _json(request: Request, model: type[M]) -> M:
    """The body validated as ``model``; 400 naming what is wrong."""
    body = await _body(request, MAX_BODY)
    try:
        data = bounded_json(body or b"{}", BODY_SHAPE, "the request body")
    except JsonShapeError as error:
        raise _ApiError(400, str(error)) from None
    try:
        return model.model_validate(data)
    except ValidationError as error:
        parts = []
        for item in error.errors():
            where = ".".join(str(p) for p in item["loc"]) or "(body)"
            parts.append(f"{where}: {item['msg']}")
        raise _ApiError(400, "bad request: " + "; ".join(parts)) from None


Handler = Callable[[Request], Awaitable[Any]]
Endpoint = Callable[[Request], Awaitable[Response]]


def _api(token: str, handler: Handler) -> Endpoint:
    """An API endpoint: the token checked, errors as JSON, the result as JSON."""

    async def endpoint(request: Request) -> Response:
        given = request.cookies.get(COOKIE) or request.headers.get(HEADER) or ""
        if not has_token(given, token):
            return error_response(401, "no valid token: open the address that 'banqi gui' printed")
        try:
            result = await handler(request)
        except (_ApiError, SessionError) as error:
            return error_response(error.status, error.message)
        except WatchError as error:
            return error_response(404, str(error))
        except (InputError, RulesInputError) as error:
            return error_response(422, str(error))
        return result if isinstance(result, Response) else JSONResponse(result)

    return endpoint


class _PlayApi:
    """The endpoints of games against an engine: options, new games and their actions."""

    def __init__(self, play: PlayOptions, sessions: Sessions) -> None:
        self.play = play
        self.sessions = sessions

    def routes(self, token: str) -> list[Route]:
        """The play routes, each behind the token."""
        game = "/api/games/{session}"
        return [
            Route("/api/options", _api(token, self.options)),
            Route("/api/games", _api(token, self.new_game), methods=["POST"]),
            Route(game, _api(token, self.state)),
            Route(game, _api(token, self.end_game), methods=["DELETE"]),
            Route(game + "/leave", _api(token, self.leave), methods=["POST"]),
            Route(game + "/action", _api(token, self.action), methods=["POST"]),
            Route(game + "/hint", _api(token, self.hint), methods=["POST"]),
            Route(game + "/undo", _api(token, self.undo), methods=["POST"]),
            Route(game + "/resign", _api(token, self.resign), methods=["POST"]),
            Route(game + "/record.{fmt:str}", _api(token, self.record)),
        ]

    def session_of(self, request: Request) -> PlaySession:
        """The game the request's path names (SessionError if there is none)."""
        return self.sessions.get(request.path_params["session"])

    async def options(self, request: Request) -> Any:
        """The engines offered, the rule-set presets, the piece letters, an engine's
        seconds a move in an untimed game."""
        return {
            "engines": [
                {"id": c.id, "label": c.label, "level": c.level} for c in self.play.engines
            ],
            "rules": {name: rules.model_dump() for name, rules in PRESETS.items()},
            "pieces": PIECE_LETTERS,
            "untimed_engine_move_time": UNTIMED_ENGINE_MOVE_TIME,
        }

    async def new_game(self, request: Request) -> Any:
        """A new game of the body's settings: its state, 201."""
        settings = await _json(request, PlaySettings)
        session = await self.sessions.create(settings)
        return JSONResponse(session.view(), status_code=201)

    async def state(self, request: Request) -> Any:
        """A game's state, after waiting for a change past ``?since=``."""
        session = self.session_of(request)
        since = request.query_params.get("since")
        if since is not None:
            if not since.isdigit():
                raise _ApiError(400, f"since must be a version number, not {since!r}")
            with self.sessions.waiting(session.id):
                await session.wait_change(int(since), LONG_POLL)
        return session.view()

    async def end_game(self, request: Request) -> Any:
        """End a game."""
        await self.sessions.close(request.path_params["session"])
        return {"closed": True}

    async def leave(self, request: Request) -> Any:
        """The game's page is being left: end the game soon unless it is asked about again."""
        self.sessions.leave(request.path_params["session"])
        return {"leaving": True}

    async def action(self, request: Request) -> Any:
        """Play the body's move or flip: the state after it."""
        session = self.session_of(request)
        body = await _json(request, ActionBody)
        await session.act(body.move)
        return session.view()

    async def hint(self, request: Request) -> Any:
        """The engine's hint and the state."""
        session = self.session_of(request)
        move = await session.ask_hint()
        return {"hint": move, "state": session.view()}

    async def undo(self, request: Request) -> Any:
        """Take back the person's last move: the state after it."""
        session = self.session_of(request)
        await session.undo()
        return session.view()

    async def resign(self, request: Request) -> Any:
        """Resign the game: the state after it."""
        session = self.session_of(request)
        await session.resign()
        return session.view()

    async def record(self, request: Request) -> Any:
        """A finished game's record, as JSON or as the platform's text, to download."""
        session = self.session_of(request)
        if session.record is None:
            raise _ApiError(409, "the game is not over: its record is made when it ends")
        if request.path_params["fmt"] not in ("json", "txt"):
            raise _ApiError(404, "a record is record.json or record.txt")
        name = f"{session.record.game_id}.{request.path_params['fmt']}"
        disposition = {"Content-Disposition": f'attachment; filename="{name}"'}
        if request.path_params["fmt"] == "json":
            text = session.record.model_dump_json(indent=2) + "\n"
            return Response(text, media_type="application/json", headers=disposition)
        text = format_text_record(session.record, Position.opening())
        return PlainTextResponse(text, headers=disposition)


class _WatchApi:
    """The endpoints of the run folders: their list, a run's games, a finished game's replay."""

    def __init__(self, runs: RunFolders) -> None:
        self.runs = runs
        self.cache = RecordCache()

    def routes(self, token: str) -> list[Route]:
        """The watch routes, each behind the token."""
        return [
            Route("/api/runs", _api(token, self.listing)),
            Route("/api/runs/{run}/watch", _api(token, self.watch)),
            Route("/api/runs/{run}/games/{game}", _api(token, self.run_game)),
        ]

    async def listing(self, request: Request) -> Any:
        """The run folders."""
        return {"runs": self.runs.listing()}

    async def watch(self, request: Request) -> Any:
        """A run's live games, finished games and standings."""
        folder = self.runs.folder(request.path_params["run"])
        return watch_view(folder, self.cache)

    async def run_game(self, request: Request) -> Any:
        """The replay of a finished game of a run."""
        folder = self.runs.folder(request.path_params["run"])
        return record_replay(folder, request.path_params["game"], self.cache).model_dump()


async def _replay(request: Request) -> Any:
    """The replay of the record file in the body (``?rules=`` preset, ``?name=`` of the file)."""
    rules = PRESETS.get(request.query_params.get("rules", "olympiad"))
    if rules is None:
        raise _ApiError(400, f"rules must be one of {', '.join(PRESETS)}")
    name = request.query_params.get("name", "the uploaded file")[:200]
    try:
        text = (await _body(request, MAX_UPLOAD)).decode("utf-8")
    except UnicodeDecodeError:
        raise _ApiError(400, f"{name} is not UTF-8 text") from None
    return replay_of_upload(text, rules, name).model_dump()


def create_app(config: GuiConfig) -> Starlette:
    """The app of one server."""
    sessions = Sessions(config.play, config.limits)

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        reaper = asyncio.ensure_future(sessions.reap_forever())
        try:
            yield
        finally:
            reaper.cancel()
            await asyncio.gather(reaper, return_exceptions=True)
            await sessions.close_all()

    routes = [
        Route(
            "/",
            token_page(
                "index.html",
                config.token,
                COOKIE,
                "/",
                "wrong token: open the address that 'banqi gui' printed",
            ),
        ),
        *_PlayApi(config.play, sessions).routes(config.token),
        *_WatchApi(config.runs).routes(config.token),
        Route("/api/replay", _api(config.token, _replay), methods=["POST"]),
        Mount("/static", StaticFiles(directory=STATIC), name="static"),
    ]
    app = Starlette(
        routes=routes,
        lifespan=lifespan,
        middleware=[Middleware(SecurityHeaders)],
        exception_handlers={Exception: internal_error},
    )
    app.state.sessions = sessions
    return app


def release_waiting(app: Starlette) -> None:
    """Every request of ``app`` (made by ``create_app``) waiting for a game to change
    returns now: the server is stopping."""
    sessions: Sessions = app.state.sessions
    sessions.wake_all()
