"""The "about the run" block the reports start with and the SPRT chart ends with: what a
shared report needs to be read on its own.

:func:`about_run` builds it once, from the run's records (the truth of what was played) and
what its config asked (:class:`RunAsked`, shown for what no record says yet); the renderers
of :mod:`tournaments.reports`, :mod:`tournaments.report_page` and
:mod:`tournaments.sprt_chart` lay out :func:`about_items` and :func:`engines_table`. A fact
that differs between games (an engine's version changed across a resume) is kept with
each of its values and how many games had it, never reduced to one.
"""

import shlex
from collections.abc import Callable, Hashable, Iterable, Sequence
from datetime import UTC, datetime
from typing import Generic, TypeVar

from pydantic import BaseModel, ConfigDict, Field

from banqi_common.version import VERSION
from banqi_engine.rules import RuleSet
from referee.deal_book import BookStamp
from referee.engine_limits import EngineLimits
from referee.engine_spec import EngineSpec
from referee.record import GameRecord, PlayerInfo
from referee.sandbox import Isolation, SandboxMode
from referee.timecontrol import TimeControl

from .report_tables import Table
from .run_config import RunConfig

T = TypeVar("T", bound=Hashable)
R = TypeVar("R", GameRecord, PlayerInfo)

ABOUT_TITLE = "About the run"
ABOUT_NOTE = (
    "What was played, from the games' records (what the run's config asked where no game has "
    "a record yet); a fact that differs between games lists each value with its games."
)


class Seen(BaseModel, Generic[T]):
    """One value of a fact and how many games had it (0: what the config asked, no game has
    a record yet)."""

    model_config = ConfigDict(frozen=True)

    value: T
    games: int = Field(ge=0)


class Sandbox(BaseModel):
    """How an engine was kept apart in a game, as its record says."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    isolation: Isolation | None = Field(description="None: the record does not say.")
    network: bool | None = Field(description="Whether it had the host's network.")
    limits: EngineLimits | None = Field(
        default=None, description="What the sandbox held it to; None: no limits recorded."
    )


class DealSource(BaseModel):
    """Where a game's layout came from: a deal book (its name, if known, and SHA-256), or
    (``sha256`` None) the shuffle of a secret derived from the referee key and the seed."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    book: str | None = None
    sha256: str | None = None


class AskedEngine(BaseModel):
    """An engine as the run's config asks for it."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    name: str
    command: tuple[str, ...]
    time_control: TimeControl | None = Field(
        default=None, description="Its own time control (time odds); None: the run's."
    )


class RunAsked(BaseModel):
    """What a run's config (and state) asked for."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    rules: RuleSet
    time_control: TimeControl
    seed: int
    deal_book: BookStamp | None
    sandbox: SandboxMode
    engines: tuple[AskedEngine, ...]


def run_asked(
    config: RunConfig,
    engines: Sequence[EngineSpec],
    seed: int,
    deal_book: BookStamp | None,
    own_time: Sequence[TimeControl | None] = (),
) -> RunAsked:
    """What ``config`` asks of its ``engines`` (``own_time``: each one's own time control, if
    any), under ``seed`` and dealt from ``deal_book``, if any."""
    times = [*own_time, *[None] * (len(engines) - len(own_time))]
    return RunAsked(
        rules=config.rules,
        time_control=config.time_control,
        seed=seed,
        deal_book=deal_book,
        sandbox=config.sandbox,
        engines=tuple(
            AskedEngine(name=spec.name, command=spec.command, time_control=time)
            for spec, time in zip(engines, times, strict=True)
        ),
    )


class EngineAbout(BaseModel):
    """One engine: how it was started and what it said, game by game."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    name: str
    games: int
    commands: list[Seen[tuple[str, ...]]]
    engine_names: list[Seen[str | None]] = Field(description="What it said to `name`.")
    versions: list[Seen[str | None]] = Field(description="What it said to `version`.")
    sandboxes: list[Seen[Sandbox]]
    time_controls: list[Seen[TimeControl | None]] = Field(description="None: the run's.")


class ReportAbout(BaseModel):
    """The facts a report states about its run."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    banqi_version: str = Field(description="The banqi that wrote the report.")
    written_at: datetime
    games: int = Field(description="Games with a record.")
    first_started: datetime | None
    last_finished: datetime | None
    rules: list[Seen[RuleSet]]
    time_controls: list[Seen[TimeControl]]
    seeds: list[Seen[int]]
    deals: list[Seen[DealSource]]
    sandbox_asked: SandboxMode | None
    engines: list[EngineAbout]


def about_run(
    records: Sequence[GameRecord], asked: RunAsked | None, written_at: datetime | None = None
) -> ReportAbout:
    """The block of a report on ``records`` (in game order) of a run that asked ``asked``
    (None: unknown), written at ``written_at`` (default: now)."""
    book = None if asked is None else asked.deal_book

    def deal_of(record: GameRecord) -> DealSource:
        if record.deal_book is None:
            return DealSource()
        sha = record.deal_book.sha256
        return DealSource(book=book.path if book and book.sha256 == sha else None, sha256=sha)

    asked_deal = DealSource() if book is None else DealSource(book=book.path, sha256=book.sha256)
    seats: dict[str, list[PlayerInfo]] = {}
    for engine in () if asked is None else asked.engines:
        seats[engine.name] = []
    for record in records:
        for player in record.players:
            seats.setdefault(player.name, []).append(player)
    return ReportAbout(
        banqi_version=VERSION,
        written_at=written_at or datetime.now(UTC),
        games=len(records),
        first_started=min((r.started_at for r in records), default=None),
        last_finished=max((r.finished_at for r in records), default=None),
        rules=_seen(records, lambda r: r.rules, None if asked is None else asked.rules),
        time_controls=_seen(
            records, lambda r: r.time_control, None if asked is None else asked.time_control
        ),
        seeds=_seen(records, lambda r: r.seed, None if asked is None else asked.seed),
        deals=_seen(records, deal_of, None if asked is None else asked_deal),
        sandbox_asked=None if asked is None else asked.sandbox,
        engines=[_engine_about(name, played, asked) for name, played in seats.items()],
    )


def _engine_about(name: str, seats: Sequence[PlayerInfo], asked: RunAsked | None) -> EngineAbout:
    """Engine ``name`` in its ``seats`` of the records; the config's command and time where
    it has none."""
    engines = () if asked is None else asked.engines
    wanted = next((engine for engine in engines if engine.name == name), None)
    time_counts = _counts(seat.time_control for seat in seats)
    if not time_counts and wanted is not None:
        time_counts = [Seen(value=wanted.time_control, games=0)]
    return EngineAbout(
        name=name,
        games=len(seats),
        commands=_seen(seats, lambda p: tuple(p.command), wanted and wanted.command),
        engine_names=_seen(seats, lambda p: p.engine_name, None),
        versions=_seen(seats, lambda p: p.version, None),
        sandboxes=_seen(
            seats,
            lambda p: Sandbox(isolation=p.isolation, network=p.network, limits=p.limits),
            None,
        ),
        time_controls=time_counts,
    )


def _seen(items: Sequence[R], fact: Callable[[R], T], asked: T | None) -> list[Seen[T]]:
    """Each value of ``fact`` over ``items`` (records, or an engine's seats), or what was
    ``asked`` (if known) without any."""
    counts = _counts(fact(item) for item in items)
    if not counts and asked is not None:
        return [Seen(value=asked, games=0)]
    return counts


def _counts(values: Iterable[T]) -> list[Seen[T]]:
    """Each distinct value, in order of first appearance, with how often it came (a model
    compared by its class and field values: a report is written after every game, over
    every record)."""
    first: dict[Hashable, T] = {}
    counts: dict[Hashable, int] = {}
    for value in values:
        key = (type(value), *vars(value).values()) if isinstance(value, BaseModel) else value
        first.setdefault(key, value)
        counts[key] = counts.get(key, 0) + 1
    return [Seen(value=first[key], games=games) for key, games in counts.items()]


def rules_text(rules: RuleSet) -> str:
    """A rule set's name and every field, e.g. ``olympiad (capture_order KGMRNCP, ...)``."""
    fields = rules.model_dump(exclude={"name"})
    words = (
        f"{key} {str(value).lower() if isinstance(value, bool) else value}"
        for key, value in fields.items()
    )
    return f"{rules.name} ({', '.join(words)})"


def time_text(control: TimeControl | None) -> str:
    """A time control in words with its margin; ``the run's`` for None."""
    if control is None:
        return "the run's"
    return f"{control.describe()}, margin {control.margin_ms} ms"


def deal_text(source: DealSource) -> str:
    """Where layouts came from, in words."""
    if source.sha256 is None:
        return "shuffled from secrets derived from the referee key and the seed"
    name = "an unnamed deal book" if source.book is None else f"deal book {source.book}"
    return f"{name} (sha256 {source.sha256})"


def sandbox_text(sandbox: Sandbox) -> str:
    """An engine's isolation and, if it kept it, the host's network."""
    if sandbox.isolation is None:
        return "not recorded"
    if sandbox.isolation is Isolation.NONE:
        return "none (not sandboxed)"
    network = {True: ", host network kept", False: ", loopback only", None: ""}
    return sandbox.isolation.value + network[sandbox.network] + limits_text(sandbox.limits)


def limits_text(limits: EngineLimits | None) -> str:
    """An engine's limits as words after its isolation (nothing when not recorded)."""
    if limits is None:
        return ""
    cpu = "" if limits.cpu_seconds is None else f", {limits.cpu_seconds} s of CPU"
    return (
        f", memory {limits.memory_mib} MiB, {limits.processes} processes, "
        f"room {limits.room_mib} MiB{cpu}"
    )


def said_text(words: str | None) -> str:
    """What an engine said, or that it said nothing."""
    return "(not said)" if words is None else words


def seen_text(seen: Sequence[Seen[T]], text: Callable[[T], str]) -> str:
    """One value as its text (``asked, no game yet`` marked); several each with its games,
    after ``differs between games:``; ``-`` for none."""
    if not seen:
        return "-"
    if len(seen) == 1:
        only = seen[0]
        return text(only.value) + (" (asked; no game yet)" if only.games == 0 else "")
    each = "; ".join(f"{text(s.value)} ({s.games} game{'' if s.games == 1 else 's'})" for s in seen)
    return f"differs between games: {each}"


def _date(moment: datetime | None) -> str:
    return "-" if moment is None else moment.astimezone(UTC).isoformat(timespec="seconds")


def about_items(about: ReportAbout) -> list[tuple[str, str]]:
    """The block's facts as (label, text) pairs, in report order."""
    items = [
        ("Rules", seen_text(about.rules, rules_text)),
        ("Time control", seen_text(about.time_controls, time_text)),
        ("Seed", seen_text(about.seeds, str)),
        ("Deals", seen_text(about.deals, deal_text)),
        ("Games recorded", str(about.games)),
        ("First game started", _date(about.first_started)),
        ("Last game finished", _date(about.last_finished)),
        ("Report written", _date(about.written_at)),
        ("banqi version", about.banqi_version),
    ]
    if about.sandbox_asked is not None:
        items.append(("Sandbox asked", about.sandbox_asked.value))
    return items


def engines_table(about: ReportAbout) -> Table:
    """Each engine's command, what it answered to ``name`` and ``version``, its sandbox and
    time control, and its games."""
    rows = [
        [
            engine.name,
            seen_text(engine.commands, shlex.join),
            seen_text(engine.engine_names, said_text),
            seen_text(engine.versions, said_text),
            seen_text(engine.sandboxes, sandbox_text),
            seen_text(engine.time_controls, time_text),
            str(engine.games),
        ]
        for engine in about.engines
    ]
    return Table(
        title="Engines",
        note="Command as started; name and version as the engine answered them; its sandbox "
        "(isolation, and the host's network if kept) and time control in its games.",
        headers=["Engine", "Command", "Said name", "Said version", "Sandbox", "Time", "Games"],
        right=[False] * 6 + [True],
        rows=rows,
    )
