"""The arena's messages on the wire: one JSON object per WebSocket text frame.

A client proves who it is with ``hello`` (its entrant's token) and then relays an engine:
the server says ``start`` when a game needs the engine, sends DCTP lines with ``send`` and
ends it with ``stop``; the client answers with the engine's stdout lines (``line``), its
exit (``exited``) and ``pong`` to the server's ``ping``. The server alone judges: the
client only relays.

Version 2 resumes after a dropped connection: a relay keeps its engines ``RESUME_SECONDS``
and lists them in its next ``hello`` (``held``: the lines each was told and said); the
server's ``welcome`` names those it resumes (``resumed``: the lines it has of each, the
relay sending the rest) and the relay stops the others. A version 1 client is served
as before: its engines are lost with its connection.

Every frame is bounded (``MAX_FRAME_BYTES``) and parsed by a pydantic model that forbids
unknown fields; anything else is a protocol error that ends the connection.
"""

import json
from typing import Annotated, Final, Literal

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, ValidationError

from banqi_common.bounded_json import JsonShapeError, Shape, check_shape
from protocol.resource_watch import LimitKind

PROTOCOL: Final = "banqi-arena/2"
"""The protocol's name and version, sent in ``hello`` and ``welcome``."""
Version = Literal["banqi-arena/1", "banqi-arena/2"]
"""The versions a server speaks; its ``welcome`` has the client's."""

MAX_ENGINES: Final = 64
"""Engines a relay runs at once, whatever a server asks, and lists in a ``hello``."""
RESUME_SECONDS: Final = 30.0
"""Seconds a relay keeps its engines after its connection drops, and the server its side
of them, for the relay to come back and resume their games."""

MAX_FRAME_BYTES: Final = 80 * 1024
"""Longest frame either side accepts: an engine line of 64 KiB, JSON-escaped, fits."""

MAX_LINE_CHARS: Final = 64 * 1024
"""Longest DCTP line a ``send`` or ``line`` frame may carry."""

MAX_OUTBOX: Final = 1000
"""Frames waiting to go out on one connection, at either end: past it, the server drops a
client that does not read, and a relay's engine waits for the network (its pipe fills)."""

FRAME_SHAPE: Final = Shape(depth=4, values=32 + 8 * MAX_ENGINES, string=MAX_FRAME_BYTES)
"""What a frame's JSON may hold: the messages are flat, with a few fields, but for a
``hello``'s and a ``welcome``'s list of engines (8 values each)."""

_TOKEN = Annotated[str, Field(min_length=16, max_length=128, pattern=r"^[A-Za-z0-9_-]+$")]
_GAME = Annotated[str, Field(min_length=1, max_length=64, pattern=r"^[A-Za-z0-9._-]+$")]
_LINE = Annotated[str, Field(max_length=MAX_LINE_CHARS)]
_COUNT = Annotated[int, Field(ge=0, le=2**53)]


class _Frame(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class Held(_Frame):
    """An engine a relay still runs from its last connection: the lines it was told (its
    stdin) and said (its stdout), and how many of the last it said the relay keeps."""

    game: _GAME
    told: _COUNT
    said: _COUNT
    kept: _COUNT


class Hello(_Frame):
    """Client: the first frame, with the entrant's token (and, from version 2, the
    engines it still holds)."""

    type: Literal["hello"] = "hello"
    protocol: Version = PROTOCOL
    token: _TOKEN
    held: Annotated[list[Held], Field(max_length=MAX_ENGINES)] | None = None


class Line(_Frame):
    """Client: one line the engine wrote on stdout, during game ``game``."""

    type: Literal["line"] = "line"
    game: _GAME
    text: _LINE


class LimitReached(_Frame):
    """Which limit of its sandbox the relayed engine reached, and what happened."""

    kind: LimitKind
    words: Annotated[str, Field(max_length=500)]


class Exited(_Frame):
    """Client: the engine of game ``game`` exited (or could not start), with its status;
    ``limit`` when its sandbox stopped it at a limit."""

    type: Literal["exited"] = "exited"
    game: _GAME
    status: int | None = None
    error: Annotated[str, Field(max_length=2000)] = ""
    limit: LimitReached | None = None


class Pong(_Frame):
    """Client: the answer to a ``ping``, echoing its number."""

    type: Literal["pong"] = "pong"
    seq: Annotated[int, Field(ge=0)]


class Resumed(_Frame):
    """A held engine whose game goes on: the server has the first ``since`` lines it said."""

    game: _GAME
    since: _COUNT


class Welcome(_Frame):
    """Server: the token is good; the client plays as ``entrant``. To a version 2 client,
    the held engines it resumes (the client stops the others)."""

    type: Literal["welcome"] = "welcome"
    protocol: Version = PROTOCOL
    entrant: Annotated[str, Field(min_length=1, max_length=64)]
    resumed: Annotated[list[Resumed], Field(max_length=MAX_ENGINES)] | None = None


class Refused(_Frame):
    """Server: the connection is refused or ended, and why (then it closes)."""

    type: Literal["refused"] = "refused"
    reason: Annotated[str, Field(max_length=500)]
    retry: bool = False
    """Whether trying again later may succeed (the entrant still seen as connected, the
    address full); a wrong token is never worth a retry."""


class Start(_Frame):
    """Server: start the engine for game ``game`` (a fresh process for each game)."""

    type: Literal["start"] = "start"
    game: _GAME


class Send(_Frame):
    """Server: write ``text`` and a newline to the engine of game ``game``."""

    type: Literal["send"] = "send"
    game: _GAME
    text: _LINE


class Stop(_Frame):
    """Server: end the engine of game ``game`` (close its stdin, then kill it)."""

    type: Literal["stop"] = "stop"
    game: _GAME


class Ping(_Frame):
    """Server: measure the round trip; the client answers ``pong`` with ``seq``."""

    type: Literal["ping"] = "ping"
    seq: Annotated[int, Field(ge=0)]


class Finished(_Frame):
    """Server: the tournament is over; the client may exit."""

    type: Literal["finished"] = "finished"


ClientMessage = Hello | Line | Exited | Pong
"""What a client sends."""
ServerMessage = Welcome | Refused | Start | Send | Stop | Ping | Finished
"""What the server sends."""
ClientFrame = Annotated[ClientMessage, Field(discriminator="type")]
ServerFrame = Annotated[ServerMessage, Field(discriminator="type")]
_CLIENT: Final = TypeAdapter[ClientFrame](ClientFrame)
_SERVER: Final = TypeAdapter[ServerFrame](ServerFrame)


class FrameError(ValueError):
    """A frame that is too long, not JSON, too deeply nested, or not a known message."""


def _checked(text: str | bytes) -> str:
    """The frame's text once its size, type and nesting are within bounds."""
    if isinstance(text, bytes):
        raise FrameError("binary frames are not part of the protocol; send JSON text")
    if len(text.encode()) > MAX_FRAME_BYTES:
        raise FrameError(f"frame over {MAX_FRAME_BYTES} bytes")
    try:
        check_shape(text, FRAME_SHAPE, "the frame")
    except JsonShapeError as error:
        raise FrameError(str(error)) from None
    return text


def _words(error: ValidationError) -> str:
    first = error.errors()[0]
    where = ".".join(str(part) for part in first["loc"]) or "frame"
    return f"{where}: {first['msg']}"


def client_frame(text: str | bytes) -> ClientMessage:
    """A frame from a client, parsed; FrameError says what is wrong with it."""
    try:
        return _CLIENT.validate_json(_checked(text))
    except ValidationError as error:
        raise FrameError(f"not a client message: {_words(error)}") from None


def server_frame(text: str | bytes) -> ServerMessage:
    """A frame from the server, parsed; FrameError says what is wrong with it."""
    try:
        return _SERVER.validate_json(_checked(text))
    except ValidationError as error:
        raise FrameError(f"not a server message: {_words(error)}") from None


def encoded(frame: _Frame) -> str:
    """The frame as the text of one WebSocket message (a field left out is None: a
    version 1 peer knows no field added since)."""
    return json.dumps(frame.model_dump(mode="json", exclude_none=True), separators=(",", ":"))
