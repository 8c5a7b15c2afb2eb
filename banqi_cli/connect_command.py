"""``banqi connect``: relay an engine on this machine to an arena server (``banqi serve``)."""

import asyncio
import os
from pathlib import Path
from typing import Final

import click

from banqi_common.errors import InputError
from referee.engine_limits import EngineLimits
from referee.engine_spec import EngineSpec, default_name
from referee.sandbox import SandboxMode, choose_isolation

from . import output
from .engine_args import env_from, env_options, limit_option, limits_from, pass_env_from
from .param_types import choice_option

TOKEN_ENV: Final = "BANQI_ARENA_TOKEN"
NEEDS_CLIENT: Final = "banqi connect needs its client: pip install 'banqi[arena]'"


def _token(token: str | None, token_file: Path | None) -> str:
    """The token from --token, --token-file or $BANQI_ARENA_TOKEN (exactly one source)."""
    given = [t for t in (token, os.environ.get(TOKEN_ENV)) if t]
    if token_file is not None:
        try:
            given.append(token_file.read_text(encoding="utf-8").strip())
        except OSError as error:
            raise click.BadParameter(str(error.strerror), param_hint="'--token-file'") from None
    if not given:
        raise click.UsageError(f"give the entrant's token: --token, --token-file or ${TOKEN_ENV}")
    return given[0]


@click.command("connect", context_settings={"ignore_unknown_options": True})
@click.argument("url")
@click.argument("engine", nargs=-1, required=True, type=click.UNPROCESSED, metavar="-- ENGINE...")
@click.option("--token", default=None, help=f"The entrant's token (or ${TOKEN_ENV}).")
@click.option(
    "--token-file",
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
    default=None,
    help="A file holding the entrant's token (kept out of the engine's sight).",
)
@click.option(
    "--ca-file",
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
    default=None,
    help="CA certificate that signed the server's (wss:// with a private CA).",
)
@choice_option(
    "--sandbox",
    choices=SandboxMode,
    default=SandboxMode.AUTO,
    callback=lambda ctx, param, value: SandboxMode(value),
    help="Run the engine isolated, as the referee does: auto = the best sandbox available, "
    "required = refuse to run without one, off = a plain process.",
)
@limit_option("Of the engine relayed; one it reaches loses the game by it.")
@env_options
def connect_command(
    url: str,
    engine: tuple[str, ...],
    token: str | None,
    token_file: Path | None,
    ca_file: Path | None,
    sandbox: SandboxMode,
    limit: tuple[str, ...],
    env: tuple[str, ...],
    pass_env: tuple[str, ...],
) -> None:
    """Play a remote entrant of an arena: connect to URL (ws://HOST:PORT/arena, or wss://
    with TLS) with the entrant's token and relay ENGINE, started afresh for every game,
    until the tournament ends. Reconnects by itself after a dropped connection, keeping the
    engines of the games being played for 30 s meanwhile so that the server resumes them
    (telling each only the plies it missed); engines not resumed are stopped.
    """
    if not url.startswith(("ws://", "wss://")):
        raise click.BadParameter("must start with ws:// or wss://", param_hint="'URL'")
    try:
        from banqi_arena.relay import RelayEvents, RelaySettings, relay
    except ImportError:
        output.fail(InputError(NEEDS_CLIENT))
    secret = _token(token, token_file)
    try:
        isolation = choose_isolation(sandbox)
    except InputError as error:
        output.fail(error)
    spec = EngineSpec(
        name=default_name(engine),
        command=engine,
        env=env_from(env),
        pass_env=pass_env_from(pass_env),
        limits=limits_from(limit) or EngineLimits(),
    )
    settings = RelaySettings(url, secret, spec, isolation, ca_file)
    events = RelayEvents(
        connected=lambda who: output.note(f"connected to {url} as {who}"),
        dropped=lambda why: output.note(f"connection lost ({why}); connecting again"),
        game=lambda game, what: output.note(f"game {game}: engine {what}"),
    )
    output.run_job(
        lambda: asyncio.run(relay(settings, events)),
        lambda: output.interrupted("interrupted: the engine is stopped"),
    )
    output.note("the tournament is over")
