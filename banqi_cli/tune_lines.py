"""The lines ``banqi tune`` prints: the header, a line per pair, how to verify the result."""

import shlex
import time
from pathlib import Path
from typing import Final

from tournaments.tune import ALPHA, GAMMA, PairResult, TuneState
from tournaments.tune_run import MINUS, OPPONENT, PLUS, TUNED_FILE, TuneConfig, engine_spec

from .output import seed_words

THETA_SHOWN: Final = 3
"""Parameters whose theta a progress line shows: those that moved furthest."""
BUILTIN: Final = "banqi-engine --level 3"
"""The built-in engine as a user would start it (for the lines that say so)."""


def _duration(seconds: float) -> str:
    """``42s``, ``3m 05s``, ``2h 07m``."""
    whole = round(seconds)
    if whole < 60:
        return f"{whole}s"
    if whole < 3600:
        return f"{whole // 60}m {whole % 60:02d}s"
    return f"{whole // 3600}h {whole // 60 % 60:02d}m"


def theta_words(config: TuneConfig, theta: dict[str, float]) -> str:
    """Theta of the parameters that moved furthest from their start (by share of their
    range), with the change."""
    moved = sorted(
        config.params.items(),
        key=lambda item: -abs(theta[item[0]] - item[1].value) / (item[1].max - item[1].min),
    )
    shown = [f"{name} {theta[name]:.4g} ({theta[name] - p.value:+.3g})" for name, p in moved]
    more = len(shown) - THETA_SHOWN
    return ", ".join(shown[:THETA_SHOWN]) + (f" (+{more} more)" if more > 0 else "")


def _games_words(pair: PairResult) -> str:
    """An iteration's games, each as its points and how it ended: ``plus-minus 1-0
    no-pieces, 0.5-0.5 repetition``; against an opponent, each engine's own points in its
    games: ``against the opponent: plus 1 no-pieces, 0.5 repetition; minus 0 ..., 1 ...``."""
    games = pair.games
    if all(game.plus_points is not None and game.minus_points is not None for game in games):
        return "plus-minus " + ", ".join(
            f"{game.plus_points:g}-{game.minus_points:g} {game.reason.value}" for game in games
        )
    plus = [(game.plus_points, game.reason) for game in games if game.plus_points is not None]
    minus = [(game.minus_points, game.reason) for game in games if game.minus_points is not None]
    words = [
        f"{name} " + ", ".join(f"{points:g} {reason.value}" for points, reason in played)
        for name, played in ((PLUS, plus), (MINUS, minus))
    ]
    return f"against the {OPPONENT}: " + "; ".join(words)


def pair_line(config: TuneConfig, pair: PairResult, state: TuneState) -> str:
    """The line after an iteration: which, its games, its result, theta."""
    return (
        f"iteration {pair.iteration}/{config.iterations} ({len(state.pairs)} done): "
        f"{_games_words(pair)}; result {pair.result:+g}; "
        f"theta {theta_words(config, state.theta)}"
    )


class Progress:
    """Elapsed time and ETA from the pairs played by this command."""

    def __init__(self, config: TuneConfig, done: int) -> None:
        self.config = config
        self.started = time.monotonic()
        self.done_at_start = done

    def words(self, done: int) -> str:
        """``elapsed 1m 02s, ETA 20m 10s``."""
        elapsed = time.monotonic() - self.started
        played = done - self.done_at_start
        left = self.config.iterations - done
        eta = _duration(elapsed / played * left) if played else "-"
        return f"elapsed {_duration(elapsed)}, ETA {eta}"


def header(
    config: TuneConfig, state: TuneState, seed: int | None, engine: str, at_once: str
) -> list[str]:
    """What the run tunes, how, where (``at_once``: how many iterations at once, in words), and
    how far it is; then its SPSA gains."""
    done = len(state.pairs)
    spsa = config.spsa()
    count = len(config.params)
    if config.opponent is None:
        games = "pairs of games on one hidden layout, seats swapped"
    else:
        games = (
            f"plus and minus each a pair of games against the {OPPONENT} "
            f"{shlex.join(config.opponent)} on one hidden layout, seats swapped"
        )
    line = (
        f"tune: {count} parameter{'s' if count > 1 else ''} of {engine}, {config.iterations} "
        f"iterations ({games}), rules "
        f"{config.rules.name}, time {config.time_control.describe()}, {seed_words(seed)}, "
        f"{'pairs' if config.opponent is None else 'iterations'}: {at_once}, run folder "
        f"{config.out}"
    )
    if done == config.iterations:
        line += f"; finished ({done} iterations)"
    elif done:
        line += f"; resuming with {done} of {config.iterations} iterations done"
    return [
        line,
        f"SPSA: alpha {ALPHA}, gamma {GAMMA}, A {spsa.big_a:g} (a tenth of the iterations); "
        "c_k = c / k^gamma, a_k = a / (A + k)^alpha, theta += a_k / c_k * result * delta",
    ]


def verify_lines(config: TuneConfig, params_file: Path, theta: dict[str, float]) -> list[str]:
    """How to check the tuned values with an SPRT against the start (for the built-in engine,
    tuned.toml copied out of the run folder first: sandboxed engines cannot see it), and
    against the opponent a run was tuned against, if any."""
    clock = config.time_control
    options = f"--rules {shlex.quote(config.rules.name)} --time {clock.time:g}"
    options += f" --increment {clock.increment:g}"
    if clock.move_time is not None:
        options += f" --move-time {clock.move_time:g}"
    lines = ["verify it with an SPRT against the start:"]
    if config.engine is None:
        lines.append(f"  cp {shlex.quote(str(config.out / TUNED_FILE))} {TUNED_FILE}")
        tuned = f"{BUILTIN} --params {TUNED_FILE}"
        base = f"{BUILTIN} --params {shlex.quote(str(params_file))}"
    else:
        tuned = shlex.join(engine_spec(config, "tuned", theta).command)
        base = shlex.join(engine_spec(config, "base", config.start()).command)
    quoted = f"{shlex.quote('tuned=' + tuned)} {shlex.quote('base=' + base)}"
    lines.append(f"  banqi sprt {quoted} {options}")
    if config.opponent is not None:
        against = shlex.quote(f"{OPPONENT}={shlex.join(config.opponent)}")
        lines.append(f"and each of them against the {OPPONENT}:")
        lines.append(
            f"  banqi tournament --format gauntlet {against} {quoted} --rounds 100 {options}"
        )
    return lines
