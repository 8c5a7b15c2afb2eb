"""The lines ``banqi sprt`` prints: the header, a line per pair counted, the verdict."""

from referee.record import GameRecord
from tournaments.sprt import SprtStatus, Verdict
from tournaments.sprt_chart import estimate_text
from tournaments.sprt_run import SprtTracker

from .fault_words import fault_words
from .output import seed_words
from .words import counted


def pair_line(status: SprtStatus) -> str:
    """The progress line after a pair: games, W-D-L, pairs, Elo, nElo and LLR with bounds."""
    void = f" ({status.void} void)" if status.void else ""
    counts = status.pentanomial
    return (
        f"pair {status.pairs} ({counted(status.games, 'game')}{void}): "
        f"W-D-L {status.wins}-{status.draws}-{status.losses}, "
        f"pairs [{', '.join(map(str, counts))}], "
        f"Elo {estimate_text(status.elo, status.elo_error, counts)}, "
        f"nElo {estimate_text(status.nelo, status.nelo_error, counts)}, "
        f"LLR {status.llr:.2f} ({status.lower_bound:.2f}, {status.upper_bound:.2f})"
    )


def fault_line(record: GameRecord) -> str:
    """The line of a game an engine failed (``g0007 a 0-1 b  FAULT a (red): ...``) or lost
    by a late move, printed as it ends, before its pair is counted; empty for any other."""
    words = fault_words(record)
    if not words:
        return ""
    a, b = (player.name for player in record.players)
    return f"{record.game_id} {a} {record.score} {b} {record.reason.value}  {words}"


def _difference(elo: float, unit: str, above: bool) -> str:
    """How new compares with base (``new is ... base``) when its Elo difference is above (or
    below) ``elo``."""
    if elo == 0:
        return "stronger than" if above else "not stronger than"
    quantity = "more" if (elo > 0) == above else "less"
    direction = "stronger" if elo > 0 else "weaker"
    return f"{quantity} than {abs(elo):g} {unit} {direction} than"


def verdict_line(status: SprtStatus) -> str:
    """The last line: the verdict and why."""
    test = status.test
    unit = test.model.unit
    new, base = status.new, status.base
    after = f"after {counted(status.games, 'game')}"
    if status.verdict is Verdict.H1:
        return (
            f"H1 accepted: {new} is {_difference(test.elo0, unit, True)} {base} "
            f"(LLR {status.llr:.2f} >= {status.upper_bound:.2f} {after})"
        )
    if status.verdict is Verdict.H0:
        return (
            f"H0 accepted: {new} is {_difference(test.elo1, unit, False)} {base} "
            f"(LLR {status.llr:.2f} <= {status.lower_bound:.2f} {after})"
        )
    return (
        f"inconclusive: neither bound reached {after} (LLR {status.llr:.2f}, bounds "
        f"{status.lower_bound:.2f} and {status.upper_bound:.2f}); a larger --max-games goes on"
    )


def header(tracker: SprtTracker, seed: int | None) -> str:
    """What the test is, where its records go, and how far it is."""
    config = tracker.config
    test = config.test
    unit = test.model.unit
    new, base = (spec.name for spec in config.engines)
    line = (
        f"sprt: {new} vs {base}, H0 {unit} = {test.elo0:g} against H1 {unit} = {test.elo1:g} "
        f"({test.model.value} Elo), alpha {test.alpha:g}, beta {test.beta:g}, LLR bounds "
        f"({test.lower_bound:.2f}, {test.upper_bound:.2f}); "
        f"at most {counted(config.max_games, 'game')}, "
        f"rules {config.rules.name}, time {config.time_control.describe()}, {seed_words(seed)}, "
        f"{config.concurrency} at once, records in {config.out}"
    )
    if tracker.verdict is not None:
        return line + f"; finished with {counted(tracker.counted, 'pair')} counted"
    if tracker.records:
        return line + f"; resuming with {counted(tracker.counted, 'pair')} counted"
    return line
