"""``Engine``: a DCTP engine spoken to from plain (blocking) code, like python-chess's
``SimpleEngine``.

``Engine.popen(command)`` starts an engine process and ``Engine.builtin(level)`` plays
the project's own engine in this process; either way an event loop in a background
thread drives it through ``protocol.session.EngineSession``, as a platform would. Every
method blocks for a bounded time and returns a value. ``close()`` (or leaving the
``with`` block) quits the engine and reaps its process; an engine the script forgets is
quit when it is garbage collected or when the interpreter exits.
"""

import contextlib
import os
import threading
import weakref
from collections.abc import Callable, Coroutine, Mapping
from typing import Any, Final, TypeVar

from banqi_common.closing import Closing
from banqi_engine.game import Game
from banqi_engine.players import MAX_LEVEL, make_player
from banqi_engine.position import Position, parse_position
from banqi_engine.rules import DEFAULT_RULES, RuleSet
from protocol.connection import EngineConnection
from protocol.engine_loop import ENGINE_NAME, DctpEngine
from protocol.errors import EngineTimeoutError
from protocol.in_process import InProcessEngine
from protocol.session import EngineIdentity, EngineSession, MoveAnswer
from referee.engine_start import start_engine_process

from ._args import EngineLike, RulesLike, engine_spec, rule_set, seconds
from ._loop import BackgroundLoop
from ._telling import Teller
from .errors import ArgumentError, UnreadableMoveError
from .result import PlayResult

DEFAULT_TIMEOUT: Final = 5.0
"""Seconds an engine gets to answer a command other than genmove, and to answer genmove
after the time it was given."""
DEFAULT_MOVE_TIME: Final = 1.0
"""Seconds a move may take when ``play`` is given neither ``time`` nor ``clock``."""
START_WAIT: Final = 10.0
"""Seconds starting an engine's process may take."""
QUIT_WAIT: Final = 5.0
"""Seconds ``close`` waits for the engine to quit before killing it."""

T = TypeVar("T")

PositionLike = Game | Position | str
"""Where to move: a ``Game`` (its plies told as echoes), a ``Position`` or its string."""


def move_limit(time: float | None, clock: float | None) -> float:
    """The seconds told for one move: ``time`` (a limit for this move), ``clock`` (what is
    left on the mover's clock), the less of the two, or ``DEFAULT_MOVE_TIME``."""
    given = [
        value
        for value in (seconds("time", time), seconds("clock", clock, zero=True))
        if value is not None
    ]
    return min(given, default=DEFAULT_MOVE_TIME)


def _shut_down(loop: BackgroundLoop, session: EngineSession) -> None:
    """Quit the engine (kill it if it does not quit) and stop its loop; never raises."""
    if loop.stopped:
        return
    if loop.in_loop_thread():
        loop.finish(session.end_game(None))
        return
    try:
        loop.run(session.end_game(None), QUIT_WAIT)
    except Exception:
        with contextlib.suppress(Exception):
            loop.run(session.kill(), QUIT_WAIT)
    finally:
        loop.stop()


class Engine(Closing):
    """A DCTP engine driven synchronously; make one with :meth:`popen` or :meth:`builtin`.

    ``rules`` are the rules it was told; ``identity`` what it said to ``name`` and
    ``version``; ``timeout`` the seconds it gets for a command beyond its thinking time.
    """

    def __init__(
        self, loop: BackgroundLoop, connection: EngineConnection, rules: RuleSet, timeout: float
    ) -> None:
        """Use :meth:`popen` or :meth:`builtin`."""
        self._loop = loop
        self._connection = connection
        self._session = EngineSession(connection)
        self._teller = Teller(self._session, rules, timeout)
        self._lock = threading.Lock()
        self._finalizer = weakref.finalize(self, _shut_down, loop, self._session)
        self.rules = rules
        self.timeout = timeout
        self.identity = EngineIdentity()

    # -- making one ------------------------------------------------------------------

    @classmethod
    def popen(
        cls,
        command: EngineLike,
        *,
        rules: RulesLike = DEFAULT_RULES,
        name: str | None = None,
        cwd: str | os.PathLike[str] | None = None,
        env: Mapping[str, str] | None = None,
        timeout: float = DEFAULT_TIMEOUT,
    ) -> "Engine":
        """Start the engine ``command`` (a program's path, or program and arguments) as a
        process; ``env`` adds variables to this process's environment. It will be told
        ``rules`` (a preset name, a rule-set file or a RuleSet) at the start of each game.

        Raises EngineStartError when it cannot be started, ArgumentError for bad arguments.
        """
        spec = engine_spec(command, name=name, cwd=cwd, env=dict(env or {}))
        return cls._open(
            lambda: start_engine_process(spec, None), spec.name, rule_set(rules), timeout
        )

    @classmethod
    def builtin(
        cls,
        level: int = MAX_LEVEL,
        *,
        rules: RulesLike = DEFAULT_RULES,
        seed: int | None = None,
        timeout: float = DEFAULT_TIMEOUT,
    ) -> "Engine":
        """The project's own engine (``banqi-engine --level LEVEL``: 0 random, 1 greedy,
        2 short search, 3 full search) played in this process, with no process of its own."""
        chosen = rule_set(rules)
        try:
            player = make_player(level, seed, chosen)
        except ValueError as error:
            raise ArgumentError(str(error)) from None
        engine = DctpEngine(chosen, player)

        async def start() -> EngineConnection:
            return InProcessEngine(engine, ENGINE_NAME)

        return cls._open(start, ENGINE_NAME, chosen, timeout)

    @classmethod
    def _open(
        cls,
        start: Callable[[], Coroutine[Any, Any, EngineConnection]],
        name: str,
        rules: RuleSet,
        timeout: float,
    ) -> "Engine":
        """Start the connection ``start()`` makes on a new loop, and ask who it is."""
        wait = seconds("timeout", timeout)
        assert wait is not None
        loop = BackgroundLoop(f"banqi engine {name}")
        try:
            connection = loop.run(start(), START_WAIT)
        except TimeoutError:
            loop.stop()
            raise EngineTimeoutError(name, "(starting the process)", START_WAIT) from None
        except BaseException:
            loop.stop()
            raise
        engine = cls(loop, connection, rules, wait)
        try:
            engine.identity = engine._run(engine._greet(), 4 * wait, "the start of a game")
        except BaseException:
            engine.close()
            raise
        return engine

    async def _greet(self) -> EngineIdentity:
        """The start of a game (the engine is up and takes the rules), then ``name`` and
        ``version``; the first ``play`` starts its game afresh."""
        ms = round(DEFAULT_MOVE_TIME * 1000)
        await self._session.start_game(self.rules, ms, self.timeout)
        return await self._session.identify(self.timeout)

    # -- using it --------------------------------------------------------------------

    @property
    def name(self) -> str:
        """The engine's name in errors: the one given, or its command's program."""
        return self._session.name

    @property
    def pid(self) -> int | None:
        """The engine's process id (None for the in-process engine)."""
        return self._connection.pid

    def play(
        self, position: PositionLike, *, time: float | None = None, clock: float | None = None
    ) -> PlayResult:
        """The engine's move in ``position``: a ``Game`` (a game that goes on from the one
        asked last is told only its new plies), a ``Position`` or a position string (told
        by ``init_board``).

        ``time`` is the most seconds for this move, ``clock`` the seconds left on the
        mover's clock; the engine is told the less of them (default ``DEFAULT_MOVE_TIME``)
        by ``time_left`` before ``genmove``, as a platform tells a per-move limit, and
        decides itself how much of it to use. Nothing is judged: the move is what the
        engine said. Raises UnreadableMoveError, PositionRefusedError,
        PositionNotSupportedError or an ``protocol.errors.EngineError``.
        """
        game = self._game_of(position)
        limit = move_limit(time, clock)
        ms = round(limit * 1000)
        wait = limit + self.timeout
        bound = wait + self.timeout * (8 + len(game.plies))
        with self._lock:
            try:
                answer = self._run(self._play(game, ms, wait), bound, "genmove")
            except BaseException:
                self._teller.told = None
                raise
        if answer.unreadable is not None:
            raise UnreadableMoveError(self.name, answer.payload, answer.unreadable)
        return PlayResult.of(answer)

    def new_game(self) -> None:
        """Start a new game at the next ``play`` even if it continues the last one."""
        with self._lock:
            self._teller.told = None

    async def _play(self, game: Game, ms: int, wait: float) -> MoveAnswer:
        await self._teller.tell(game, ms)
        await self._session.tell_move_limit(game.side, ms, self.timeout)
        return await self._session.genmove(game.side, wait)

    def _game_of(self, position: PositionLike) -> Game:
        if isinstance(position, Game):
            if position.rules != self.rules:
                raise ArgumentError(
                    f"the game is played under the rules {position.rules.name!r}, the engine "
                    f"under {self.rules.name!r}: make the Game with engine.rules"
                )
            return position
        if isinstance(position, str):
            position = parse_position(position)
        if not isinstance(position, Position):
            raise ArgumentError(f"expected a Game, a Position or a position string: {position!r}")
        return Game(self.rules, position)

    def _run(self, coroutine: Coroutine[Any, Any, T], bound: float, what: str) -> T:
        try:
            return self._loop.run(coroutine, bound)
        except TimeoutError:
            raise EngineTimeoutError(self.name, what, bound) from None

    # -- the end ---------------------------------------------------------------------

    def close(self) -> None:
        """Quit the engine (killing it if it does not quit in ``QUIT_WAIT``) and reap its
        process; calling it again does nothing."""
        self._finalizer()

    @property
    def closed(self) -> bool:
        """Whether :meth:`close` has run."""
        return not self._finalizer.alive

    def __repr__(self) -> str:
        state = "closed" if self.closed else f"pid={self.pid}"
        return f"<Engine {self.name!r} {state}>"
