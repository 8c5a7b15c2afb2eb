"""Everything the run commands print: result lines on stdout, notes and warnings on
stderr, one-line errors, and the exit after Ctrl-C; on a terminal, the live line of the
games in progress (``banqi_cli.live_line``) gives way to each of them."""

from collections.abc import Callable
from typing import NoReturn, TypeVar

import click

from banqi_common.errors import InputError
from banqi_engine.errors import RulesInputError
from referee.record import GameRecord
from referee.sandbox import INSTALL_HINT, Isolation, SandboxMode
from tournaments.engine_places import EngineChecksInterrupted, Notices

from .live_line import printing

T = TypeVar("T")


def say(text: str, nl: bool = True) -> None:
    """A line on stdout: progress, a summary (``nl``: end it); the live line of the games in
    progress is cleared first (``banqi_cli.live_line``)."""
    with printing():
        click.echo(text, nl=nl)


def note(text: str) -> None:
    """A line on stderr: how the run is played, a warning (the live line cleared first)."""
    with printing():
        click.echo(text, err=True)


def fail(error: Exception) -> NoReturn:
    """Stop with ``Error: ...`` (exit 1) for input that cannot be used."""
    raise click.ClickException(str(error)) from None


def interrupted(text: str) -> NoReturn:
    """Say on stderr what Ctrl-C left, then exit 130."""
    note(text)
    raise SystemExit(130) from None


def checks_interrupted() -> NoReturn:
    """Ctrl-C while the engines were being checked."""
    interrupted("interrupted while checking the engines, before the first game")


def run_job(job: Callable[[], T], interrupted: Callable[[], NoReturn]) -> T:
    """What a library job returns; input it cannot use is a one-line error (exit 1), Ctrl-C
    while the engines are checked or, then, ``interrupted()`` exit 130."""
    try:
        return job()
    except (InputError, RulesInputError, OSError) as error:
        fail(error)
    except EngineChecksInterrupted:
        checks_interrupted()
    except KeyboardInterrupt:
        interrupted()


def seed_words(seed: int | None) -> str:
    """The run seed for a header line, only if the user gave it: a drawn seed is kept in
    the run's files, never printed where an engine could read the referee's output."""
    return "seed drawn at random" if seed is None else f"seed {seed}"


def not_isolated(cause: str, hint: str = "") -> None:
    """The warning that engines are not isolated, because of ``cause``; then ``hint``."""
    note(
        f"warning: {cause}, engines are NOT isolated: they can read what the referee's user "
        f"can read (its key, the deal book, the run folders) and outlive their games"
        + (f"; {hint}" if hint else "")
    )


def isolation_note(isolation: Isolation, mode: SandboxMode, quiet: bool = False) -> None:
    """How engines are isolated (unless ``quiet``), or, always, the warning that they are
    not: no sandbox works here, or the run asked for none."""
    if isolation is Isolation.NONE and mode is SandboxMode.AUTO:
        not_isolated("no sandbox works on this machine", INSTALL_HINT)
    elif isolation is Isolation.NONE:
        not_isolated("sandbox off")
    elif not quiet:
        note(f"sandbox: {isolation.value} ({isolation.words})")


def cluster_note(address: str, mode: SandboxMode) -> None:
    """Where the games are played; the warning that engines are not isolated if the run
    asked for no sandbox."""
    note(f"games played on the Dask cluster {address}, engines sandboxed: {mode.value}")
    if mode is SandboxMode.OFF:
        not_isolated("sandbox off on the cluster's workers")


def network_note(name: str) -> None:
    """An engine given the host's network (said even when quiet)."""
    note(f"warning: engine {name!r} keeps the host's network in its sandbox (network = true)")


def notices(quiet: bool = False) -> Notices:
    """A job's notices, printed on stderr (the sandbox line left out when ``quiet``, never a
    warning that engines are not isolated or keep the host's network)."""
    return Notices(
        lambda isolation, mode: isolation_note(isolation, mode, quiet), cluster_note, network_note
    )


class UntoldRules:
    """Says once per engine, on stderr, that it was not told the rules it is judged by."""

    def __init__(self) -> None:
        self.warned: set[str] = set()

    def note(self, record: GameRecord) -> None:
        """Warn about each engine of the game that was not told its rules, once per run."""
        for player in record.players:
            if player.rules_told is False and player.name not in self.warned:
                self.warned.add(player.name)
                note(
                    f"warning: engine {player.name!r} does not take the rule_set command, so it "
                    f"was not told the rules it is judged by ({record.rules.name}); its illegal "
                    "moves under them lose games"
                )


def engine_out(name: str, remaining: int | None, last: str) -> None:
    """Say on stderr that an engine failed too many games in a row and is out of the run
    (``remaining`` of its games forfeited, or None: every game from now on)."""
    games = "games from now on" if remaining is None else f"{remaining} remaining games"
    note(
        f"ENGINE FAILING: {name} failed too many games in a row (last: {last}); its "
        f"{games} are forfeited"
    )
