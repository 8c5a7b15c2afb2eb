"""An answer's bytes, compressed once for every client that accepts gzip.

The event's views are built once for everyone (``event_feed``); so is their gzip form: a
view of a 64-entrant event is hundreds of KiB of JSON, which spectators' browsers all
accept compressed, and writing a tenth of the bytes costs the server's event loop, which
also carries the games' frames, a tenth of the time. A body too small to gain keeps no
compressed form.
"""

import gzip
from dataclasses import dataclass
from typing import Final

from starlette.requests import Request
from starlette.responses import Response

MIN_GZIP_BYTES: Final = 1024
"""Bodies shorter than this are sent as they are."""
GZIP_LEVEL: Final = 6
"""zlib's default level: most of the gain of level 9 for a third of its time."""
VARY: Final = {"Vary": "Accept-Encoding"}


@dataclass(frozen=True)
class Body:
    """An answer's bytes, and their gzip form when it is worth sending."""

    plain: bytes
    gzipped: bytes | None = None

    @classmethod
    def of(cls, plain: bytes) -> "Body":
        """The body of ``plain``, compressed if it is long enough to gain."""
        if len(plain) < MIN_GZIP_BYTES:
            return cls(plain)
        packed = gzip.compress(plain, compresslevel=GZIP_LEVEL, mtime=0)
        return cls(plain, packed if len(packed) < len(plain) else None)


def accepts_gzip(request: Request) -> bool:
    """Whether the request's ``Accept-Encoding`` takes gzip (not with ``q=0``)."""
    for item in request.headers.get("accept-encoding", "").lower().split(","):
        name, _, params = item.partition(";")
        if name.strip() not in ("gzip", "*"):
            continue
        quality = params.strip().removeprefix("q=").strip() if params.strip() else "1"
        try:
            return float(quality) > 0
        except ValueError:
            return False
    return False


def body_response(
    request: Request,
    body: Body,
    media_type: str,
    headers: dict[str, str] | None = None,
) -> Response:
    """The answer with ``body``: its gzip form where the request accepts it."""
    extra = {**VARY, **(headers or {})}
    if body.gzipped is not None and accepts_gzip(request):
        return Response(
            body.gzipped, media_type=media_type, headers={**extra, "Content-Encoding": "gzip"}
        )
    return Response(body.plain, media_type=media_type, headers=extra)
