"""The lines ``banqi tournament`` prints: the header and a progress line per game."""

import time
from collections.abc import Callable
from pathlib import Path

from referee.record import GameRecord
from tournaments.config import TournamentConfig
from tournaments.results import Standings
from tournaments.tournament_job import TournamentStart

from . import output
from .fault_words import fault_suffix, faults_line
from .output import seed_words
from .words import counted


def _clock(seconds: float) -> str:
    seconds = int(seconds)
    return f"{seconds // 3600}:{seconds // 60 % 60:02d}:{seconds % 60:02d}"


class Progress:
    """Progress lines for a long run: done/total, times, leader, faults.

    Times are this session's: a resumed run shows the time since it was resumed (``this
    session``), and its estimate of the time left comes from the games played since then
    (the records do not say how long the earlier sessions took, only when their games
    ended, and the gaps between sessions are no time spent playing).
    """

    def __init__(
        self, total: int, already: int, quiet: bool, status: Callable[[], str] = lambda: ""
    ) -> None:
        self.total = total
        self.status = status
        self.already = already
        self.played = 0
        self.start = time.monotonic()
        self.quiet = quiet
        self.untold = output.UntoldRules()
        self.records: list[GameRecord] = []

    def game_done(self, record: GameRecord, standings: Standings) -> None:
        self.played += 1
        self.records.append(record)
        self.untold.note(record)
        if self.quiet:
            return
        done = self.already + self.played
        elapsed = time.monotonic() - self.start
        left = (self.total - done) * elapsed / self.played
        a, b = (p.name for p in record.players)
        leader = standings.rows[0]
        session = " this session" if self.already else ""
        output.say(
            f"[{done}/{self.total}] {record.game_id} {a} {record.score} {b} "
            f"{record.reason.value} ({counted(record.end_ply, 'ply', 'plies')}) | elapsed "
            f"{_clock(elapsed)}{session}, left ~{_clock(left)} | leader {leader.name} "
            f"{leader.points:g}/{leader.games}{fault_suffix(record)}{self.status()}"
        )

    def faults(self) -> str:
        """The summary line of the engines' faults in the games played now (``this
        session``'s in a resumed run), or empty."""
        return faults_line(self.records, "this session" if self.already else "")


def header(start: TournamentStart, out: Path, seed: int | None) -> str:
    """Who plays, how many games, under which rules and clock, where."""
    run = start.config
    return (
        f"{_field_words(run)}; {counted(start.games, 'game')} "
        f"({counted(run.rounds, 'round')}), "
        f"rules {run.rules.name}, time {_time_words(run)}, "
        f"{seed_words(seed)}, {start.at_once}, run folder {out}"
        + (f"; resuming with {counted(start.already, 'game')} done" if start.already else "")
    )


def _field_words(config: TournamentConfig) -> str:
    """``tournament: a, b, c`` or ``gauntlet: a against b, c``."""
    gauntlet = config.gauntlet_names()
    if not gauntlet:
        return "tournament: " + ", ".join(e.name for e in config.engines)
    others = [e.name for e in config.engines if e.name not in gauntlet]
    return f"gauntlet: {', '.join(gauntlet)} against {', '.join(others)}"


def _time_words(config: TournamentConfig) -> str:
    """The run's time control, and each engine's own, e.g. ``60s+0s (alpha 30s+0s)``."""
    own = [
        f"{entry.name} {own_time.describe()}"
        for index, entry in enumerate(config.engines)
        if (own_time := config.own_time(index)) is not None
    ]
    return config.time_control.describe() + (f" ({', '.join(own)})" if own else "")
