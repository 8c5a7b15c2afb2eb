"""Saving a record that fails half-way (the disk refuses more bytes) keeps the old record whole.

The failing write runs in a child process whose file-size limit (RLIMIT_FSIZE) is
lowered below the new record's size, with SIGXFSZ ignored, so the write fails with
EFBIG after some bytes went out, whatever way the record is written; the error names the
file and the folder.
"""

import os
import subprocess
import sys
from datetime import UTC, datetime
from pathlib import Path

import pytest

from banqi_engine.layout import format_layout
from banqi_engine.rules import PRESETS
from referee.deals import deal_secret, layout_from_secret
from referee.reasons import Reason
from referee.record import GameRecord, PlayerInfo, PlyRecord, read_record, write_record
from referee.storage import record_path, save_game
from referee.timecontrol import TimeControl

ROOT = Path(__file__).resolve().parent.parent
LIMIT = 64 * 1024
"""Bytes the child may write to any one file: far more than the old record, less than the new."""

CHILD = r"""
import resource, signal, sys
from pathlib import Path

from banqi_common.write_errors import WriteError
from referee.record import read_record, write_record
from referee.storage import save_game

path, limit, writer, grow = Path(sys.argv[1]), int(sys.argv[2]), sys.argv[3], sys.argv[4]
old = read_record(path)
if grow == "detail":
    new = old.model_copy(update={"detail": "x" * 4 * limit})
elif grow == "name":
    name = old.players[0].model_copy(update={"name": "n" * 4 * limit})
    new = old.model_copy(update={"players": (name, old.players[1])})
else:
    new = old
signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))
try:
    if writer == "write_record":
        write_record(new, path)
    else:
        save_game(path.parent.parent, new)
except WriteError as error:
    print(error)
else:
    print("written")
"""


def small_record() -> GameRecord:
    secret = deal_secret(b"k" * 32, 1, "0")
    now = datetime(2024, 5, 1, 12, 0, tzinfo=UTC)
    return GameRecord(
        game_id="g0001",
        rules=PRESETS["casual"],
        time_control=TimeControl(),
        players=(
            PlayerInfo(name="alpha", command=["alpha"], colour="red"),
            PlayerInfo(name="beta", command=["beta"], colour="black"),
        ),
        first=0,
        seed=1,
        deal="0",
        deal_secret=secret,
        layout=format_layout(layout_from_secret(secret)),
        started_at=now,
        finished_at=now,
        plies=[PlyRecord(player=0, move="a1(K)", ms=5, clocks_ms=(899_995, 900_000))],
        winner=0,
        reason=Reason.RESIGN,
        result="red wins: black resigned",
        end_ply=1,
    )


def fail_to_overwrite(path: Path, writer: str, grow: str) -> str:
    """Overwrite the record at ``path`` with a bigger one in a child that may not write it."""
    env = {**os.environ, "PYTHONDONTWRITEBYTECODE": "1"}
    child = subprocess.run(
        [sys.executable, "-c", CHILD, str(path), str(LIMIT), writer, grow],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env=env,
        timeout=30,
    )
    assert child.returncode == 0, child.stderr
    return child.stdout.strip()


@pytest.mark.parametrize(
    ("writer", "grow"),
    [("write_record", "detail"), ("save_game", "detail"), ("save_game", "name")],
)
def test_a_failed_save_keeps_the_old_record_and_leaves_no_temp_file(
    tmp_path: Path, writer: str, grow: str
) -> None:
    out = tmp_path / "run"
    old = small_record()
    path = save_game(out, old)
    assert path == record_path(out, old.game_id)
    old_json, old_text = path.read_bytes(), path.with_suffix(".txt").read_bytes()
    assert len(old_json) < LIMIT // 4

    failed = "text record" if grow == "name" else "record"
    assert fail_to_overwrite(path, writer, grow) == (
        f"cannot write {failed} g0001 to {out / 'games'}: file too large"
    )

    assert path.read_bytes() == old_json
    assert read_record(path) == old
    if grow == "name":  # the text record is written first, and it already fails
        assert path.with_suffix(".txt").read_bytes() == old_text
    assert sorted(p.name for p in path.parent.iterdir()) == ["g0001.json", "g0001.txt"]


def test_the_child_can_write_a_record_under_the_limit(tmp_path: Path) -> None:
    """The set-up itself: a record that fits is written by the same child code."""
    path = tmp_path / "g0001.json"
    write_record(small_record(), path)
    assert fail_to_overwrite(path, "write_record", "nothing") == "written"
    assert read_record(path) == small_record()
