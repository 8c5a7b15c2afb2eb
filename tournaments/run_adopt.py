"""Signing a run folder that a banqi older than MACs wrote (``--adopt-unsigned``).

Such a folder's state file and records have no MAC, so a resume refuses them, as it refuses
a folder that a run did not make. Its user, who knows the folder is a run of theirs, may
adopt it: its unsigned state files and records are signed as they are, then the run
resumes as any other. Only a folder whose state file has no MAC is adopted; in a signed
folder an unsigned record is not the referee's, and stays refused.
"""

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from referee.macs import MacKeys, signed
from referee.record import RecordError, read_record, write_record
from referee.storage import GAMES_DIR

from .run_folder import RunKind, write_state


def adopt_unsigned(out: Path, kinds: Sequence[RunKind[Any]], macs: MacKeys) -> None:
    """Sign the unsigned state files (``kinds``, the run's own first) and records of the
    run folder ``out`` if its own state file has no MAC; records that cannot be read are
    left for the resume to name."""
    own = kinds[0].read(out)
    if own is None or own.mac is not None:
        return
    for kind in kinds:
        state = kind.read(out)
        if state is not None and state.mac is None:
            write_state(out, kind, state, macs)
    for path in sorted((out / GAMES_DIR).glob("*.json")):
        try:
            record = read_record(path)
        except RecordError:
            continue
        if record.mac is None:
            write_record(signed(record, macs.game(record.seed, record.game_id)), path)
