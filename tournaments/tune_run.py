"""A tuning run: SPSA (:mod:`tournaments.tune`) over pairs of games between an engine at
``theta + c_k delta`` and the same engine at ``theta - c_k delta``, each pair on one hidden
layout with the seats swapped, ``concurrency`` pairs at once. Against a fixed opponent
(``opponent``) each of the two plays instead a pair against it, both pairs on the
iteration's hidden layout, so that the layout's luck cancels out of their difference.

An engine is told its parameters on its command line: each parameter rendered by the run's
``param_format`` (default ``--param {name}={value}``, what ``banqi-engine`` takes), so any
DCTP engine that takes its parameters as arguments can be tuned.

The run folder holds ``tune-settings.json`` (:class:`TuneSettings`: the settings and seed,
the parameter file's contents included) and ``tune-state.json`` (:class:`TuneState`: theta
and every pair played), each with its MAC (``referee.macs``), the latter written
atomically after every pair, so a run killed at
any moment resumes with the same command and loses at most the pairs being played; those
iterations are played again (same deal, same perturbation directions, theta as it is
then). A pair starts with theta as it is when it starts, and updates theta when it ends,
as fishtest's workers do. At the end ``tuned.toml`` holds theta in the parameter file's
format.

With a deal book (``--deals``) iteration k plays the book's entry (k - 1) mod its size:
the book's deals in turn, again and again (a book of openings, ``banqi deals --from``,
tunes the engine on the positions it holds, the face-up endgame say). The settings keep
the book's SHA-256, so that a run resumes with the same book only.
"""

import asyncio
import shlex
import string
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from functools import partial
from pathlib import Path
from typing import ClassVar, Final, Literal

from pydantic import Field

from banqi_common.atomic import write_atomic
from banqi_common.errors import InputError
from banqi_common.write_errors import writing
from banqi_engine.players import MAX_LEVEL
from referee.deal_book import BookStamp, LoadedBook, check_same_book, stamp_of
from referee.deals import Deal, deal_secret, dealt
from referee.engine_spec import EngineSpec
from referee.engine_start import EngineFactory, start_engine_process
from referee.game_runner import PlayedGame
from referee.game_setup import GameSetup
from referee.macs import MacKeys
from referee.record import GameRecord

from .config import builtin_engine_command
from .differences import model_differences
from .match import MAX_FAILURES
from .pairs import paired_setups
from .run_config import FolderRunConfig
from .run_folder import RunKind, RunState, open_run_folder, refuse_other_settings, write_state
from .run_kinds import TUNE_FILE, RunFolderError
from .runner import GamePlayer, PlayPlace, play_here, save_whole
from .tune import PairResult, Spsa, TuneGame, TuneParam, TuneState, param_file_text

STATE_FILE: Final = "tune-state.json"
TUNED_FILE: Final = "tuned.toml"
TRAFFIC_DIR: Final = "traffic"
DEFAULT_PARAM_FORMAT: Final = "--param {name}={value}"
MAX_ITERATIONS: Final = 1_000_000
PLUS: Final = "plus"
MINUS: Final = "minus"
OPPONENT: Final = "opponent"
"""The names the engines of an iteration play under (in records and transcripts)."""


class TuneError(InputError):
    """A tuning run that cannot go on: its engines keep failing."""


def check_param_format(param_format: str) -> None:
    """Refuse a format that does not make command-line arguments out of ``{name}`` and
    ``{value}``; the error says why."""
    try:
        words = shlex.split(param_format)
    except ValueError as error:
        raise ValueError(f"{param_format!r} does not split like a shell: {error}") from None
    fields = set()
    for word in words:
        try:
            parsed = list(string.Formatter().parse(word))
        except ValueError as error:
            raise ValueError(f"{param_format!r}: {error}") from None
        fields |= {field for _, field, _, _ in parsed if field is not None}
    unknown = fields - {"name", "value"}
    if unknown:
        raise ValueError(
            f"{param_format!r} names {', '.join(sorted(f'{{{f}}}' for f in unknown))}; "
            "only {name} and {value} are filled in"
        )
    if fields != {"name", "value"}:
        raise ValueError(f"{param_format!r} must contain both {{name}} and {{value}}")
    try:
        param_args(param_format, {"x": 1.5})
    except (ValueError, IndexError) as error:
        raise ValueError(f"{param_format!r} cannot format a value: {error}") from None


def param_args(param_format: str, values: Mapping[str, float]) -> list[str]:
    """The command-line arguments that give an engine ``values``: ``param_format`` split like
    a shell, then each word formatted for each parameter in turn (so a name or value is one
    argument whatever it holds)."""
    words = shlex.split(param_format)
    args = []
    for name, value in values.items():
        shown: float | int = int(value) if value.is_integer() and abs(value) < 2**53 else value
        args += [word.format(name=name, value=shown) for word in words]
    return args


class TuneConfig(FolderRunConfig):
    """A tuning run: the engine and how it is given its parameters, the parameters, how
    many iterations, under which rules and clock; ``concurrency`` pairs played at once."""

    saved_order: ClassVar[tuple[str, ...]] = (
        "engine",
        "param_format",
        "opponent",
        "params",
        "iterations",
        "rules",
        "time_control",
        "stall_timeout",
        "seed",
        "out",
        "concurrency",
        "sandbox",
        "log_traffic",
    )

    left_out_when_none: ClassVar[frozenset[str]] = frozenset({"opponent"})

    engine: tuple[str, ...] | None = Field(
        default=None, description="The engine's command; None: the built-in engine at level 3."
    )
    param_format: str = DEFAULT_PARAM_FORMAT
    opponent: tuple[str, ...] | None = Field(
        default=None,
        min_length=1,
        description="A fixed engine's command that the plus and the minus engine each play a "
        "pair against; None: they play each other.",
    )
    params: dict[str, TuneParam] = Field(min_length=1)
    iterations: int = Field(ge=1, le=MAX_ITERATIONS, description="Pairs of games.")

    def command(self) -> tuple[str, ...]:
        """The engine's command, before its parameters."""
        return self.engine or builtin_engine_command("--level", str(MAX_LEVEL))

    def spsa(self) -> Spsa:
        """The run's SPSA schedule."""
        return Spsa(self.params, self.iterations, self.seed)

    def start(self) -> dict[str, float]:
        """Theta at the start: each parameter's value in the file."""
        return {name: param.value for name, param in self.params.items()}

    def opponent_spec(self) -> EngineSpec | None:
        """The fixed opponent, named ``opponent`` (None: the engines play each other)."""
        if self.opponent is None:
            return None
        return EngineSpec(name=OPPONENT, command=self.opponent)


class TuneSettings(RunState):
    """What ``tune-settings.json`` holds."""

    left_out_when_none: ClassVar[frozenset[str]] = frozenset({"mac", "deal_book"})

    format: Literal["banqi-tune-settings/1"] = "banqi-tune-settings/1"
    config: TuneConfig
    deal_book: BookStamp | None = None
    """The deal book the run was started with (None: deals from the referee key; not
    written, as in the settings of runs from before tuning took deal books)."""


TUNE = RunKind(TUNE_FILE, TuneSettings, "a tuning run's settings", "a tuning run")
TUNE_STATE = RunKind(STATE_FILE, TuneState, "a tuning run's state", "a tuning run")


def open_tune(
    config: TuneConfig, seed_given: bool, macs: MacKeys, book: LoadedBook | None = None
) -> TuneSettings:
    """The run's settings: the saved ones, after checking their MAC and that ``config`` and
    the deal ``book`` are the same (a resumed run without a seed keeps its saved one), or
    new ones (written by ``start_tune_folder`` before the engine starts). Refuses a folder
    holding another kind of run, and a book whose openings the rules do not allow."""
    if book is not None:
        for k in range(1, min(len(book.book.deals), config.iterations) + 1):
            book.check_opening(book_entry(k, book), config.rules)

    def resume(saved: TuneSettings) -> TuneSettings:
        wanted = config if seed_given else config.model_copy(update={"seed": saved.config.seed})
        differences = model_differences(saved.config, wanted, TuneConfig.resumable)
        grown = wanted.iterations != saved.config.iterations
        refuse_other_settings(
            config.out,
            TUNE,
            differences,
            same="the same settings (parameter file, engine, iterations, rules, time, seed)",
            why=". The gains c_k and a_k are set from the iterations, so a run keeps its number"
            if grown
            else "",
        )
        check_same_book(saved.deal_book, book, config.out)
        return saved.model_copy(update={"config": wanted})

    def start() -> TuneSettings:
        return TuneSettings(created_at=datetime.now(UTC), config=config, deal_book=stamp_of(book))

    return open_run_folder(config.out, TUNE, resume, start, macs)


def start_tune_folder(settings: TuneSettings, macs: MacKeys) -> None:
    """Write a new run's ``tune-settings.json`` (a resumed run's is left as it is)."""
    if TUNE.read(settings.config.out) is None:
        write_state(settings.config.out, TUNE, settings, macs)


def read_state(config: TuneConfig, macs: MacKeys) -> TuneState:
    """The run's state: theta and the pairs played so far (a new run: the start, none),
    its MAC checked. Half-written files a killed run left are removed (the run folder must
    be locked)."""
    for stale in config.out.glob(".*.tmp"):
        with writing(f"remove the half-written file {stale.name} from {config.out}"):
            stale.unlink(missing_ok=True)
    path = config.out / STATE_FILE
    state = TUNE_STATE.read(config.out)
    if state is None:
        return TuneState(theta=config.start())
    TUNE_STATE.check(config.out, state, macs)
    state = state.model_copy(update={"mac": None})
    if set(state.theta) != set(config.params) or not state.done() <= set(
        range(1, config.iterations + 1)
    ):
        raise RunFolderError(f"{path} does not belong to the settings beside it")
    return state


def save_state(out: Path, state: TuneState, macs: MacKeys) -> None:
    """Write ``tune-state.json`` with its MAC, atomically."""
    write_atomic(out / STATE_FILE, TUNE_STATE.signed(state, macs).model_dump_json() + "\n")


def write_tuned(config: TuneConfig, state: TuneState) -> Path:
    """Write ``tuned.toml``: the parameter file with theta as each value; its path."""
    params = {
        name: param.model_copy(update={"value": state.theta[name]})
        for name, param in config.params.items()
    }
    done = len(state.pairs)
    header = f"Tuned by banqi tune: theta after {done} of {config.iterations} iterations."
    path = config.out / TUNED_FILE
    write_atomic(path, param_file_text(params, header))
    return path


def engine_spec(config: TuneConfig, name: str, values: Mapping[str, float]) -> EngineSpec:
    """The engine ``name`` playing ``values``: its command and the parameters' arguments."""
    return EngineSpec(
        name=name, command=(*config.command(), *param_args(config.param_format, values))
    )


@dataclass(frozen=True)
class TuneEvents:
    """What the run tells its caller (progress output lives in the CLI)."""

    pair_done: Callable[[PairResult, TuneState], None]


def _game_result(record: GameRecord) -> TuneGame:
    """A finished game as the state keeps it: the points of the players named ``plus`` and
    ``minus`` (None for the one not in it)."""
    names = [player.name for player in record.players]

    def points(name: str) -> float | None:
        return record.points(names.index(name)) if name in names else None

    return TuneGame(
        plus_points=points(PLUS),
        minus_points=points(MINUS),
        reason=record.reason,
        plies=record.end_ply,
    )


def _failed(record: GameRecord) -> bool:
    """Whether an engine failed the game (a void game: both)."""
    return record.void or (record.winner is not None and record.loser_failed)


def book_entry(k: int, book: LoadedBook) -> int:
    """The entry of ``book`` iteration ``k`` is dealt from: (k - 1) mod the book's size."""
    return (k - 1) % len(book.book.deals)


def _game_id(k: int, first: int, index: int) -> str:
    """Game ``index`` (0 or 1) of the pair of iteration ``k`` whose first game is numbered
    ``first``: ``i<k>-<first + index>``."""
    return f"i{k:06d}-{first + index}"


def iteration_setups(
    config: TuneConfig, k: int, plus: EngineSpec, minus: EngineSpec
) -> list[GameSetup]:
    """The games of iteration ``k``, all on deal ``k``, each pair with the seats swapped:
    ``i<k>-1`` and ``i<k>-2`` between plus and minus; against an opponent, those two
    between plus and the opponent, then ``i<k>-3`` and ``i<k>-4`` between minus and it."""
    opponent = config.opponent_spec()
    pairs = [(plus, minus)] if opponent is None else [(plus, opponent), (minus, opponent)]
    setups: list[GameSetup] = []
    for number, players in enumerate(pairs):
        first = 2 * number + 1
        setups += paired_setups(
            config, players, config.seed, 2, partial(_game_id, k, first), str(k)
        )
    return setups


class _Run:
    """The iterations still to play, theta, and the engine failures in a row."""

    def __init__(
        self,
        config: TuneConfig,
        state: TuneState,
        key: bytes,
        events: TuneEvents,
        play_game: GamePlayer,
        book: LoadedBook | None,
    ) -> None:
        self.config = config
        self.book = book
        self.state = state
        self.key = key
        self.macs = MacKeys(key)
        self.events = events
        self.play_game = play_game
        self.spsa = config.spsa()
        done = state.done()
        self.queue = [k for k in range(1, config.iterations + 1) if k not in done]
        self.lock = asyncio.Lock()
        self.failed_in_a_row = 0

    async def play_all(self, concurrency: int) -> None:
        """Play the queue, ``concurrency`` pairs at once."""
        try:
            async with asyncio.TaskGroup() as group:
                for _ in range(concurrency):
                    group.create_task(self.worker())
        except ExceptionGroup as failed:  # a worker's TuneError, or a state not written
            raise failed.exceptions[0] from None

    async def worker(self) -> None:
        """Play queued iterations one after the other."""
        while self.queue:
            k = self.queue.pop(0)
            plus, minus = self.spsa.perturbed(self.state.theta, k)
            setups = iteration_setups(
                self.config,
                k,
                engine_spec(self.config, PLUS, plus),
                engine_spec(self.config, MINUS, minus),
            )
            played = [await self.play(setup) for setup in setups]
            await save_whole(self.finish(k, played))

    async def play(self, setup: GameSetup) -> PlayedGame:
        """One game of an iteration, on the iteration's deal."""
        return await self.play_game(setup, self.deal_of(setup), self.config.log_traffic, None)

    def deal_of(self, setup: GameSetup) -> Deal:
        """Iteration k's deal: the book's entry (k - 1) mod its size, or the shuffle of the
        k-th deal secret."""
        if self.book is not None:
            return self.book.deal(book_entry(int(setup.deal), self.book))
        return dealt(deal_secret(self.key, self.config.seed, setup.deal))

    async def finish(self, k: int, played: list[PlayedGame]) -> None:
        """Update theta with iteration ``k``'s games, save the state, tell the caller; stop
        the run if the engines failed ``MAX_FAILURES`` games in a row."""
        games = tuple(_game_result(game.record) for game in played)
        result = sum((game.plus_points or 0.0) - (game.minus_points or 0.0) for game in games)
        pair = PairResult(iteration=k, result=result, games=games)
        async with self.lock:
            self.state = self.state.after(pair, self.spsa.updated(self.state.theta, k, result))
            await asyncio.to_thread(self.save, played)
            self.events.pair_done(pair, self.state)
            for game in played:
                self.failed_in_a_row = self.failed_in_a_row + 1 if _failed(game.record) else 0
                if self.failed_in_a_row >= MAX_FAILURES:
                    record = game.record
                    raise TuneError(
                        f"the engines failed {self.failed_in_a_row} games in a row (last: "
                        f"{record.reason.value}: {record.detail or record.result}); check the "
                        "engine and its parameters, then run the same command to resume"
                    )

    def save(self, played: list[PlayedGame]) -> None:
        """Write the state (and the games' transcripts, if kept)."""
        for game in played:
            if game.transcript is not None:
                path = self.config.out / TRAFFIC_DIR / f"{game.record.game_id}.dctp.log"
                write_atomic(path, game.transcript, f"transcript {game.record.game_id}")
        save_state(self.config.out, self.state, self.macs)


async def run_tune(
    config: TuneConfig,
    state: TuneState,
    key: bytes,
    events: TuneEvents,
    start_engine: EngineFactory = start_engine_process,
    play_on: PlayPlace | None = None,
    book: LoadedBook | None = None,
) -> TuneState:
    """Play every iteration the state has not played, ``concurrency`` pairs at once (on
    ``play_on``, a cluster, as many as it says), dealt from ``book`` if given; the state as
    it ends (saved at the start too). TuneError if the engines keep failing (the pairs
    played are kept)."""
    run = _Run(config, state, key, events, play_here(start_engine), book)
    save_state(config.out, state, run.macs)
    if play_on is None:
        await run.play_all(config.concurrency)
    else:
        async with play_on(run.macs) as (player, slots):
            run.play_game = player
            await run.play_all(slots)
    return run.state
