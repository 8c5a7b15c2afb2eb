"""``banqi bench strength``: paired in-process games between two levels, or the whole ladder."""

from collections.abc import Sequence

import click

from banqi_engine.players import MAX_LEVEL
from banqi_engine.rules import RuleSet
from tournaments.elo import EloEstimate, pentanomial_elo
from tournaments.selfplay import SelfPlayGame, iter_match, level_factory, summarise

from .game_options import rules_option
from .param_types import FiniteFloatRange, shown_option


def pair_counts(results: Sequence[SelfPlayGame]) -> list[int]:
    """Player A's complete pairs by their score, ``[LL, LD, DD+WL, WD, WW]``."""
    scores: dict[int, list[float]] = {}
    for result in results:
        scores.setdefault(result.pair, []).append(result.score)
    counts = [0] * 5
    for pair in scores.values():
        if len(pair) == 2:
            counts[round(2 * sum(pair))] += 1
    return counts


def describe_elo(estimate: EloEstimate) -> str:
    """``+123 ± 45 Elo`` of A over B from its pairs (or what of it is defined)."""
    if estimate.elo is None:
        if estimate.score == 1.0:
            return "+inf Elo (every pair won)"
        if estimate.score == 0.0:
            return "-inf Elo (every pair lost)"
        return "Elo undefined (no complete pair)"
    margin = "" if estimate.elo_error is None else f" ± {estimate.elo_error:.0f}"
    return f"{estimate.elo:+.0f}{margin} Elo (pairs)"


def play_levels(
    a: int, b: int, games: int, rules: RuleSet, seconds: float, seed: int, verbose: bool
) -> str:
    """Play level A against level B; the summary line (each game's line too if verbose)."""
    results = []
    for result in iter_match(
        level_factory(a, rules), level_factory(b, rules), games, rules, seconds=seconds, seed=seed
    ):
        results.append(result)
        if verbose:
            who = {"A": f"level {a}", "B": f"level {b}", None: "draw"}[result.winner]
            click.echo(
                f"game {result.index + 1:>3} (A {'first' if result.a_first else 'second'}): "
                f"{who:<8} {result.plies:>4} plies  {result.description}"
            )
    summary = summarise(results)
    return (
        f"level {a} vs level {b} ({rules.name}, {seconds:g}s/move): "
        f"W {summary.wins} D {summary.draws} L {summary.losses}, "
        f"score {summary.score:g}/{summary.games} ({100 * summary.fraction:.1f}%), "
        f"{describe_elo(pentanomial_elo(pair_counts(results)))}"
    )


@click.command("strength")
@shown_option(
    "--games",
    type=click.IntRange(1),
    default=20,
    help="Games per match (in pairs on one layout, seats swapped).",
)
@click.option(
    "--level",
    "levels",
    type=click.IntRange(0, MAX_LEVEL),
    multiple=True,
    help="Level of player A, then of player B (give it twice); without it, the ladder.",
)
@shown_option("--seconds", type=FiniteFloatRange(0, 60), default=0.2, help="Time budget per move.")
@click.option("--seed", type=int, default=0, show_default=True, help="Seed of layouts and players.")
@rules_option
def bench_strength_command(
    games: int, levels: tuple[int, ...], seconds: float, seed: int, rules: RuleSet
) -> None:
    """Play GAMES in-process games level A vs level B, paired with seats swapped.

    Without --level, the ladder: each level against the one below it (1 vs 0 up to
    the top level), a summary line per step, so the levels' order can be checked.
    """
    if levels and len(levels) != 2:
        raise click.UsageError("give --level twice (player A, then player B), or not at all")
    if levels:
        click.echo(play_levels(levels[0], levels[1], games, rules, seconds, seed, verbose=True))
        return
    for level in range(1, MAX_LEVEL + 1):
        click.echo(play_levels(level, level - 1, games, rules, seconds, seed, verbose=False))
