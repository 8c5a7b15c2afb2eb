"""One game between two DCTP engine processes: the referee's main loop.

The referee speaks to each engine as the platform does: ``reset_board``,
``time_settings``, ``ready``; then ``genmove`` to the side to move (``unknown``
until the first flip), and after every ply, to both engines, the echo (``move``
or ``flip`` with the revealed piece) followed by ``time_left`` for the side that
moved; at the end ``game_over`` and ``quit``. Every wait has a timeout, every
engine fault ends the game with a reason code, and both processes are always
stopped and reaped, also when the game is cancelled.
"""

import asyncio
import contextlib
import os
import time
from collections.abc import Callable, Coroutine
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from banqi_engine.errors import MoveError
from banqi_engine.game import Game
from banqi_engine.layout import format_layout
from banqi_engine.notation import format_flip, format_move
from banqi_engine.pieces import COLOUR_NAMES, UNDECIDED
from banqi_engine.rules import PRESETS, RuleSet
from protocol.client import EngineClient
from protocol.errors import (
    EngineError,
    EnginePipeClosedError,
    EngineTerminatedError,
    EngineTimeoutError,
    ProtocolError,
)
from protocol.messages import Command, Reply, parse_genmove_payload

from .atomic import write_atomic
from .cpu import group_cpu_ticks
from .deals import KEY_ENV, layout_from_secret
from .engine_spec import EngineSpec
from .reasons import Reason
from .record import GameRecord, PlayerInfo, PlyRecord
from .timecontrol import Clock, TimeControl

DEFAULT_STALL_TIMEOUT = 5.0
"""Seconds an engine gets to answer any command other than genmove."""
OPTIONAL_TIMEOUT = 1.0
"""Seconds to wait for an answer to a command the platform itself never sends."""


def engine_environment(extra: dict[str, str]) -> dict[str, str]:
    """The referee's environment for an engine, less the key-file path, plus ``extra``."""
    env = {k: v for k, v in os.environ.items() if k != KEY_ENV}
    env.update(extra)
    return env


@dataclass(frozen=True)
class GameSetup:
    """Everything that decides one game before it starts."""

    game_id: str
    rules: RuleSet
    time_control: TimeControl
    players: tuple[EngineSpec, EngineSpec]
    first: int
    seed: int
    deal: str
    deal_secret: str
    stall_timeout: float = DEFAULT_STALL_TIMEOUT


@dataclass
class _Fault(Exception):
    """An engine misbehaved: it loses the game for this reason."""

    player: int
    reason: Reason
    detail: str


@dataclass
class _Seat:
    spec: EngineSpec
    info: PlayerInfo
    client: EngineClient | None = None
    colour: int | None = None


@dataclass
class _Traffic:
    lines: list[str] = field(default_factory=list)
    start: float = field(default_factory=time.monotonic)

    def logger(self, name: str) -> Callable[[str], None]:
        def log(line: str) -> None:
            self.lines.append(f"{time.monotonic() - self.start:9.3f} [{name}] {line}")

        return log


class GameRunner:
    """Plays one ``GameSetup`` and returns its record (and, if asked, the DCTP transcript)."""

    def __init__(self, setup: GameSetup, keep_traffic: bool = False) -> None:
        self.setup = setup
        self.layout = layout_from_secret(setup.deal_secret)
        self.game = Game(setup.rules)
        self.clock = Clock(setup.time_control)
        self.plies: list[PlyRecord] = []
        self.traffic = _Traffic() if keep_traffic else None
        self.seats = [
            _Seat(spec, PlayerInfo(name=spec.name, command=list(spec.command)))
            for spec in setup.players
        ]

    async def run(self) -> GameRecord:
        """Play the game to its end and build the record."""
        started = datetime.now(UTC)
        fault: _Fault | None = None
        try:
            await self._start_engines()
            await self._each(self._handshake)
            while self.game.outcome is None:
                await self._turn()
        except _Fault as found:
            fault = found
        finally:
            await self._stop_engines(fault)
        return self._record(started, fault)

    # -- engine I/O ------------------------------------------------------------------

    async def _start_engines(self) -> None:
        for index, seat in enumerate(self.seats):
            log = self.traffic.logger(seat.spec.name) if self.traffic else None
            try:
                seat.client = await EngineClient.start(
                    seat.spec.command,
                    cwd=seat.spec.cwd,
                    env=engine_environment(seat.spec.env),
                    name=seat.spec.name,
                    traffic_log=log,
                )
            except (OSError, EngineError) as error:
                raise _Fault(index, Reason.CRASH, f"could not start: {error}") from None

    async def _each(self, action: Callable[[int], Coroutine[Any, Any, None]]) -> None:
        """Run ``action`` for both players at once; re-raise the first player's fault first."""
        results = await asyncio.gather(action(0), action(1), return_exceptions=True)
        for result in results:
            if isinstance(result, BaseException):
                raise result

    async def _ask(self, player: int, command: Command, timeout: float) -> Reply:
        """Send one command and classify every way the engine can fail to answer."""
        client = self.seats[player].client
        assert client is not None
        try:
            return await client.request(command, timeout=timeout)
        except EngineTimeoutError:
            raise _Fault(
                player, Reason.STALL, f"no reply to '{command.line()}' within {timeout:g}s"
            ) from None
        except (EngineTerminatedError, EnginePipeClosedError) as error:
            raise _Fault(player, Reason.CRASH, str(error)) from None
        except EngineError as error:
            raise _Fault(player, Reason.UNREADABLE_REPLY, str(error)) from None

    async def _handshake(self, player: int) -> None:
        """The platform's start of a game, then the courtesy questions.

        ``reset_board``, ``time_settings`` and ``ready`` are what the platform sends and
        must be answered. The draw limits of a non-Olympiad rule set and ``name`` and
        ``version`` are extras that an engine written for the platform may not answer:
        silence there costs it ``OPTIONAL_TIMEOUT`` seconds, not the game.
        """
        seat = self.seats[player]
        stall = self.setup.stall_timeout
        rules = self.setup.rules
        await self._ask(player, Command.reset_board(), stall)
        await self._ask(player, Command.time_settings(self.setup.time_control.time_ms), stall)
        if rules.repetition_count != PRESETS["olympiad"].repetition_count:
            await self._ask_optional(player, Command.num_repetition(rules.repetition_count))
        if rules.no_progress_limit != PRESETS["olympiad"].no_progress_limit:
            await self._ask_optional(player, Command.num_moves_to_draw(rules.no_progress_limit))
        await self._ask(player, Command.ready(), stall)
        for command, attribute in ((Command.name(), "engine_name"), (Command.version(), "version")):
            reply = await self._ask_optional(player, command)
            if reply is not None and reply.ok and reply.payload:
                setattr(seat.info, attribute, reply.payload.strip()[:200])

    async def _ask_optional(self, player: int, command: Command) -> Reply | None:
        """``_ask`` for a command the engine may leave unanswered (None then)."""
        try:
            return await self._ask(player, command, min(OPTIONAL_TIMEOUT, self.setup.stall_timeout))
        except _Fault as fault:
            if fault.reason is Reason.STALL:
                return None
            raise

    async def _turn(self) -> None:
        mover = self.setup.first if len(self.plies) % 2 == 0 else 1 - self.setup.first
        side = self.game.side
        colour = "unknown" if side == UNDECIDED else COLOUR_NAMES[side]
        allowance = self.clock.allowance(mover)
        client = self.seats[mover].client
        assert client is not None
        started = time.monotonic()
        try:
            reply = await self._think(mover, client, Command.genmove(colour), allowance)
        except EngineTimeoutError:
            self.clock.charge(mover, time.monotonic() - started)
            raise _Fault(mover, Reason.TIME_FORFEIT, f"no move within {allowance:.3f}s") from None
        except (EngineTerminatedError, EnginePipeClosedError) as error:
            raise _Fault(mover, Reason.CRASH, str(error)) from None
        except EngineError as error:
            raise _Fault(mover, Reason.UNREADABLE_REPLY, str(error)) from None
        elapsed = time.monotonic() - started
        if not self.clock.charge(mover, elapsed):
            raise _Fault(
                mover, Reason.TIME_FORFEIT, f"took {elapsed:.3f}s with {allowance:.3f}s allowed"
            )
        if not reply.ok:
            raise _Fault(
                mover, Reason.UNREADABLE_REPLY, f"genmove failed: ?{reply.id} {reply.payload}"
            )
        try:
            answer = parse_genmove_payload(reply.payload)
        except ProtocolError as error:
            raise _Fault(mover, Reason.UNREADABLE_REPLY, str(error)) from None
        if answer.move is None:
            raise _Fault(mover, Reason.RESIGN, "resigned (a0 a0)")
        move = answer.move
        frm = move >> 5
        flip = frm == move & 31
        piece = self.layout[frm] if flip else None
        try:
            self.game.check(move, piece)
        except MoveError as error:
            raise _Fault(mover, Reason.ILLEGAL_MOVE, f"{reply.payload.strip()}: {error}") from None
        self.game.play(move, piece)
        if piece is not None and self.seats[mover].colour is None:
            self.seats[mover].colour = piece // 7
            self.seats[1 - mover].colour = 1 - piece // 7
            for seat in self.seats:
                assert seat.colour is not None
                seat.info.colour = "red" if seat.colour == 0 else "black"
        if piece is not None:
            text, echo = format_flip(frm, piece), Command.flip(frm, piece)
        else:
            text, echo = format_move(move), Command.move(frm, move & 31)
        clocks = (self.clock.remaining_ms(0), self.clock.remaining_ms(1))
        self.plies.append(
            PlyRecord(player=mover, move=text, ms=round(elapsed * 1000), clocks_ms=clocks)
        )
        mover_colour = self.seats[mover].colour
        assert mover_colour is not None
        time_left = Command.time_left(COLOUR_NAMES[mover_colour], self.clock.remaining_ms(mover))

        async def tell(player: int) -> None:
            for command in (echo, time_left):
                await self._ask(player, command, self.setup.stall_timeout)

        try:
            await self._each(tell)
        except _Fault:
            # A fault after the ply that ended the game on the board does not change its result.
            if self.game.outcome is None:
                raise

    async def _think(
        self, player: int, client: EngineClient, command: Command, allowance: float
    ) -> Reply:
        """Await a genmove reply; an engine whose process group uses no CPU for the stall
        timeout while it owes a move is stuck, and loses by ``stall`` without waiting for
        its clock."""
        stall = self.setup.stall_timeout
        request = asyncio.ensure_future(client.request(command, timeout=allowance))
        last: int | None = None  # sampled only once the engine is slow to answer
        active = time.monotonic()
        while True:
            done, _ = await asyncio.wait({request}, timeout=min(0.5, stall / 4))
            if done:
                return request.result()
            ticks = group_cpu_ticks(client.pid)
            if ticks is None:
                return await request
            if last is None or ticks > last:
                last, active = ticks, time.monotonic()
            elif time.monotonic() - active >= stall:
                request.cancel()
                with contextlib.suppress(asyncio.CancelledError, EngineError):
                    await request
                raise _Fault(
                    player, Reason.STALL, f"no move and no CPU used for {stall:g}s while thinking"
                )

    async def _stop_engines(self, fault: _Fault | None) -> None:
        async def stop(seat: _Seat) -> None:
            client = seat.client
            if client is None:
                return
            with contextlib.suppress(Exception):
                if fault is None:
                    await client.request(Command.game_over("end"), timeout=1.0)
            await client.quit()

        await asyncio.shield(asyncio.gather(*(stop(seat) for seat in self.seats)))

    # -- the record --------------------------------------------------------------------

    def _label(self, player: int) -> str:
        colour = self.seats[player].colour
        return COLOUR_NAMES[colour] if colour is not None else self.seats[player].spec.name

    def _record(self, started: datetime, fault: _Fault | None) -> GameRecord:
        detail = ""
        if fault is not None:
            winner: int | None = 1 - fault.player
            reason = fault.reason
            detail = fault.detail
            result = (
                f"{self._label(1 - fault.player)} wins: "
                f"{self._label(fault.player)} {_FAULT_WORDS[reason]}"
            )
        else:
            outcome = self.game.outcome
            assert outcome is not None
            reason = Reason(outcome.reason.value)
            result = outcome.description
            winner = None
            if outcome.winner is not None:
                winner = next(i for i, s in enumerate(self.seats) if s.colour == outcome.winner)
        setup = self.setup
        return GameRecord(
            game_id=setup.game_id,
            rules=setup.rules,
            time_control=setup.time_control,
            players=(self.seats[0].info, self.seats[1].info),
            first=setup.first,
            seed=setup.seed,
            deal=setup.deal,
            deal_secret=setup.deal_secret,
            layout=format_layout(self.layout),
            started_at=started,
            finished_at=datetime.now(UTC),
            plies=self.plies,
            winner=winner,
            reason=reason,
            result=result,
            detail=detail,
            end_ply=len(self.plies),
        )

    def transcript(self) -> str:
        """The DCTP traffic of the game, one line per message, if it was kept."""
        return "\n".join(self.traffic.lines) + "\n" if self.traffic else ""


_FAULT_WORDS = {
    Reason.TIME_FORFEIT: "exceeded its time",
    Reason.ILLEGAL_MOVE: "played an illegal move",
    Reason.UNREADABLE_REPLY: "sent an unreadable reply",
    Reason.CRASH: "crashed",
    Reason.STALL: "stopped answering",
    Reason.RESIGN: "resigned",
    Reason.FORFEIT: "forfeited",
}


async def play_game(setup: GameSetup, traffic_path: Path | None = None) -> GameRecord:
    """Play one game; write its DCTP transcript to ``traffic_path`` if given."""
    runner = GameRunner(setup, keep_traffic=traffic_path is not None)
    try:
        return await runner.run()
    finally:
        if traffic_path is not None:
            write_atomic(traffic_path, runner.transcript())
