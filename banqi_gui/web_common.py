"""What every page and API of the board's servers shares: the static folder, the security
headers, JSON errors and token checks (``banqi gui``'s app and ``banqi serve``'s event
pages)."""

import secrets
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Final

from starlette.requests import Request
from starlette.responses import (
    FileResponse,
    JSONResponse,
    PlainTextResponse,
    RedirectResponse,
    Response,
)
from starlette.types import ASGIApp, Message, Receive, Scope, Send

STATIC: Final = Path(__file__).parent / "static"
SECURITY_HEADERS: Final = {
    "Content-Security-Policy": "default-src 'self'; img-src 'self' data:; "
    "style-src 'self'; script-src 'self'; connect-src 'self'; frame-ancestors 'none'",
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    "Cache-Control": "no-store",
}
_RAW_HEADERS: Final = [(k.lower().encode(), v.encode()) for k, v in SECURITY_HEADERS.items()]


def error_response(status: int, message: str) -> JSONResponse:
    """``{"error": message}`` with ``status``."""
    return JSONResponse({"error": message}, status_code=status)


def has_token(given: str, token: str) -> bool:
    """Whether ``given`` is the token (compared in constant time)."""
    return secrets.compare_digest(given.encode(), token.encode())


def token_page(
    page: str, token: str, cookie: str, home: str, wrong: str
) -> Callable[[Request], Awaitable[Response]]:
    """The endpoint of a page behind ``token``: the static ``page``; with ``?token=``, the
    ``cookie`` set (httponly, same site only) if the token is right and a redirect to
    ``home``, else 403 with the words ``wrong``."""

    async def endpoint(request: Request) -> Response:
        given = request.query_params.get("token")
        if given is None:
            return FileResponse(STATIC / page)
        if not has_token(given, token):
            return PlainTextResponse(wrong, status_code=403)
        response = RedirectResponse(home, status_code=303)
        response.set_cookie(cookie, given, httponly=True, samesite="strict")
        return response

    return endpoint


async def internal_error(request: Request, error: Exception) -> Response:
    """A failure of the server's own (never of input): 500, with the security headers, as
    every response has."""
    response = error_response(500, "internal error of the server; see its terminal")
    response.headers.update(SECURITY_HEADERS)
    return response


class SecurityHeaders:
    """Nothing from elsewhere (no scripts, styles or fetches but the server's own), no
    framing, no caching: the headers added to every HTTP response (a plain ASGI
    middleware: WebSockets pass through untouched)."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                names = {name for name, _ in _RAW_HEADERS}
                kept = [h for h in message.get("headers", []) if h[0].lower() not in names]
                message = {**message, "headers": kept + _RAW_HEADERS}
            await send(message)

        await self.app(scope, receive, send_with_headers)
