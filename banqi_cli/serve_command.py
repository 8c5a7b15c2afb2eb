"""``banqi serve``: a tournament whose remote entrants connect over the network."""

import secrets
import shlex
import ssl
from pathlib import Path
from typing import Final

import click

from banqi_common.errors import InputError
from banqi_common.sockets import listen
from banqi_gui.spectator_delay import NO_DELAY, SpectatorDelay, parse_delay
from tournaments.config import TournamentConfig, load_config
from tournaments.run_access import RUNS_FOLDER
from tournaments.run_kinds import ENTRANTS_FILE
from tournaments.tournament_job import TournamentJob, run_tournament_job

from . import output
from .live_line import live_line
from .param_types import ParsedType
from .run_options import AccessFlags, access_options, out_option, quiet_option, run_options
from .tournament_command import TournamentProgress, say_standings

NEEDS_ARENA: Final = "banqi serve needs its server: pip install 'banqi[arena]'"
DEFAULT_MAX_PER_ADDRESS: Final = 64


def _delay(text: str) -> SpectatorDelay:
    try:
        return parse_delay(text)
    except InputError as error:
        raise ValueError(str(error)) from None


def _tls_files(cert: Path | None, key: Path | None) -> tuple[Path, Path] | None:
    """Both TLS files or neither; a pair that does not load is a usage error."""
    if cert is None and key is None:
        return None
    if cert is None or key is None:
        raise click.UsageError("--tls-cert and --tls-key go together")
    try:
        ssl.create_default_context(ssl.Purpose.CLIENT_AUTH).load_cert_chain(str(cert), str(key))
    except (ssl.SSLError, OSError) as error:
        words = f"--tls-cert {cert} and --tls-key {key} do not load: {error}"
        raise click.UsageError(words) from None
    return cert, key


def _add_entrant(config: TournamentConfig, out: Path, name: str, url: str) -> None:
    from banqi_arena.tokens import add_entrant

    remote = config.remote_names()
    if name not in remote:
        allowed = ", ".join(sorted(remote)) or "none: mark an entrant remote = true"
        raise click.UsageError(f"--add-entrant {name}: not a remote entrant (remote: {allowed})")
    try:
        token, replaced = add_entrant(out, name)
    except InputError as error:
        output.fail(error)
    if replaced:
        output.note(f"{name}'s old token no longer works")
    output.say(f"token of {name} (shown only now; {out / ENTRANTS_FILE} keeps its hash):")
    output.say(token)
    output.say(f"its participant runs: banqi connect {url} --token TOKEN -- ENGINE_COMMAND...")


@click.command("serve")
@click.argument(
    "config_file",
    metavar="CONFIG.toml",
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
)
@click.option("--host", default="127.0.0.1", show_default=True, help="Address to listen on.")
@click.option(
    "--port", type=click.IntRange(0, 65535), default=8765, show_default=True, help="Port."
)
@click.option(
    "--tls-cert",
    "certificate",
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
    help="TLS certificate (PEM): clients connect with wss://.",
)
@click.option(
    "--tls-key",
    "private_key",
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
    help="The certificate's private key (PEM).",
)
@click.option(
    "--add-entrant",
    metavar="NAME",
    help="Make a new token for the remote entrant NAME, print it once, keep its hash in the "
    "run folder, and exit (its old token, if any, stops working).",
)
@click.option(
    "--max-per-address",
    type=click.IntRange(1, 10_000),
    default=DEFAULT_MAX_PER_ADDRESS,
    show_default=True,
    help="Connections at once from one network address.",
)
@click.option(
    "--concurrency",
    type=click.IntRange(1, 256),
    default=None,
    help="Games played at once (default: the config's).",
)
@click.option(
    "--spectator-delay",
    "delay",
    type=ParsedType("delay", SpectatorDelay, _delay),
    default="none",
    show_default=True,
    help="How far behind the games the spectators' pages are kept, in seconds ('30s') or "
    "plies ('4plies'), so that no one can relay a game being played to its entrant.",
)
@run_options
@access_options(deals=False, cluster=False)
@out_option(None, "Run folder; the same command resumes it. Default: banqi-runs/serve-<CONFIG>.")
@quiet_option("the final standings")
def serve_command(
    config_file: Path,
    host: str,
    port: int,
    certificate: Path | None,
    private_key: Path | None,
    add_entrant: str | None,
    max_per_address: int,
    concurrency: int | None,
    delay: SpectatorDelay,
    seed: int | None,
    log_traffic: bool,
    sandbox: object,
    out: Path | None,
    quiet: bool,
    access: AccessFlags,
) -> None:
    """Run the tournament of CONFIG.toml as an arena: entrants marked remote = true are
    played by the engines their participants connect with 'banqi connect', the others are
    started here, sandboxed, as 'banqi tournament' starts them.

    The server owns the hidden layouts and judges every ply; a remote engine is told only
    what DCTP echoes. Make each remote entrant's token first with --add-entrant NAME.
    Records, standings and reports are written to the run folder as a tournament's are;
    the same command resumes after a stop.

    The same port serves the event's pages: spectators open http(s)://HOST:PORT/ (no
    token: live boards, standings, crosstable, finished games and their records, each
    entrant's page; nothing hidden is shown), the organiser opens the address with the
    organiser's token printed at start (connections, lag, faults, games waiting; pause,
    resume, forfeit). Pauses and forfeits are kept in the run folder (control.json).
    """
    folder = out if out is not None else RUNS_FOLDER / f"serve-{config_file.stem}"
    tls = _tls_files(certificate, private_key)
    scheme = "wss" if tls is not None else "ws"
    shown = f"[{host}]" if ":" in host else host
    try:
        config = load_config(config_file)
    except InputError as error:
        output.fail(error)
    updates: dict[str, object] = {"sandbox": sandbox}
    if seed is not None:
        updates["seed"] = seed
    if concurrency is not None:
        updates["concurrency"] = concurrency
    config = TournamentConfig.model_validate({**config.model_dump(), **updates})
    if add_entrant is not None:
        _add_entrant(config, folder, add_entrant, f"{scheme}://{shown}:{port}/arena")
        return
    try:
        from banqi_arena.arena_place import ArenaPlace, EventPages
        from banqi_arena.hub import Hub
        from banqi_arena.tokens import read_store
    except ImportError:
        output.fail(InputError(NEEDS_ARENA))
    remote = config.remote_names()
    try:
        store = read_store(folder)
    except InputError as error:
        output.fail(error)
    missing = sorted(remote - set(store.entrants))
    if missing:
        commands = "; ".join(
            f"banqi serve {shlex.quote(str(config_file))} --add-entrant {name}" for name in missing
        )
        output.fail(
            InputError(f"remote entrants without a token: {', '.join(missing)}: {commands}")
        )
    try:
        sock = listen(host, port)
    except OSError as error:
        output.fail(InputError(f"cannot listen on {host}:{port}: {error.strerror or error}"))
    bound = sock.getsockname()[1]
    output.say(f"banqi serve: {scheme}://{shown}:{bound}/arena (Ctrl-C stops it)")
    names = ", ".join(sorted(remote)) or "none"
    output.say(f"remote entrants: {names}")
    page = "https" if tls is not None else "http"
    behind = "" if delay == NO_DELAY else f" ({delay.words()} behind)"
    output.say(f"spectators: {page}://{shown}:{bound}/{behind}")
    organiser_token = secrets.token_urlsafe(24)
    output.say(f"organiser: {page}://{shown}:{bound}/organiser?token={organiser_token}")
    pages = EventPages(config_file.stem, delay, organiser_token)
    hub = Hub(store, max_per_address)
    arena = ArenaPlace(hub, sock, config.concurrency, remote, folder, pages, tls)
    job = TournamentJob(config=config, out=folder, log_traffic=log_traffic, access=access.access())
    with live_line(False, quiet) as shown_line:
        progress = TournamentProgress(folder, config.seed, quiet, shown_line)
        events = progress.events()
        standings = output.run_job(
            lambda: run_tournament_job(job, events, arena=arena),
            lambda: output.interrupted(
                f"interrupted; finished games are saved in {folder}; run the same command to resume"
            ),
        )
    say_standings(standings, config, progress, folder)
