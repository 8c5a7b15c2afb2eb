"""How the console tells an engine fault: the record's detail on the game's own line, and
each engine's faults by kind in a summary. The one home of these words."""

import re
from collections import Counter
from collections.abc import Iterable
from typing import Final

from banqi_common.short_text import end_kept, shortened
from referee.reasons import Reason
from referee.record import GameRecord

FAULT_WIDTH: Final = 120
"""Longest fault words on a game line, in characters (the middle of longer ones is cut)."""

_ENGINE_PREFIX: Final = re.compile(r"engine '[^']*': ")
STDERR_ENDS: Final = "(stderr ends: "
"""Where a crash's words quote the end of the engine's stderr, which is kept whole."""
"""How an engine error names its engine, which the line already does."""


def _who(record: GameRecord) -> str:
    """The engine that failed, as the line names it: its name and colour; both, in a void
    game."""
    if record.void or record.winner is None:
        return "both"
    loser = record.players[1 - record.winner]
    return f"{loser.name} ({loser.colour})" if loser.colour else loser.name


def shortened_detail(detail: str) -> str:
    """The detail within ``FAULT_WIDTH``: the middle cut, but for a crash's stderr, whose end
    (a traceback's last lines) is kept and whose start is cut."""
    head, found, stderr = detail.partition(STDERR_ENDS)
    if not found:
        return shortened(detail, FAULT_WIDTH)
    head = f"{shortened(head, FAULT_WIDTH // 3)} {found}"
    return head + end_kept(stderr, max(FAULT_WIDTH - len(head), 20))


def fault_words(record: GameRecord) -> str:
    """``FAULT mybot (black): genmove answer 'd7-d7': expected two squares …`` for a game an
    engine failed, its record's detail on one line, shortened; the detail alone (``mybot
    (red): moved after 0.502s with 0.000s left …``) for a game lost on time by a move that
    came late, which is no engine fault; empty for any other."""
    if not record.detail:
        return ""
    detail = f"{_who(record)}: {shortened_detail(_ENGINE_PREFIX.sub('', record.detail))}"
    if record.loser_failed or record.void:
        return f"FAULT {detail}"
    return detail if record.reason is Reason.TIME_FORFEIT else ""


def fault_suffix(record: GameRecord) -> str:
    """The fault words to end a game line with (two spaces before them), or nothing."""
    words = fault_words(record)
    return f"  {words}" if words else ""


def faults_by_engine(records: Iterable[GameRecord]) -> str:
    """``mybot 2 (unreadable-reply 1, time-forfeit 1), other 1 (crash 1)``: each engine that
    failed games that it lost (void games aside), with its faults by reason; empty if none."""
    kinds: dict[str, Counter[str]] = {}
    for record in records:
        if record.void or record.winner is None or not record.loser_failed:
            continue
        loser = record.players[1 - record.winner].name
        kinds.setdefault(loser, Counter())[record.reason.value] += 1
    return ", ".join(
        f"{name} {sum(counts.values())} ("
        + ", ".join(f"{reason} {count}" for reason, count in sorted(counts.items()))
        + ")"
        for name, counts in sorted(kinds.items())
    )


def faults_line(records: Iterable[GameRecord], games: str = "") -> str:
    """``  engine faults: mybot 2 (…)`` for a summary (``games``: which games, e.g. ``this
    session``), or empty when no engine failed."""
    listed = faults_by_engine(records)
    if not listed:
        return ""
    which = f" {games}" if games else ""
    return f"  engine faults{which}: {listed}; details in the records"
