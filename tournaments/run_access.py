"""What a run may read and what its engines must not see: the referee key, the deal book,
the run folders, and the default run folder of each kind of run."""

import re
from collections.abc import Sequence
from pathlib import Path
from typing import Final

from pydantic import BaseModel, ConfigDict

from referee.deal_book import LoadedBook, read_deal_book
from referee.deals import key_locations, load_referee_key
from referee.engine_spec import EngineSpec
from referee.sandbox import referee_secrets

RUNS_FOLDER: Final = Path("banqi-runs")
"""Where runs keep their records by default (hidden from engines, earlier runs too)."""


class TlsFiles(BaseModel):
    """The TLS files that reach a secured Dask scheduler."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    ca_file: Path
    cert: Path
    key: Path


class RunAccess(BaseModel):
    """Where a run takes its secrets from and where it plays its games."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    key_file: Path | None = None
    """The referee key (None: ``$BANQI_REFEREE_KEY`` or ``~/.config/banqi/referee.key``)."""
    deals: Path | None = None
    """A deal book the run's deals are read from (None: derived from the referee key)."""
    cluster: str | None = None
    """The Dask scheduler that plays the games (None: played here)."""
    tls: TlsFiles | None = None
    concurrency_given: int | None = None
    """Games at once when the user said so; on a cluster, None means its game slots."""
    adopt_unsigned: bool = False
    """Sign the files of a run folder that a banqi older than MACs wrote, as they are, and
    resume it (``tournaments.run_adopt``); without it such a folder is refused."""

    def referee_key(self) -> bytes:
        """The referee key (made if missing); KeyFileError if it cannot be."""
        return load_referee_key(self.key_file)

    def deal_book(self) -> LoadedBook | None:
        """The deal book, read and checked (None without one)."""
        return None if self.deals is None else read_deal_book(self.deals)

    def hidden(self, out: Path) -> list[Path]:
        """What engines must not see: the key files, the deal book, the run folders."""
        books = [self.deals] if self.deals is not None else []
        return referee_secrets([*key_locations(self.key_file), *books], [out, RUNS_FOLDER])


def default_folder(kind: str, engines: Sequence[EngineSpec]) -> Path:
    """``banqi-runs/<kind>-<A>-vs-<B>``: the same run, started again, resumes there."""
    words = "-vs-".join(re.sub(r"[^A-Za-z0-9._+-]+", "_", spec.name) for spec in engines)
    return RUNS_FOLDER / f"{kind}-{words}"
