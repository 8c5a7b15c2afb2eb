"""An SPRT as a run: a new engine against a base one, pairs of games on one hidden layout
with the seats swapped, played by the tournament runner until the test has its verdict.

The test counts complete pairs in pair order: after pair ``i`` it counts pair ``i + 1`` once
both of its games have records, whatever finished before. The first pair at which the
log-likelihood ratio reaches a bound ends the test (:mod:`tournaments.sprt`); from then on no
new pair is started, the games in flight finish (with their pair's other game, so that no
record stays withheld) and are kept, but not counted. Without a verdict after
``max_games`` games (every pair counted) the test is inconclusive. A pair with a void game
counts in the games but not in the pentanomial, so it leaves the LLR as it was; forfeited
games count as losses, as in a match.

``sprt-settings.json`` holds the settings and seed the test started with (``max_games`` as
last raised); the records in ``games/`` say which games exist, and everything else is
recomputed from them, so a test killed at any moment resumes without losing or doubling a
pair. ``sprt.json`` (:class:`SprtStatus`) and ``sprt.html`` (:mod:`tournaments.sprt_chart`)
are written after every counted pair.
"""

from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import ClassVar, Final, Literal

from pydantic import Field

from banqi_common.atomic import write_atomic
from referee.deal_book import LoadedBook, check_same_book, stamp_of
from referee.engine_spec import EngineSpec
from referee.engine_start import EngineFactory, start_engine_process
from referee.macs import MacKeys
from referee.record import GameRecord
from referee.storage import make_games_folder

from . import run_folder
from .config import ConfigError
from .differences import model_differences
from .elo import pentanomial_elo
from .match import MAX_FAILURES
from .pair_count import PairCounter
from .pairs import ScheduledGame, numbered_id, paired_setups, two_engine_games
from .report_about import ReportAbout, RunAsked, about_run, run_asked
from .results import Standings
from .run_config import PAIR_RUN_ORDER, PairRunConfig
from .run_kinds import SETTINGS_FILE as SETTINGS_FILE
from .runner import PlayPlace, RunEvents, RunOptions, RunSettings, run_scheduled
from .sprt import EloModel, SprtPoint, SprtStatus, SprtTest, Verdict, normalized_elo
from .sprt_chart import chart_html

STATUS_FILE: Final = "sprt.json"
CHART_FILE: Final = "sprt.html"
MAX_GAMES: Final = 100_000
DEFAULT_MAX_GAMES: Final = 20_000


class SprtConfig(PairRunConfig):
    """An SPRT: the new engine and the base one, the test, at most how many games, under
    which rules and clock."""

    resumable: ClassVar[frozenset[str]] = PairRunConfig.resumable | {"max_games"}
    """Settings that may change on resume (``max_games`` only grow): they do not change the
    games played nor how they are counted."""
    saved_order: ClassVar[tuple[str, ...]] = ("engines", "test", "max_games", *PAIR_RUN_ORDER)

    engines: tuple[EngineSpec, EngineSpec] = Field(description="The new engine, then the base.")
    test: SprtTest = SprtTest()
    max_games: int = Field(default=DEFAULT_MAX_GAMES, ge=2, le=MAX_GAMES, multiple_of=2)


class SprtSettings(run_folder.DealtRunState):
    """What ``sprt-settings.json`` holds."""

    format: Literal["banqi-sprt-settings/1"] = "banqi-sprt-settings/1"
    config: SprtConfig


SPRT = run_folder.RunKind(SETTINGS_FILE, SprtSettings, "an SPRT's settings", "an SPRT")


def sprt_games(config: SprtConfig) -> list[ScheduledGame]:
    """The pair schedule, numbered ``g000001`` whatever ``max_games``; the new engine moves
    first in even games."""
    setups = paired_setups(
        config, config.engines, config.seed, config.max_games, lambda i: numbered_id(i, 6)
    )
    return two_engine_games(setups)


def open_sprt(
    config: SprtConfig,
    seed_given: bool,
    max_games_given: bool,
    macs: MacKeys,
    book: LoadedBook | None = None,
) -> SprtSettings:
    """The test's settings: the saved ones, after checking their MAC and that the config
    (and the deal ``book``) is the same, or new ones (written by ``start_sprt_folder``).

    A resumed test keeps its saved seed and ``max_games`` unless given; ``max_games`` may
    only grow. A new test dealt from a book plays at most two games a deal of the book
    unless ``max_games`` is given, and a book too small for ``max_games`` is refused.
    Refuses a folder that holds another kind of run or records without an SPRT, and a
    folder under a file.
    """
    out = config.out

    def resume(saved: SprtSettings) -> SprtSettings:
        check_same_book(saved.deal_book, book, out)
        kept = {} if seed_given else {"seed": saved.config.seed}
        if not max_games_given:
            kept["max_games"] = saved.config.max_games
        wanted = config.model_copy(update=kept)
        differences = model_differences(saved.config, wanted, SprtConfig.resumable)
        run_folder.refuse_other_settings(out, SPRT, differences)
        if wanted.max_games < saved.config.max_games:
            raise ConfigError(
                f"{out} holds an SPRT of up to {saved.config.max_games} games; --max-games "
                f"may grow but not shrink (now {wanted.max_games})"
            )
        _check_book(wanted, book)
        return saved.model_copy(update={"config": wanted})

    def start() -> SprtSettings:
        new = config
        if book is not None and not max_games_given:
            fits = min(config.max_games, 2 * len(book.book.deals))
            new = config.model_copy(update={"max_games": fits})
        _check_book(new, book)
        return SprtSettings(created_at=datetime.now(UTC), config=new, deal_book=stamp_of(book))

    return run_folder.open_run_folder(out, SPRT, resume, start, macs)


def _check_book(config: SprtConfig, book: LoadedBook | None) -> None:
    """Refuse a deal book with fewer deals than the test may need (``max_games / 2``), or an
    opening its rules do not allow."""
    if book is not None:
        book.check_fits(game.setup for game in sprt_games(config))


def start_sprt_folder(settings: SprtSettings, macs: MacKeys) -> None:
    """Write a new test's ``sprt-settings.json``, or a resumed one's whose ``max_games``
    grew."""
    out = settings.config.out
    saved = SPRT.read(out)
    if saved is not None and saved.config.max_games == settings.config.max_games:
        return
    make_games_folder(out)
    run_folder.write_state(out, SPRT, settings, macs)


class SprtTracker(PairCounter):
    """The test as the records come: complete pairs counted in pair order until the verdict."""

    def __init__(self, config: SprtConfig) -> None:
        self.config = config
        self.games = sprt_games(config)
        super().__init__(self.games)
        self.wdl_void = [0, 0, 0, 0]
        self.pentanomial = [0, 0, 0, 0, 0]
        self.llr = 0.0
        self.verdict: Verdict | None = None
        self.history: list[SprtPoint] = []
        self.fresh: list[SprtStatus] = []
        """The test after each pair counted since ``add`` was last called."""

    @classmethod
    def from_folder(cls, config: SprtConfig, macs: MacKeys) -> "SprtTracker":
        """The test as the records in its folder have it (each record's MAC checked)."""
        tracker = cls(config)
        found = run_folder.existing_records(
            config.out, [game.setup for game in tracker.games], macs
        )
        tracker.add_in_order(list(found.values()))
        return tracker

    def found(self) -> dict[str, GameRecord]:
        """The records taken so far, by game id."""
        return {record.game_id: record for record in self.records.values()}

    def about(self, asked: RunAsked | None) -> ReportAbout:
        """The block about the run of ``sprt.html``: every record taken so far (counted or
        not), in game order."""
        return about_run([self.records[index] for index in sorted(self.records)], asked)

    @property
    def counted(self) -> int:
        """Pairs counted so far."""
        return self.pairs

    @property
    def decided(self) -> bool:
        """Whether the test has its verdict (inconclusive once every pair is counted)."""
        return self.verdict is not None

    def add(self, record: GameRecord) -> int:
        """Take a finished game; ``fresh`` is then the test after each pair it let count
        (none, or several when it completes a pair that later ones waited for)."""
        self.fresh = []
        return super().add(record)

    def count_pair(self, pair: Sequence[GameRecord]) -> None:
        """Count a pair: the new engine is player 0 of every game."""
        first, second = pair
        for record in pair:
            if record.void:
                self.wdl_void[3] += 1
            else:
                self.wdl_void[{0: 0, None: 1, 1: 2}[record.winner]] += 1
        if not (first.void or second.void):
            half_points = round(2 * (first.points(0) + second.points(0)))
            self.pentanomial[half_points] += 1
            test = self.config.test
            self.llr = test.llr(self.pentanomial)
            self.verdict = test.verdict(self.llr)
        elo, error = self._model_elo()
        self.history.append(SprtPoint(games=2 * self.pairs, llr=self.llr, elo=elo, elo_error=error))
        if self.verdict is None and 2 * self.pairs == self.total:
            self.verdict = Verdict.INCONCLUSIVE
        self.fresh.append(self.status())

    def _model_elo(self) -> tuple[float | None, float | None]:
        """The Elo estimate and margin in the test's model."""
        if self.config.test.model is EloModel.NORMALIZED:
            return normalized_elo(self.pentanomial)
        estimate = pentanomial_elo(self.pentanomial)
        return estimate.elo, estimate.elo_error

    def status(self) -> SprtStatus:
        """The test as counted so far."""
        config = self.config
        estimate = pentanomial_elo(self.pentanomial)
        nelo, nelo_error = normalized_elo(self.pentanomial)
        wins, draws, losses, void = self.wdl_void
        return SprtStatus(
            new=config.engines[0].name,
            base=config.engines[1].name,
            test=config.test,
            lower_bound=config.test.lower_bound,
            upper_bound=config.test.upper_bound,
            max_games=config.max_games,
            games=2 * self.counted,
            pairs=self.counted,
            wins=wins,
            draws=draws,
            losses=losses,
            void=void,
            pentanomial=(*self.pentanomial,),
            llr=self.llr,
            elo=estimate.elo,
            elo_error=estimate.elo_error,
            nelo=nelo,
            nelo_error=nelo_error,
            verdict=self.verdict,
            history=list(self.history),
        )


def sprt_asked(settings: SprtSettings) -> RunAsked:
    """What the test's settings ask, for the block about the run."""
    config = settings.config
    return run_asked(config, config.engines, config.seed, settings.deal_book)


def save_status(out: Path, status: SprtStatus, about: ReportAbout | None = None) -> None:
    """Write ``sprt.json`` and ``sprt.html`` (with the block ``about`` the run, if given)."""
    write_atomic(out / STATUS_FILE, status.model_dump_json() + "\n")
    write_atomic(out / CHART_FILE, chart_html(status, about))


@dataclass(frozen=True)
class SprtEvents:
    """What the run tells its caller as it goes (progress output lives in the CLI)."""

    game_done: Callable[[GameRecord], None]
    pair_counted: Callable[[SprtStatus], None]
    engine_out: Callable[[str, str], None]


async def run_sprt(
    tracker: SprtTracker,
    key: bytes,
    events: SprtEvents,
    start_engine: EngineFactory = start_engine_process,
    book: LoadedBook | None = None,
    play_on: PlayPlace | None = None,
    live_views: bool = True,
    asked: RunAsked | None = None,
) -> SprtStatus:
    """Play the test's pairs, ``concurrency`` games at once, until its verdict (or until
    every game has a record); ``sprt.json`` and ``sprt.html`` are written at the start
    (before the runner clears half-written files from the folder) and after every pair
    counted (in a thread of their own, in order, so that no fsync holds up the clocks of the
    games being played); ``asked`` is what the settings ask, for the block about the run.
    Returns the test as it ends."""
    config = tracker.config
    save_status(config.out, tracker.status(), tracker.about(asked))
    writes = []
    with ThreadPoolExecutor(max_workers=1, thread_name_prefix="sprt-status") as writer:

        def game_done(record: GameRecord, standings: Standings) -> None:
            events.game_done(record)
            tracker.add(record)
            about = tracker.about(asked) if tracker.fresh else None
            for status in tracker.fresh:
                writes.append(writer.submit(save_status, config.out, status, about))
                events.pair_counted(status)

        options = RunOptions(
            key=key,
            out=config.out,
            events=RunEvents(game_done, lambda name, _, last: events.engine_out(name, last)),
            log_traffic=config.log_traffic,
            start_engine=start_engine,
            admit=tracker.admit,
            book=book,
            play_on=play_on,
            live_views=live_views,
            found=tracker.found(),
            asked=asked,
        )
        names = [spec.name for spec in config.engines]
        settings = RunSettings(names, config.concurrency, MAX_FAILURES)
        await run_scheduled(tracker.games, settings, options)
    for write in writes:
        write.result()  # raises what a write raised
    return tracker.status()
