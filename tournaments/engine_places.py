"""Where a run's games are played: here, its engines started sandboxed, or on a Dask
cluster's workers; and the check of every engine before the first game."""

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from banqi_common.interrupt import run_interruptible
from referee.engine_check import check_engines
from referee.engine_spec import EngineSpec
from referee.engine_start import EngineFactory, process_engines, start_engine_process
from referee.sandbox import (
    Isolation,
    SandboxMode,
    choose_isolation,
    engine_view,
    keep_referee_private,
    resolved_command,
)

from .cluster import NEEDS_DASK, Cluster, ClusterError, WorkerEngines
from .run_access import RunAccess, TlsFiles
from .run_config import RunConfig
from .runner import PlayPlace


class EngineChecksInterrupted(KeyboardInterrupt):
    """Ctrl-C while the engines were being checked, before the first game."""


def _no_status() -> str:
    return ""


@dataclass(frozen=True)
class Playing:
    """Where a run's games are played: here, engines started by ``start_engine``, or at
    ``place`` (a cluster), whose ``status`` ends each progress line."""

    start_engine: EngineFactory
    place: PlayPlace | None = None
    status: Callable[[], str] = _no_status

    def at_once(self, concurrency: int, given: int | None) -> str:
        """How many games at once, for a header line."""
        if self.place is None:
            return f"{concurrency} at once"
        return f"{given or 'as many as the cluster has game slots'} at once"


def sandboxed_engines(
    mode: SandboxMode, hidden: Sequence[Path], engines: Sequence[EngineSpec]
) -> tuple[EngineFactory, Isolation]:
    """How engines are started here, and how they are isolated: they cannot see ``hidden``
    nor (the referee being made non-dumpable) the referee's memory; InputError for a mode
    this machine cannot give, or an engine that would have to see a secret."""
    keep_referee_private()
    factory, isolation = process_engines(mode, list(hidden))
    if isolation is not Isolation.NONE:
        for spec in engines:
            command = resolved_command(spec.command, (spec.cwd or Path.cwd()).resolve())
            engine_view(command, spec.cwd, spec.read_only, list(hidden), None)
    return factory, isolation


def connect_cluster(
    address: str, tls: TlsFiles | None, mode: SandboxMode, hidden: Sequence[Path]
) -> Cluster:
    """The cluster at ``address``, its workers' engines sandboxed with ``mode``, the
    ``hidden`` paths out of their sight; ``tls`` secures the connection."""
    security = None
    if tls is not None:
        try:
            from distributed.security import Security
        except ImportError:
            raise ClusterError(NEEDS_DASK) from None
        security = Security(  # type: ignore[no-untyped-call]
            tls_ca_file=str(tls.ca_file),
            tls_client_cert=str(tls.cert),
            tls_client_key=str(tls.key),
            require_encryption=True,
        )
    return Cluster(address, WorkerEngines(mode, tuple(str(path) for path in hidden)), security)


def on_cluster(
    cluster: Cluster, engines: Sequence[EngineSpec], config: RunConfig, given: int | None
) -> Playing:
    """Games played on the cluster, each engine checked on every worker first (with the
    run's rules); ``given`` games at once, else the cluster's game slots."""
    place = cluster.place(
        engines, config.time_control.time_ms, config.stall_timeout, config.rules, given
    )
    return Playing(start_engine_process, place, cluster.status)


def check_before_games(
    engines: Sequence[EngineSpec], start_engine: EngineFactory, config: RunConfig
) -> None:
    """Start and handshake each engine once; EngineCheckError names an engine that cannot
    play (or cannot play the run's rules), its command and the cause."""
    checks = check_engines(
        engines, start_engine, config.time_control.time_ms, config.stall_timeout, config.rules
    )
    try:
        run_interruptible(checks)
    except KeyboardInterrupt:
        raise EngineChecksInterrupted from None


def live_views_safe(mode: SandboxMode, concurrency: int) -> bool:
    """Whether a run may write its games' live views: engines sandboxed (they cannot see the
    run folder), or one game at a time (no game of a deal is played beside another)."""
    return concurrency == 1 or choose_isolation(mode) is not Isolation.NONE


def _no_network_notice(name: str) -> None:
    pass


@dataclass(frozen=True)
class Notices:
    """What a job says besides its results (the command line prints it on stderr): how the
    engines are isolated (or the warning that they are not), where the games are played,
    and each engine that keeps the host's network."""

    isolation: Callable[[Isolation, SandboxMode], None]
    cluster: Callable[[str, SandboxMode], None]
    network: Callable[[str], None] = _no_network_notice


def playing_for(
    access: RunAccess,
    config: RunConfig,
    out: Path,
    engines: Sequence[EngineSpec],
    notices: Notices,
    start_engine: EngineFactory | None = None,
) -> tuple[Playing, Cluster | None]:
    """Where the run's games are played as ``access`` says: on its cluster (engines checked
    there as the run starts), or here (engines not checked yet: ``check_before_games``),
    started by ``start_engine`` if given (a script's own engines), else sandboxed."""
    if start_engine is not None:
        return Playing(start_engine), None
    if config.sandbox is not SandboxMode.OFF:
        for spec in engines:
            if spec.network:
                notices.network(spec.name)
    hidden = access.hidden(out)
    if access.cluster is not None:
        cluster = connect_cluster(access.cluster, access.tls, config.sandbox, hidden)
        notices.cluster(access.cluster, config.sandbox)
        return on_cluster(cluster, engines, config, access.concurrency_given), cluster
    factory, isolation = sandboxed_engines(config.sandbox, hidden, engines)
    notices.isolation(isolation, config.sandbox)
    return Playing(factory), None
