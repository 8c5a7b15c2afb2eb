"""``banqi check``: an engine driven as the referee drives it, through every command and
the hard cases, before it plays a run.

Each check starts the engine afresh (as the referee does, in its sandbox), plays its part
with a layout of its own and an opponent that picks random legal plies, and passes or
fails with why, the last line sent and the line received, and how to fix it. The last
check plays a whole refereed game against our engine.
"""

import random
import time
from collections.abc import Awaitable, Callable
from enum import StrEnum
from typing import Final

from pydantic import BaseModel, ConfigDict

from banqi_engine.errors import MoveError
from banqi_engine.game import Game
from banqi_engine.layout import random_layout
from banqi_engine.moves import Move
from banqi_engine.pieces import COLOUR_NAMES, UNDECIDED, Piece
from banqi_engine.rules import PRESETS, RuleSet, preset
from protocol.client import EngineClient
from protocol.connection import EngineConnection
from protocol.echo import echo_command
from protocol.errors import (
    EngineError,
    EngineStartError,
    EngineTerminatedError,
    EngineTimeoutError,
    ReplySyntaxError,
)
from protocol.messages import COMMAND_NAMES, Command, CommandId, Reply, parse_genmove_payload
from protocol.session import genmove_colour

from .deals import deal_secret
from .engine_spec import EngineSpec
from .engine_start import EngineFactory
from .game_runner import play_game
from .game_setup import DEFAULT_STALL_TIMEOUT, GameSetup
from .reasons import Reason
from .timecontrol import TimeControl

CHECK_CLOCK_MS: Final = 3_000
"""The clock each check tells the engine (``time_settings``), in milliseconds."""
LOW_CLOCK_MS: Final = 300
"""The clock told before the genmove that checks an engine budgets from ``time_left``."""
MARGIN_MS: Final = TimeControl().margin_ms
"""Grace beyond the clock, as the referee gives it."""
CLOSE_WAIT: Final = 1.0
"""Seconds an engine gets to exit after ``quit``, or to flush after its input is closed."""
PLIES: Final = 12
"""Plies a check plays before its hard case."""
DEFAULT_GAME_SECONDS: Final = 10.0
"""Seconds a side in the whole game against our engine."""
OPPONENT_LEVEL: Final = "1"
"""Our engine's level in that game: the greedy player, quick and legal."""

FLUSH_FIX: Final = (
    "flush stdout after every reply: Python print(..., flush=True) or sys.stdout.flush(); "
    "C printf then fflush(stdout), or setvbuf(stdout, NULL, _IONBF, 0); C++ std::endl"
)
REPLY_FIX: Final = "answer every command with one line, '=<id>' or '=<id> <payload>'"
MOVE_FIX: Final = (
    "answer genmove with '=12 <from> <to>' (a move or capture, e.g. '=12 a2 a3'), a flip as "
    "'=12 b6 b6', a resignation as '=12 a0 a0'; squares a1-d8"
)
ECHO_FIX: Final = (
    "apply the board only from the echoes ('10 move a2 a3', '11 flip b6 K': upper case red, "
    "lower case black), your own moves' echoes included, and never from your own answer"
)


class Status(StrEnum):
    """How a check came out."""

    PASSED = "ok"
    """The engine did what the referee expects."""
    FAILED = "FAIL"
    """It did not: the result says what was sent, what came back, and how to fix it."""
    NOTE = "note"
    """Nothing wrong, but something a bot author should know (an optional feature absent)."""
    SKIPPED = "skip"
    """Not tried: the engine did not start, or an earlier check failed."""


class CheckResult(BaseModel):
    """One check: what it checks, how it came out, and what to do about a failure."""

    model_config = ConfigDict(frozen=True)

    title: str
    status: Status
    why: str = ""
    sent: str = ""
    """The last command line sent before the failure."""
    received: str = ""
    """What came back to it (a reply line, the end of stderr, or nothing)."""
    fix: str = ""


class CheckFailed(Exception):
    """Raised inside a check: why it failed and how to fix it."""

    def __init__(self, why: str, fix: str = "", sent: str = "", received: str = "") -> None:
        super().__init__(why)
        self.why, self.fix, self.sent, self.received = why, fix, sent, received

    def result(self, title: str) -> "CheckResult":
        """The failed check ``title`` this makes."""
        return CheckResult(
            title=title,
            status=Status.FAILED,
            why=self.why,
            sent=self.sent,
            received=self.received,
            fix=self.fix,
        )


class Probe:
    """One engine process of a check, its traffic kept so a failure can quote it."""

    def __init__(self, spec: EngineSpec, start: EngineFactory) -> None:
        self.spec = spec
        self._start = start
        self.lines: list[str] = []
        self._connection: EngineConnection | None = None

    @property
    def connection(self) -> EngineConnection:
        """The engine's connection, once started."""
        assert self._connection is not None
        return self._connection

    async def __aenter__(self) -> "Probe":
        try:
            self._connection = await self._start(self.spec, self.lines.append)
        except (EngineStartError, OSError) as error:
            words = error.message if isinstance(error, EngineError) else str(error)
            raise CheckFailed(
                f"it cannot be started: {words}",
                "give the path of an executable file (chmod +x, a #! line for a script), "
                "or the interpreter and the script: 'python3 bot.py'",
            ) from None
        return self

    async def __aexit__(self, *exc: object) -> None:
        if self._connection is not None:
            await self._connection.quit()

    def received(self) -> str:
        """The last line the engine wrote on stdout, or the end of its stderr."""
        for line in reversed(self.lines):
            if line.startswith("< "):
                return line[2:]
        stderr = [line[2:] for line in self.lines if line.startswith("! ")]
        return " | ".join(stderr[-3:]) if stderr else "(nothing)"

    async def ask(self, command: Command, timeout: float | None = None) -> Reply:
        """Send ``command``; its reply, which must be a success; CheckFailed otherwise."""
        line = command.line()
        wait = DEFAULT_STALL_TIMEOUT if timeout is None else timeout
        try:
            reply = await self.connection.request(command, wait)
        except EngineTimeoutError:
            raise await self._no_reply(command, wait) from None
        except EngineTerminatedError as error:
            tail = error.stderr_tail.strip().replace("\n", " | ")[-400:]
            raise CheckFailed(
                f"the engine exited (status {error.returncode}) instead of answering",
                "read the end of its stderr; an engine exits only after answering '5 quit' "
                "or at the end of its input",
                line,
                f"stderr: {tail}" if tail else "(nothing)",
            ) from None
        except EngineError as error:
            raise CheckFailed(error.message, REPLY_FIX, line, self.received()) from None
        if not reply.ok:
            raise CheckFailed(
                f"it refused '{COMMAND_NAMES[command.id]}'",
                f"answer it with '={int(command.id)}' (every command of the platform must be "
                "taken, even one the engine has no use for)",
                line,
                reply.line(),
            )
        return reply

    async def _no_reply(self, command: Command, wait: float) -> CheckFailed:
        """Why a command got no reply: not flushed (the reply comes once its input closes),
        or not answered at all."""
        ident = int(command.id)
        seen = len(self.lines)
        connection = self.connection
        if isinstance(connection, EngineClient):
            await connection.close_input(CLOSE_WAIT)
        late = [
            line[2:]
            for line in self.lines[seen:]
            if line.startswith((f"< ={ident}", f"< ?{ident}"))
        ]
        if late:
            return CheckFailed(
                f"no reply within {wait:g}s; it came only when the engine's input was closed, "
                "so stdout is not flushed after each reply",
                FLUSH_FIX,
                command.line(),
                late[0],
            )
        return CheckFailed(
            f"no reply within {wait:g}s",
            f"{REPLY_FIX}, at once (genmove within the time left); and {FLUSH_FIX}",
            command.line(),
            self.received(),
        )


class Table:
    """The check's side of a game: the layout, the board, the clocks, the random opponent."""

    def __init__(self, rules: RuleSet, rng: random.Random) -> None:
        self.rules = rules
        self.rng = rng
        self.layout: list[Piece] = random_layout(rng)
        self.game = Game(rules, play_past_end=True)
        self.clock = {0: CHECK_CLOCK_MS, 1: CHECK_CLOCK_MS}

    async def next_game(self, probe: Probe) -> None:
        """A fresh game on a new layout, started as the referee starts one."""
        self.game = Game(self.rules, play_past_end=True)
        self.layout = random_layout(self.rng)
        await self.start(probe)

    async def start(self, probe: Probe) -> None:
        """The start of a game as the referee sends it."""
        await probe.ask(Command.reset_board())
        await probe.ask(Command.time_settings(CHECK_CLOCK_MS))
        if self.rules != preset("olympiad"):
            await probe.ask(Command.rule_set(self.rules))
        await probe.ask(Command.ready())

    async def tell(self, probe: Probe, move: Move, piece: Piece | None) -> None:
        """Play a ply and tell it: its echo, then the mover's ``time_left``."""
        pos = self.game.position
        echo = echo_command(pos, self.rules, move, piece)
        mover = pos.side
        self.game.play(move, piece)
        if mover == UNDECIDED:
            mover = self.game.first_colour if self.game.first_colour is not None else UNDECIDED
        await probe.ask(echo)
        if mover != UNDECIDED:
            await probe.ask(Command.time_left(mover, self.clock[mover]))

    async def engine_ply(self, probe: Probe, budget_ms: int | None = None) -> None:
        """Ask the engine for a ply, check it, and tell it."""
        side = self.game.side
        left = self.clock[side] if side != UNDECIDED else CHECK_CLOCK_MS
        if budget_ms is not None:
            left = budget_ms
        command = Command.genmove(genmove_colour(side))
        started = time.monotonic()
        reply = await probe.ask(command, (left + MARGIN_MS) / 1000)
        spent = round((time.monotonic() - started) * 1000)
        if side != UNDECIDED:
            self.clock[side] = max(1, self.clock[side] - spent)
        try:
            answer = parse_genmove_payload(reply.payload)
        except ReplySyntaxError as error:
            raise CheckFailed(str(error), MOVE_FIX, command.line(), reply.line()) from None
        if answer.move is None:
            raise CheckFailed(
                f"it resigned at ply {len(self.game.plies) + 1}, with "
                f"{len(self.game.legal_moves())} legal plies to choose from",
                "resign ('a0 a0') only in a lost position; the check needs a move here",
                command.line(),
                reply.line(),
            )
        move = answer.move
        piece = self.game.piece_shown(move, self.layout)
        try:
            self.game.check(move, piece)
        except MoveError as error:
            raise CheckFailed(
                f"illegal at ply {len(self.game.plies) + 1} "
                f"(position {self.game.position.to_string()}): {error}",
                f"{ECHO_FIX}; generate moves by the rules (docs/rules.md)",
                command.line(),
                reply.line(),
            ) from None
        await self.tell(probe, move, piece)

    async def other_ply(self, probe: Probe) -> None:
        """A random legal ply of the opponent, told."""
        move = self.rng.choice(self.game.legal_moves())
        await self.tell(probe, move, self.game.piece_shown(move, self.layout))

    async def play(self, probe: Probe, plies: int, engine_first: bool) -> None:
        """``plies`` plies from the current position, the engine moving first or second."""
        for index in range(plies):
            if not self.game.legal_moves():
                return
            if (index % 2 == 0) == engine_first:
                await self.engine_ply(probe)
            else:
                await self.other_ply(probe)

    async def retell(self, probe: Probe, keep: int) -> None:
        """A new game re-told from its first ``keep`` plies (a take-back, a resumed game)."""
        plies = self.game.plies[:keep]
        self.game = Game(self.rules, play_past_end=True)
        await self.start(probe)
        for ply in plies:
            await self.tell(probe, ply.move, ply.piece)


Check = Callable[[Probe, random.Random], Awaitable[str | None]]
"""One check's part: CheckFailed if it fails, else None or a note (status NOTE)."""


async def starts(probe: Probe, rng: random.Random) -> str | None:
    """reset_board, time_settings, ready."""
    await Table(preset("olympiad"), rng).start(probe)
    return None


async def identifies(probe: Probe, rng: random.Random) -> str | None:
    """name, version, protocol_version."""
    for command in (Command.name(), Command.version(), Command.protocol_version()):
        reply = await probe.ask(command)
        if not reply.payload.strip():
            raise CheckFailed(
                f"'{COMMAND_NAMES[command.id]}' answered with nothing",
                f"answer '={int(command.id)} <words>', e.g. '=1 my-bot'",
                command.line(),
                reply.line(),
            )
    return None


async def lists_commands(probe: Probe, rng: random.Random) -> str | None:
    """list_commands, known_command, boardsize, showboard."""
    command = Command.list_commands()
    listed = (await probe.ask(command)).payload.split()
    missing = [
        COMMAND_NAMES[c]
        for c in CommandId
        if c <= CommandId.SHOWBOARD
        and COMMAND_NAMES[c] not in listed
        and c != CommandId.TIME_SETTINGS
    ]
    if missing:
        raise CheckFailed(
            f"list_commands leaves out {', '.join(missing)}",
            "list every command the engine answers, one name a line (the first on the '=4' line)",
            command.line(),
            " ".join(listed)[:200],
        )
    for name, expected in (("genmove", "true"), ("no_such_command", "false")):
        command = Command.known_command(name)
        reply = await probe.ask(command)
        if reply.payload.strip() != expected:
            raise CheckFailed(
                f"known_command {name} answered {reply.payload!r}, not {expected!r}",
                "answer 'true' for a command it answers, 'false' for any other",
                command.line(),
                reply.line(),
            )
    await probe.ask(Command.boardsize())
    await probe.ask(Command(CommandId.SHOWBOARD))
    return None


async def draw_limits(probe: Probe, rng: random.Random) -> str | None:
    """num_repetition and num_moves_to_draw."""
    await Table(preset("olympiad"), rng).start(probe)
    await probe.ask(Command.num_repetition(3))
    await probe.ask(Command.num_moves_to_draw(180))
    return None


async def moves_first(probe: Probe, rng: random.Random) -> str | None:
    """genmove unknown, then the colour its own first flip gave it."""
    table = Table(preset("olympiad"), rng)
    await table.start(probe)
    await table.play(probe, PLIES, engine_first=True)
    return None


async def moves_second(probe: Probe, rng: random.Random) -> str | None:
    """The other player flips first; the engine moves with the other colour."""
    table = Table(preset("olympiad"), rng)
    await table.start(probe)
    await table.play(probe, PLIES, engine_first=False)
    return None


async def little_time(probe: Probe, rng: random.Random) -> str | None:
    """time_left low, then genmove: answered within it."""
    table = Table(preset("olympiad"), rng)
    await table.start(probe)
    await table.play(probe, PLIES, engine_first=True)
    side = table.game.side
    await probe.ask(Command.time_left(side, LOW_CLOCK_MS))
    try:
        await table.engine_ply(probe, LOW_CLOCK_MS)
    except CheckFailed as failure:
        if failure.why.startswith("no reply"):
            failure.why = (
                f"no move within the {LOW_CLOCK_MS} ms its clock had left (plus the "
                f"referee's {MARGIN_MS} ms margin): it lost on time"
            )
            failure.fix = (
                "budget each move from the latest 'time_left <colour> <ms>' told for your "
                "colour, not from time_settings"
            )
        raise
    return None


async def new_game_midway(probe: Probe, rng: random.Random) -> str | None:
    """reset_board in the middle of a game: a fresh board, colours unknown again."""
    table = Table(preset("olympiad"), rng)
    await table.start(probe)
    await table.play(probe, PLIES, engine_first=True)
    await table.next_game(probe)
    await table.play(probe, PLIES // 2, engine_first=True)
    return None


async def retold(probe: Probe, rng: random.Random) -> str | None:
    """A take-back: the game re-told without its last two plies, then genmove."""
    table = Table(preset("olympiad"), rng)
    await table.start(probe)
    await table.play(probe, PLIES, engine_first=True)
    await table.retell(probe, PLIES - 2)
    await table.play(probe, 4, engine_first=True)
    return None


async def game_over_then_next(probe: Probe, rng: random.Random) -> str | None:
    """game_over (the other side resigned), then the next game."""
    table = Table(preset("olympiad"), rng)
    await table.start(probe)
    await table.play(probe, PLIES // 2, engine_first=True)
    loser = table.game.side
    words = f"{COLOUR_NAMES[1 - loser]} wins: {COLOUR_NAMES[loser]} resigned"
    await probe.ask(Command.game_over(words))
    await table.next_game(probe)
    await table.play(probe, PLIES // 2, engine_first=False)
    return None


async def rule_sets(probe: Probe, rng: random.Random) -> str | None:
    """rule_set, if listed: every preset it takes is played by its rules."""
    listed = (await probe.ask(Command.list_commands())).payload.split()
    if COMMAND_NAMES[CommandId.RULE_SET] not in listed:
        return (
            "it plays the Olympiad rules only (rule_set is not listed): runs under other rules "
            "tell it just num_repetition and num_moves_to_draw, and those with moves onto "
            "face-down pieces cannot use it"
        )
    taken, refused = [], []
    for name, rules in PRESETS.items():
        if name == "olympiad":
            continue
        table = Table(rules, rng)
        await probe.ask(Command.reset_board())
        await probe.ask(Command.time_settings(CHECK_CLOCK_MS))
        command = Command.rule_set(rules)
        reply = await probe.connection.request(command, DEFAULT_STALL_TIMEOUT)
        if not reply.ok:
            refused.append(name)
            continue
        taken.append(name)
        await probe.ask(Command.ready())
        try:
            await table.play(probe, PLIES, engine_first=True)
        except CheckFailed as failure:
            failure.why = f"under {name} (which it took): {failure.why}"
            raise
    note = f"took and played {', '.join(taken) or 'none'}"
    return f"{note}; refused {', '.join(refused)}" if refused else None


async def whole_game(
    spec: EngineSpec, start: EngineFactory, opponent: EngineSpec, game_seconds: float, seed: int
) -> CheckResult:
    """A game to its end against our engine, refereed as in a run."""
    title = f"plays a whole game against {opponent.name} ({game_seconds:g} s a side)"
    setup = GameSetup(
        game_id="check",
        players=(spec, opponent),
        first=seed % 2,
        deal="check",
        seed=seed,
        rules=preset("olympiad"),
        time_control=TimeControl(time=game_seconds),
        stall_timeout=DEFAULT_STALL_TIMEOUT,
    )
    played = await play_game(
        setup, deal_secret(random.randbytes(32), seed, "check"), start_engine=start
    )
    record = played.record
    lost = record.winner == 1 or record.void
    if lost and (record.reason.is_fault or record.reason is Reason.TIME_FORFEIT):
        return CheckResult(
            title=title,
            status=Status.FAILED,
            why=f"{record.result} ({record.reason.value}) at ply {record.end_ply}"
            + (f": {record.detail}" if record.detail else ""),
            fix="run the game with 'banqi match ... --log-traffic' and read the transcript",
        )
    colour = record.players[0].colour
    played_as = f"it played {colour}" if colour is not None else "colours never decided"
    return CheckResult(
        title=title,
        status=Status.PASSED,
        why=f"{played_as}; {record.result}, {record.end_ply} plies",
    )


CHECKS: Final[tuple[tuple[str, Check], ...]] = (
    ("starts and takes a new game: reset_board, time_settings, ready", starts),
    ("says who it is: name, version, protocol_version", identifies),
    ("lists its commands: list_commands, known_command, boardsize, showboard", lists_commands),
    ("takes the draw limits: num_repetition, num_moves_to_draw", draw_limits),
    ("moves first (genmove unknown), then with the colour its flip gave it", moves_first),
    ("moves second, with the colour the other's first flip left it", moves_second),
    (f"answers within a low time_left ({LOW_CLOCK_MS} ms)", little_time),
    ("takes a new game (reset_board) in the middle of one", new_game_midway),
    ("follows a game re-told after a take-back of two plies", retold),
    ("takes game_over (the other side resigned) and then the next game", game_over_then_next),
    ("plays the rule sets it claims (rule_set)", rule_sets),
)
"""The checks on one engine, in order; the whole game and quit come after them."""


async def quits(probe: Probe, rng: random.Random) -> str | None:
    """quit: answered, then the process exits, with nothing more on stdout."""
    command = Command.quit()
    await probe.ask(command)
    connection = probe.connection
    if isinstance(connection, EngineClient) and not await connection.wait_exit(CLOSE_WAIT):
        raise CheckFailed(
            f"it answered but was still running {CLOSE_WAIT:g} s after",
            "exit right after answering '=5' (Python: return or sys.exit(0))",
            command.line(),
            "=5",
        )
    replied = max(i for i, line in enumerate(probe.lines) if line.startswith("< =5"))
    after = [line[2:] for line in probe.lines[replied + 1 :] if line.startswith("< ")]
    if after:
        raise CheckFailed(
            f"it wrote {len(after)} more line(s) on stdout after answering quit",
            "write nothing after '=5'; notes go to stderr",
            command.line(),
            after[0][:200],
        )
    return None


async def run_checks(
    spec: EngineSpec,
    start: EngineFactory,
    opponent: EngineSpec,
    game_seconds: float,
    seed: int,
    report: Callable[[CheckResult], None],
) -> list[CheckResult]:
    """Every check on the engine of ``spec`` (``seed`` chooses their layouts), each reported
    as it ends; the whole game is skipped when an earlier check failed, all of them when the
    engine cannot start."""
    results: list[CheckResult] = []

    def done(result: CheckResult) -> None:
        results.append(result)
        report(result)

    async def one(title: str, check: Check, rng: random.Random) -> None:
        try:
            async with Probe(spec, start) as probe:
                note = await check(probe, rng)
        except CheckFailed as failure:
            done(failure.result(title))
            return
        done(
            CheckResult(title=title, status=Status.NOTE if note else Status.PASSED, why=note or "")
        )

    for number, (title, check) in enumerate(CHECKS):
        rng = random.Random(seed * 100 + number)
        await one(title, check, rng)
        if number == 0 and results[0].status is Status.FAILED:
            for later, _ in CHECKS[1:]:
                done(CheckResult(title=later, status=Status.SKIPPED, why="it did not start"))
            break
    await one("quits: answers quit, exits, and writes nothing after", quits, random.Random(seed))
    title = f"plays a whole game against {opponent.name} ({game_seconds:g} s a side)"
    if any(result.status is Status.FAILED for result in results):
        done(CheckResult(title=title, status=Status.SKIPPED, why="an earlier check failed"))
    else:
        done(await whole_game(spec, start, opponent, game_seconds, seed))
    return results
