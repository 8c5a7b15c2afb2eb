"""The options of a run: its seed, traffic log and sandbox, and what it may read (the
referee key, a deal book) and where it plays (a cluster, its TLS files); those of a run
between two engines (a match, an SPRT) gathered as one ``PairRunFlags``."""

import functools
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar, cast

import click

from referee.deals import new_seed
from referee.engine_spec import EngineSpec
from referee.sandbox import SandboxMode
from tournaments.run_access import RunAccess, TlsFiles, default_folder

from .game_options import rules_option, time_control_options
from .param_types import choice_option, path_option

F = TypeVar("F", bound=Callable[..., Any])


def _apply(function: F, options: list[Callable[[Any], Any]]) -> F:
    """``function`` with ``options``, the first listed first in ``--help``."""
    command: Any = function
    for option in reversed(options):
        command = option(command)
    return cast(F, command)


def key_file_option(function: F) -> F:
    """``--key-file KEY``: the referee key, if not in its default place."""
    return click.option(
        "--key-file",
        type=click.Path(dir_okay=False, path_type=Path),
        default=None,
        help="Referee key the layouts are derived from (created if missing, in a folder "
        "that must exist). "
        "Default: $BANQI_REFEREE_KEY or ~/.config/banqi/referee.key.",
    )(function)


DEALS_OPTION = click.option(
    "--deals",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    metavar="BOOK",
    help="Deal book (written by 'banqi deals', or by hand) whose deals the run plays in "
    "order, its k-th deal from entry k, so that runs with other engines meet the same "
    "layouts. Hidden from engines. Default: layouts derived from the referee key.",
)
TLS_FILE = click.Path(exists=True, dir_okay=False, path_type=Path)
CLUSTER_OPTIONS = [
    click.option(
        "--cluster",
        metavar="ADDRESS",
        default=None,
        help="Play each game as a task on the Dask scheduler at ADDRESS (tcp://HOST:8786, "
        "tls://HOST:8786), or local:N for N worker processes on this machine "
        "(pip install 'banqi[cluster]'). Games at once: the workers' game slots, unless "
        "--concurrency is given.",
    ),
    click.option("--tls-ca-file", type=TLS_FILE, default=None, help="TLS: the CA file."),
    click.option("--tls-cert", type=TLS_FILE, default=None, help="TLS: this client's cert."),
    click.option("--tls-key", type=TLS_FILE, default=None, help="TLS: this client's key."),
]


def run_options(function: F) -> F:
    """``--seed``, ``--log-traffic`` and ``--sandbox`` (the callback receives a
    SandboxMode)."""
    options = [
        click.option(
            "--seed",
            type=click.IntRange(0),
            default=None,
            help="Run seed: with the same referee key, the same layouts. Default: random.",
        ),
        click.option("--log-traffic", is_flag=True, help="Write each game's DCTP transcript."),
        choice_option(
            "--sandbox",
            choices=SandboxMode,
            default=SandboxMode.AUTO,
            callback=lambda ctx, param, value: SandboxMode(value),
            help="Run engines isolated: auto = the best sandbox available (bubblewrap, else "
            "unshare), warning if none; required = refuse to run without one; off = plain "
            "processes.",
        ),
    ]
    return _apply(function, options)


ADOPT_OPTION = click.option(
    "--adopt-unsigned",
    is_flag=True,
    help="Resume a run folder written by a banqi older than MACs (its files have none): "
    "sign its state files and records as they are. Only for a folder of your own runs; "
    "without it such a folder is refused.",
)


@dataclass(frozen=True)
class AccessFlags:
    """``--key-file``, ``--deals``, ``--cluster``, the TLS files and ``--adopt-unsigned`` as
    given."""

    key_file: Path | None
    deals: Path | None
    cluster: str | None
    tls: tuple[Path | None, Path | None, Path | None]
    concurrency_given: int | None
    adopt_unsigned: bool

    def access(self, cluster: str | None = None) -> RunAccess:
        """The run's access, its games on ``cluster`` (default: ``--cluster``); the TLS files
        are all given or none, and only with a cluster (a usage error otherwise)."""
        address = cluster or self.cluster
        tls = None
        if any(self.tls):
            if address is None:
                raise click.UsageError("--tls-ca-file, --tls-cert and --tls-key need --cluster")
            ca_file, cert, key = self.tls
            if ca_file is None or cert is None or key is None:
                raise click.UsageError("--tls-ca-file, --tls-cert and --tls-key go together")
            tls = TlsFiles(ca_file=ca_file, cert=cert, key=key)
        return RunAccess.model_validate(vars(self) | {"cluster": address, "tls": tls})


def concurrency_given() -> int | None:
    """``--concurrency`` if it was given on the command line (a cluster's default is its
    game slots)."""
    ctx = click.get_current_context()
    if ctx.get_parameter_source("concurrency") != click.core.ParameterSource.COMMANDLINE:
        return None
    value: int = ctx.params["concurrency"]
    return value


def access_options(*, deals: bool = True, cluster: bool = True) -> Callable[[F], F]:
    """``--key-file`` and ``--adopt-unsigned``, and ``--deals`` and the cluster options where
    the run takes them; the callback receives them as ``access`` (AccessFlags)."""

    def decorate(function: F) -> F:
        @functools.wraps(function)
        def wrapper(*args: Any, key_file: Path | None, adopt_unsigned: bool, **kwargs: Any) -> Any:
            tls = tuple(kwargs.pop(name, None) for name in ("tls_ca_file", "tls_cert", "tls_key"))
            kwargs["access"] = AccessFlags(
                key_file,
                kwargs.pop("deals", None),
                kwargs.pop("cluster", None),
                (tls[0], tls[1], tls[2]),
                concurrency_given(),
                adopt_unsigned,
            )
            return function(*args, **kwargs)

        options = [key_file_option, ADOPT_OPTION, *([DEALS_OPTION] if deals else [])]
        return cast(F, _apply(wrapper, options + (CLUSTER_OPTIONS if cluster else [])))

    return decorate


def played_run_options(function: F) -> F:
    """The options of a run of games: the rules, the clock, the run's and its access."""
    return _apply(function, [rules_option, time_control_options, run_options, access_options()])


PROGRESS_OPTION = click.option(
    "--progress",
    "live",
    is_flag=True,
    help="Show the line of the games in progress (game, ply, both clocks, last ply), "
    "redrawn in place on stderr, even when the output is not a terminal. Default: shown "
    "when stderr or stdout is a terminal.",
)


def quiet_option(kept: str) -> Callable[[F], F]:
    """``--quiet``: no header, no line per game or pair, no live line; only ``kept`` (and
    the warnings)."""
    return click.option(
        "--quiet", is_flag=True, help=f"No progress lines, no live line; only {kept}."
    )


def progress_option(function: F) -> F:
    """``--progress``: the live line of the games in progress forced on (the callback
    receives it as ``live``)."""
    return PROGRESS_OPTION(function)


def out_option(default: Path | None, help: str) -> Callable[[F], F]:
    """``--out FOLDER``: the run folder, which the same command resumes."""
    return path_option(
        "--out", folder=True, default=default, show_default=default is not None, help=help
    )


@dataclass(frozen=True)
class PairRunFlags:
    """A run between two engines as its command was given it: ``--seed`` and ``--out``
    (None: not given), the access flags, ``--quiet`` and ``--progress``."""

    kind: str
    """The run's kind, the first word of its default folder (``match``, ``sprt``)."""
    seed: int | None
    out: Path | None
    access: AccessFlags
    quiet: bool
    live: bool

    def fields(self, engines: tuple[EngineSpec, EngineSpec]) -> dict[str, object]:
        """The config's ``engines``, ``seed`` (a new one without ``--seed``) and ``out``
        (without ``--out``, ``banqi-runs/<kind>-<A>-vs-<B>``)."""
        folder = self.out if self.out is not None else default_folder(self.kind, engines)
        seed = new_seed() if self.seed is None else self.seed
        return {"engines": engines, "seed": seed, "out": folder}


def pair_run_options(kind: str, kept: str, out_help: str) -> Callable[[F], F]:
    """The options of a run of games between two engines of ``kind``, ``--quiet`` keeping
    ``kept``, ``--progress`` and ``--out`` (no default; ``out_help``); the callback receives
    ``--seed``, ``--out``, the access flags, ``--quiet`` and ``--progress`` as ``run``
    (PairRunFlags), the other settings as they are."""

    def decorate(function: F) -> F:
        @functools.wraps(function)
        def wrapper(
            *args: Any,
            seed: int | None,
            out: Path | None,
            access: AccessFlags,
            quiet: bool,
            live: bool,
            **kwargs: Any,
        ) -> Any:
            run = PairRunFlags(kind, seed, out, access, quiet, live)
            return function(*args, run=run, **kwargs)

        options = [played_run_options, quiet_option(kept), progress_option]
        return cast(F, _apply(wrapper, [*options, out_option(None, out_help)]))

    return decorate
