"""The lines ``banqi match`` prints: the header, a line per game, the summary."""

from referee.record import GameRecord
from referee.timecontrol import TimeControl
from tournaments.from_records import head_to_head_from_records
from tournaments.match_job import MatchOutcome, MatchStart
from tournaments.match_score import MatchVerdict
from tournaments.reports import format_head_to_head

from .fault_words import fault_suffix, faults_line
from .output import seed_words
from .words import counted


def longest_words(games: int, at_once: int, clock: TimeControl) -> str:
    """How long ``games`` games ``at_once`` may take at most: both clocks run out in each
    (the thinking, not the engines' start; plus the increments, which depend on the plies)."""
    rounds = -(-games // max(1, at_once))
    seconds = rounds * 2 * (clock.time + clock.margin_ms / 1000)
    plus = f", plus {clock.increment:g} s a move of increments" if clock.increment else ""
    return (
        f"at most {duration_words(seconds)}{plus}, if both clocks of {clock.time:g} s ran out "
        f"in every game, {at_once} at once"
    )


def duration_words(seconds: float) -> str:
    """``45 s``, ``7 min``, ``2 h 05 min``."""
    if seconds < 90:
        return f"{seconds:.0f} s"
    minutes = round(seconds / 60)
    return f"{minutes} min" if minutes < 90 else f"{minutes // 60} h {minutes % 60:02d} min"


def header(start: MatchStart, seed: int | None) -> list[str]:
    """What the match is, where its records go, and (to a score) when it ends."""
    config = start.config
    engines = config.engines
    lines = [
        f"match: {engines[0].name} vs {engines[1].name}, {counted(config.games, 'game')}, "
        f"rules {config.rules.name}, time {config.time_control.describe()}, "
        f"{seed_words(seed)}, {start.at_once}, records in {config.out}"
        + (f"; resuming with {counted(start.already, 'game')} done" if start.already else "")
    ]
    lines.append(
        longest_words(config.games - start.already, config.concurrency, config.time_control)
    )
    if start.score is not None:
        lines.append(
            f"{start.score.describe()}: no new pair starts once an engine has "
            f"{start.score.first_to:g} points at the end of a pair"
        )
    return lines


def game_line(record: GameRecord, done: int, total: int) -> str:
    """``[3/10] g0003  a 1-0 b  reason: result (40 plies, b first)``, and the fault words of
    a game an engine failed."""
    a, b = (p.name for p in record.players)
    first = record.players[record.first].name
    return (
        f"[{done}/{total}] {record.game_id}  {a} {record.score} {b}  {record.reason.value}: "
        f"{record.result} ({counted(record.end_ply, 'ply', 'plies')}, {first} first)"
        + fault_suffix(record)
    )


def _score_lines(records: list[GameRecord], names: tuple[str, str]) -> list[str]:
    points = [sum(r.points(i) for r in records) for i in range(2)]
    lines = [
        f"Score of {names[0]} vs {names[1]}: {points[0]:g} - {points[1]:g} "
        f"({counted(len(records), 'game')})"
    ]
    for index, name in enumerate(names):
        wins = sum(1 for r in records if r.winner == index)
        losses = sum(1 for r in records if r.winner == 1 - index)
        draws = sum(1 for r in records if r.winner is None and not r.void)
        lines.append(f"  {name}: {wins} W, {draws} D, {losses} L")
    voids = sum(1 for r in records if r.void)
    if voids:
        lines.append(f"  void games (both engines failed): {voids}")
    faults = faults_line(records)
    if faults:
        lines.append(faults)
    return lines


def summary(outcome: MatchOutcome, names: tuple[str, str]) -> list[str]:
    """The score, each engine's W-D-L, the head-to-head Elo, and how a match to a score
    ended."""
    records = outcome.records
    lines = _score_lines(records, names)
    stats = head_to_head_from_records(records, names[0], names[1])
    lines.append(f"  {format_head_to_head(stats)}")
    result = outcome.result
    if result is not None:
        lines.append(result.summary)
        later = len(records) - result.games
        if result.outcome in (MatchVerdict.WON, MatchVerdict.DRAWN) and later > 0:
            lines.append(
                f"  {counted(later, 'later game')}, started before the match was decided, "
                "not counted"
            )
    return lines
