"""The JSON game record: a validated, versioned model that replays a whole game.

A record is *withheld* while another game of its deal has not ended: it then has no
``deal_secret`` and no ``layout``, and its flips hide their pieces (``b6(?)``); see
``referee.withheld`` and ``referee.deal_records``. A complete record reads and is
written exactly as before withheld records existed. A game dealt from a deal book
(``referee.deal_book``) says so in ``deal_book`` (the book's SHA-256 and the entry), and
has a ``deal_secret`` only when the entry has one. A record a run writes carries its
``mac`` (``referee.macs``), which a resume checks.
"""

from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any, Final, Literal, Self

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    SerializerFunctionWrapHandler,
    model_serializer,
    model_validator,
)

from banqi_common.atomic import write_atomic
from banqi_common.errors import InputError
from banqi_common.model_files import read_model_file
from banqi_engine.errors import MoveError
from banqi_engine.layout import format_layout
from banqi_engine.moves import move_from
from banqi_engine.notation import format_hidden_flip, format_hidden_reveal, parse_ply

from .deals import Deal, DealBookRef, dealt
from .engine_limits import EngineLimits
from .engine_spec import EngineSpec
from .game_setup import FileFormat, GameFacts, GameSetup
from .macs import MAC_PATTERN
from .reasons import Reason, counts_as_failure
from .sandbox import Isolation
from .timecontrol import TimeControl

RECORD_FORMAT: Final = "banqi-record/1"


class RecordError(InputError):
    """A record file that cannot be read or does not validate."""


class PlayerInfo(BaseModel):
    """One seat of a game."""

    model_config = ConfigDict(extra="forbid")

    name: str
    command: list[str]
    engine_name: str | None = Field(default=None, description="What the engine said to `name`.")
    version: str | None = Field(default=None, description="What the engine said to `version`.")
    colour: Literal["red", "black"] | None = None
    isolation: Isolation | None = Field(
        default=None, description="How the engine was kept apart from the referee."
    )
    network: bool | None = Field(
        default=None,
        description="Whether the engine had the host's network: asked for (network = true) "
        "or not sandboxed; false when it had only a loopback of its own; absent in-process "
        "and in records written before network namespaces.",
    )
    rules_told: bool | None = Field(
        default=None,
        description="Under rules other than the platform's: whether the engine took them "
        "(rule_set, or the draw-limit commands when only those differ); null when there was "
        "nothing to tell or the game ended before.",
    )
    time_control: TimeControl | None = Field(
        default=None,
        description="This player's own time control (time odds); absent when it played by "
        "the record's time_control, as in every record written before time odds existed.",
    )

    limits: EngineLimits | None = Field(
        default=None,
        description="The limits the sandbox held the engine to (memory, processes, room, "
        "CPU); absent when none applied (no sandbox, in-process, or a remote engine, whose "
        "relay sets its own), as in every record written before limits were recorded.",
    )

    @model_serializer(mode="wrap")
    def _leave_out_absent(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        """``time_control`` only when the player had a time control of its own, ``limits``
        only when a sandbox applied them."""
        data: dict[str, Any] = handler(self)
        for name in ("time_control", "limits"):
            if getattr(self, name) is None:
                data.pop(name, None)
        return data


class PlyRecord(BaseModel):
    """One ply: who played it, the move string, thinking time and clocks after it."""

    model_config = ConfigDict(extra="forbid")

    player: int = Field(ge=0, le=1)
    move: str = Field(
        description="a2-a3 for a move or capture, b6(K) for a flip (b6(?) in a withheld record)"
    )
    ms: int = Field(ge=0, description="Thinking time of the genmove, in ms.")
    clocks_ms: tuple[int, int] = Field(description="Both players' remaining time after the ply.")


class WorkerInfo(BaseModel):
    """The cluster worker that played a game: its address and CPU model."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    address: str
    cpu: str


class GameRecord(FileFormat, GameFacts):
    """Everything about one finished game; the single source of truth for it."""

    model_config = ConfigDict(extra="forbid")

    format: Literal["banqi-record/1"] = RECORD_FORMAT
    players: tuple[PlayerInfo, PlayerInfo]
    deal_book: DealBookRef | None = Field(
        default=None,
        description="The deal book entry the layout was dealt from; absent when the layout "
        "is the shuffle of a secret derived from the referee key.",
    )
    withheld: bool = Field(
        default=False,
        description="Another game of the deal had not ended when the record was written: "
        "no deal_secret, no layout, and flips as b6(?). Left out of a complete record.",
    )
    deal_secret: str | None = Field(
        default=None,
        pattern=r"^[0-9a-f]{64}$",
        description="Hex secret the layout was shuffled from (absent while withheld, and for "
        "a deal book's entry that has none).",
    )
    layout: str | None = Field(
        default=None,
        description="The hidden layout as a board field, rank 8 first (absent while withheld).",
    )
    started_at: datetime
    finished_at: datetime
    plies: list[PlyRecord]
    opening_plies: int = Field(
        default=0,
        ge=0,
        description="The first plies, played from the deal book entry's opening rather than "
        "by the players (no time charged). Left out when there are none.",
    )
    winner: int | None = Field(ge=0, le=1, description="Winning player index; null = draw.")
    reason: Reason
    result: str = Field(
        description="The ending in words, e.g. 'red wins: black has no legal move'."
    )
    detail: str = Field(default="", description="What the fault was, for engine faults.")
    stopped_answering: bool = Field(
        default=False,
        description="The loser was cut off with a command unanswered (no reply by its deadline).",
    )
    end_ply: int = Field(ge=0, description="Plies played when the game ended.")
    void: bool = Field(
        default=False,
        description="Both engines failed (or both were forfeited): no result, no points to "
        "either, not rated. Left out of a record that is not void.",
    )
    worker: WorkerInfo | None = Field(
        default=None,
        description="The cluster worker that played the game; left out of a game played "
        "by the referee itself.",
    )
    mac: str | None = Field(
        default=None,
        pattern=MAC_PATTERN,
        description="HMAC-SHA256 of the rest of the record under its game's key, derived "
        "from the referee key (referee.macs); left out of a record written outside a run.",
    )

    @model_validator(mode="after")
    def _check_withheld(self) -> Self:
        """A complete record has its layout, and its secret unless it was dealt from a deal
        book; a withheld one has neither, and hides every flip's piece. A void game has no
        winner."""
        if self.void and self.winner is not None:
            raise ValueError("a void game has no winner")
        if self.opening_plies > len(self.plies):
            raise ValueError(
                f"opening_plies is {self.opening_plies}, but the record has only "
                f"{len(self.plies)} plies"
            )
        if not self.withheld:
            optional = ("deal_secret",) if self.deal_book is not None else ()
            missing = [
                name
                for name in ("deal_secret", "layout")
                if getattr(self, name) is None and name not in optional
            ]
            if missing:
                raise ValueError(
                    f"{' and '.join(missing)} missing: only a withheld record leaves them out "
                    "(and a record dealt from a deal book entry without a secret, the secret)"
                )
            return self
        if self.deal_secret is not None or self.layout is not None:
            raise ValueError("a withheld record has no deal_secret and no layout")
        for number, ply in enumerate(self.plies, start=1):
            try:
                parsed = parse_ply(ply.move)
            except MoveError as error:
                raise ValueError(f"ply {number}: {error}") from None
            if parsed.is_flip and ply.move != format_hidden_flip(move_from(parsed.move)):
                raise ValueError(
                    f"ply {number} ({ply.move}): a withheld record writes a flip without "
                    f"its piece, like {format_hidden_flip(move_from(parsed.move))}"
                )
            if parsed.onto_face_down and parsed.piece is not None:
                raise ValueError(
                    f"ply {number} ({ply.move}): a withheld record writes a move onto a "
                    f"face-down piece without the piece, like {format_hidden_reveal(parsed.move)}"
                )
        return self

    @model_serializer(mode="wrap")
    def _leave_out_absent(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        """A complete record is written without ``withheld``, a withheld one without
        ``deal_secret`` and ``layout``; ``void`` only when it is true, ``opening_plies`` only
        when there are some; ``deal_book`` and
        ``deal_secret`` only when they are known, ``worker`` and ``mac`` only when it has them."""
        data: dict[str, Any] = handler(self)
        for name in ("deal_secret", "layout") if self.withheld else ("withheld",):
            data.pop(name, None)
        if not self.void:
            data.pop("void", None)
        if not self.opening_plies:
            data.pop("opening_plies", None)
        for name in ("deal_book", "deal_secret", "worker", "mac"):
            if data.get(name, "") is None:
                del data[name]
        return data

    @property
    def score(self) -> str:
        """The result from the first listed player's side: ``1-0``, ``0-1``, ``1/2-1/2``, or
        ``void``."""
        if self.void:
            return "void"
        return {None: "1/2-1/2", 0: "1-0", 1: "0-1"}[self.winner]

    def points(self, player: int) -> float:
        """1 for a win, 0.5 for a draw, 0 for a loss, 0 to both in a void game."""
        if self.void:
            return 0.0
        if self.winner is None:
            return 0.5
        return 1.0 if self.winner == player else 0.0

    @property
    def loser_failed(self) -> bool:
        """Whether the loser's engine failed (see ``reasons.counts_as_failure``)."""
        return counts_as_failure(self.reason, self.stopped_answering)


@dataclass(frozen=True, kw_only=True)
class GameEnd:
    """How a game ended, as the referee (or a forfeit) decided it."""

    winner: int | None
    reason: Reason
    result: str
    detail: str = ""
    stopped_answering: bool = False
    void: bool = False


def build_record(
    setup: GameSetup,
    deal: Deal | str,
    players: tuple[PlayerInfo, PlayerInfo],
    plies: list[PlyRecord],
    end: GameEnd,
    started_at: datetime,
    finished_at: datetime,
    *,
    opening_plies: int = 0,
) -> GameRecord:
    """The record of a finished (or forfeited) game of ``setup`` on ``deal`` (a Deal, or the
    secret it is the shuffle of), its layout revealed; its first ``opening_plies`` plies were
    the deal's opening."""
    dealt_from = dealt(deal)
    return GameRecord(
        **setup.facts(),
        players=players,
        deal_book=dealt_from.book,
        deal_secret=dealt_from.secret,
        layout=format_layout(dealt_from.layout),
        started_at=started_at,
        finished_at=finished_at,
        plies=plies,
        opening_plies=opening_plies,
        winner=end.winner,
        reason=end.reason,
        result=end.result,
        detail=end.detail,
        stopped_answering=end.stopped_answering,
        end_ply=len(plies),
        void=end.void,
    )


def player_info(spec: EngineSpec, time_control: TimeControl | None = None) -> PlayerInfo:
    """A seat's record entry before the engine has said anything; ``time_control`` is its own
    one, if it has one (time odds)."""
    return PlayerInfo(name=spec.name, command=list(spec.command), time_control=time_control)


def write_record(record: GameRecord, path: Path) -> None:
    """Write the record as indented JSON, atomically (WriteError if it cannot be)."""
    write_atomic(path, record.model_dump_json(indent=2) + "\n", f"record {record.game_id}")


def read_record(path: Path) -> GameRecord:
    """Load and validate a JSON record; RecordError says what is wrong and where."""
    return read_model_file(
        path,
        GameRecord,
        RecordError,
        "record",
        valid=f"a valid {RECORD_FORMAT} record",
        count_more=True,
    )
