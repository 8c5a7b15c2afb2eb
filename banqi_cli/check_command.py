"""``banqi check ENGINE``: the checklist a bot author runs before any match."""

import asyncio
import json

import click

from referee.deals import new_seed
from referee.engine_checklist import (
    DEFAULT_GAME_SECONDS,
    OPPONENT_LEVEL,
    CheckResult,
    Status,
    run_checks,
)
from referee.engine_spec import EngineSpec
from referee.engine_start import process_engines
from referee.sandbox import SandboxMode, SandboxUnavailableError
from tournaments.config import builtin_engine_command
from tournaments.run_access import RUNS_FOLDER, RunAccess

from . import output
from .engine_args import engine_spec
from .param_types import FiniteFloatRange, choice_option


def result_lines(result: CheckResult) -> list[str]:
    """A check's line, and for a failure the lines sent and received and the fix."""
    lines = [f"  {result.status.value:<4}  {result.title}"]
    if result.why:
        lines.append(f"          {'why' if result.status is Status.FAILED else 'so'}: {result.why}")
    if result.status is Status.FAILED:
        if result.sent:
            lines.append(f"          sent:     {result.sent}")
            lines.append(f"          received: {result.received or '(nothing)'}")
        if result.fix:
            lines.append(f"          fix: {result.fix}")
    return lines


def summary_line(results: list[CheckResult]) -> str:
    """``13 of 14 checks passed; 1 failed`` (notes pass; skipped ones are said)."""
    counts = {status: sum(r.status is status for r in results) for status in Status}
    passed = counts[Status.PASSED] + counts[Status.NOTE]
    words = f"{passed} of {len(results)} checks passed"
    if counts[Status.FAILED]:
        words += f"; {counts[Status.FAILED]} failed"
    if counts[Status.SKIPPED]:
        words += f", {counts[Status.SKIPPED]} not run"
    return words


@click.command(name="check")
@click.argument("engine", metavar="[NAME=]ENGINE_CMD")
@click.option(
    "--time",
    "game_seconds",
    type=FiniteFloatRange(1, 3600),
    default=DEFAULT_GAME_SECONDS,
    show_default=True,
    help="Seconds a side in the whole game against our engine.",
)
@click.option("--seed", type=click.IntRange(0), help="Seed of the layouts [default: a new one].")
@choice_option(
    "--sandbox",
    choices=SandboxMode,
    default=SandboxMode.AUTO,
    callback=lambda ctx, param, value: SandboxMode(value),
    help="Start the engine as runs do (auto: the best sandbox here), or off.",
)
@click.option("--json", "as_json", is_flag=True, help="Print the results as JSON lines.")
def check_command(
    engine: str, game_seconds: float, seed: int | None, sandbox: SandboxMode, as_json: bool
) -> None:
    """Check an engine before any match: start it as the referee does and drive it through
    every DCTP command and the hard cases (a flip answered, its first move as either
    player, a low time_left, a new game mid-way, a game re-told after a take-back,
    game_over, the rule sets it claims, quit), then a whole game against our engine.

    Each check prints ok, FAIL (with the line sent, the line received and how to fix it),
    note or skip. Exit status 0 only when no check failed, 1 otherwise.
    """
    spec = engine_spec(engine)
    opponent = EngineSpec(
        name="banqi-engine", command=builtin_engine_command("--level", OPPONENT_LEVEL)
    )
    try:
        factory, isolation = process_engines(sandbox, RunAccess().hidden(RUNS_FOLDER))
    except SandboxUnavailableError as error:
        output.fail(error)
    chosen = new_seed() if seed is None else seed
    if not as_json:
        output.note(
            f"checking {spec.name} ({spec.describe()}); sandbox: {isolation.value}; "
            f"seed {chosen} (--seed {chosen} repeats these checks)"
        )

    def report(result: CheckResult) -> None:
        if as_json:
            output.say(json.dumps(result.model_dump(mode="json")))
        else:
            for line in result_lines(result):
                output.say(line)

    try:
        results = asyncio.run(run_checks(spec, factory, opponent, game_seconds, chosen, report))
    except KeyboardInterrupt:
        output.interrupted(f"interrupted: the checks of {spec.name} were not finished")
    if not as_json:
        output.say(summary_line(results))
    if any(result.status is Status.FAILED for result in results):
        raise SystemExit(1)
