"""``banqi gui``: the browser board (needs the ``gui`` extra: ``pip install 'banqi[gui]'``)."""

import re
import secrets
from pathlib import Path
from typing import Final
from urllib.parse import quote

import click
from pydantic import ValidationError

from banqi_common.errors import InputError
from banqi_common.interrupt import run_interruptible
from banqi_engine.rules import PRESETS
from referee.deals import key_locations
from referee.engine_check import check_engines
from referee.engine_spec import EngineSpec, default_name, split_command
from referee.engine_start import EngineFactory
from referee.sandbox import SandboxMode, referee_secrets
from tournaments.config import load_config
from tournaments.engine_places import sandboxed_engines
from tournaments.run_access import RUNS_FOLDER

from . import output
from .param_types import choice_option, path_option
from .run_options import out_option

NAMED = re.compile(r"^([^\s=/\\]+)=(.+)$", re.DOTALL)
"""``NAME=COMMAND``: a name with no space, ``=`` or slash, then the command."""
GUI_EXTRA = "pip install 'banqi[gui]'"
CHECK_TIME_MS: Final = 600_000
CHECK_TIMEOUT: Final = 10.0
"""Each offered engine is started and handshaken as a match's are, before the page is
served: told a 10-minute clock, given this many seconds to answer."""
OLYMPIAD: Final = PRESETS["olympiad"]


def engine_spec(text: str) -> EngineSpec:
    """An engine from ``[NAME=]COMMAND``; a clean error if it cannot be used."""
    named = NAMED.match(text)
    try:
        command = split_command(named.group(2) if named else text)
        name = named.group(1) if named else default_name(command)
        return EngineSpec(name=name, command=command)
    except InputError as error:
        raise click.ClickException(str(error)) from None
    except ValidationError as error:
        reason = str(error.errors()[0]["msg"]).removeprefix("Value error, ")
        raise click.ClickException(f"engine {text!r}: {reason}") from None


def sandboxed_factory(
    mode: SandboxMode, folders: list[Path], engines: list[EngineSpec]
) -> EngineFactory:
    """Engines started as the referee starts them: sandboxed by ``mode``, the key files and
    every folder of records out of their sight; says on stderr how they are isolated."""
    hidden = referee_secrets(key_locations(None), folders)
    try:
        factory, isolation = sandboxed_engines(mode, hidden, engines)
    except InputError as error:
        output.fail(error)
    output.isolation_note(isolation, mode)
    return factory


@click.command("gui")
@click.option("--host", default="127.0.0.1", show_default=True, help="Address to listen on.")
@click.option(
    "--port", type=click.IntRange(0, 65535), default=0, help="Port (default: a free one)."
)
@click.option("--no-browser", is_flag=True, help="Do not open a browser; just print the address.")
@path_option(
    "--watch",
    folder=True,
    help="A match's or tournament's run folder: open the page watching its games.",
)
@path_option(
    "--runs",
    folder=True,
    default=RUNS_FOLDER,
    show_default=True,
    help="Folder whose run folders the watch and replay pages list.",
)
@click.option(
    "--engine",
    "engines",
    multiple=True,
    metavar="[NAME=]COMMAND",
    help="An engine to offer besides the built-in levels (repeatable).",
)
@path_option("--config", exists=True, help="A tournament config whose engines to offer.")
@out_option(RUNS_FOLDER / "gui", "Where finished games are saved (games/<id>.json and .txt).")
@choice_option(
    "--sandbox",
    choices=SandboxMode,
    default=SandboxMode.AUTO,
    help="How engines are isolated, as in 'banqi match'.",
)
def gui_command(
    host: str,
    port: int,
    no_browser: bool,
    watch: Path | None,
    runs: Path,
    engines: tuple[str, ...],
    config: Path | None,
    out: Path,
    sandbox: str,
) -> None:
    """Play, watch and replay in the browser: a local web server for one board page.

    Play any offered engine (the built-in levels, --engine, --config) or a friend on one
    screen; watch the games of a run being played; replay any record. The address it
    prints carries a token: only a browser that opened it may use the server. A game lasts
    while its page is open (it ends, its engine stopped, 10 s after the page is closed),
    16 at most at once; in an untimed game an engine has 5 s a move.
    """
    try:
        from banqi_common.sockets import listen
        from banqi_gui.app import GuiConfig
        from banqi_gui.play_settings import PlayOptions, engine_choices
        from banqi_gui.server import address, serve
        from banqi_gui.watch import RunFolders, is_run
    except ImportError as error:
        raise click.ClickException(
            f"the GUI needs packages that are not installed ({error.name}): {GUI_EXTRA}"
        ) from None
    if watch is not None and not is_run(watch):
        what = "does not exist" if not watch.exists() else "is not a run folder"
        words = f"{watch} {what}: give the folder of a match, a tournament or an SPRT"
        raise click.BadParameter(words, param_hint="'--watch'")
    try:
        sock = listen(host, port)
    except OSError as error:
        raise click.ClickException(f"cannot listen on {host}:{port}: {error}") from None
    specs = [engine_spec(text) for text in engines]
    if config is not None:
        try:
            specs += [entry.spec() for entry in load_config(config).engines if not entry.remote]
        except InputError as error:
            raise click.ClickException(str(error)) from None
    folders = [out, RUNS_FOLDER, runs, *([watch] if watch is not None else [])]
    factory = sandboxed_factory(SandboxMode(sandbox), folders, specs)
    try:
        run_interruptible(check_engines(specs, factory, CHECK_TIME_MS, CHECK_TIMEOUT, OLYMPIAD))
    except InputError as error:
        output.fail(error)
    run_folders = RunFolders(runs, [watch] if watch is not None else [])
    token = secrets.token_urlsafe(24)
    gui = GuiConfig(token, PlayOptions(engine_choices(specs), factory, out), run_folders)
    page = ""
    if watch is not None:
        page = "#watch/" + quote(run_folders.listing()[0]["id"])
    if host not in ("127.0.0.1", "localhost", "::1"):
        click.echo(
            "warning: listening beyond this machine; whoever has the address can play here",
            err=True,
        )
    serve(gui, sock, address(sock, token, page), open_browser=not no_browser, say=click.echo)
