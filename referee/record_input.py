"""Reading a record file for replay, bounded: a regular file of at most
``MAX_RECORD_BYTES`` bytes and ``MAX_RECORD_LINES`` lines, never a device or FIFO."""

import os
import stat
from pathlib import Path
from typing import Final

from pydantic import ValidationError

from banqi_common.errors import InputError
from banqi_common.model_files import first_problem
from banqi_common.write_errors import os_reason

from .record import RECORD_FORMAT, GameRecord, RecordError

MAX_RECORD_BYTES: Final = 8 * 1024 * 1024
"""The largest record replay reads (8 MiB; a 2,000-ply JSON record is about 250 KB)."""
MAX_RECORD_LINES: Final = 100_000
"""The most lines replay reads in a record."""


class RecordInputError(InputError):
    """A record file that cannot be read: missing, not a regular file, empty, too large."""


def read_record_text(path: Path) -> str:
    """The text of the record file ``path`` (symlinks followed), read bounded."""
    try:
        # O_NONBLOCK: opening a FIFO does not wait for a writer
        descriptor = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
        with os.fdopen(descriptor, "rb", buffering=0) as handle:
            mode = os.fstat(descriptor).st_mode
            if not stat.S_ISREG(mode):
                raise RecordInputError(
                    f"{path} is not a regular file (a device, FIFO, socket or folder): "
                    "replay reads record files only"
                )
            data = b""
            while len(data) <= MAX_RECORD_BYTES:
                chunk = handle.read(MAX_RECORD_BYTES + 1 - len(data))
                if not chunk:
                    break
                data += chunk
    except OSError as error:
        raise RecordInputError(f"cannot read {path}: {os_reason(error)}") from None
    if len(data) > MAX_RECORD_BYTES:
        raise RecordInputError(
            f"{path} is larger than {MAX_RECORD_BYTES:,} bytes, the most a record may have"
        )
    if not data.strip():
        raise RecordInputError(f"{path} is empty: not a record")
    if data.count(b"\n") > MAX_RECORD_LINES:
        raise RecordInputError(
            f"{path} has more than {MAX_RECORD_LINES:,} lines, the most a record may have"
        )
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as error:
        raise RecordInputError(
            f"{path} is not UTF-8 text (byte {error.start}): not a record"
        ) from None


def parse_json_record(text: str, path: Path) -> GameRecord:
    """The JSON record ``text`` read from ``path``; RecordError says what is wrong, as
    ``read_record`` does."""
    try:
        return GameRecord.model_validate_json(text)
    except ValidationError as problem:
        more = problem.error_count() - 1
        raise RecordError(
            f"record {path} is not a valid {RECORD_FORMAT} record: {first_problem(problem)}"
            + (f" (and {more} more problems)" if more else "")
        ) from None
