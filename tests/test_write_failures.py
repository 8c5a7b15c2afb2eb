"""A run that cannot write (a full disk, a read-only folder): one line naming what it was
writing and where, and the same command, once the disk has room, ends with every record
and every transcript.

The runs stopped at each write are played in-process, the failure raised at the
atomic-write seam (its fsync); the command-line runs fill a real tmpfs and mount a real
folder read-only, where this machine lets the tests mount (root on Linux), else they are
skipped.
"""

import asyncio
import contextlib
import errno
import logging
import os
import re
import shlex
import subprocess
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner
from in_process_engines import engine_spec, in_process
from referee_fakes import TEST_KEY, Fake, write_fake

from banqi_cli.main import cli
from banqi_common.write_errors import WriteError
from banqi_engine.rules import PRESETS
from referee.deal_records import DealRecords
from referee.game_runner import play_game
from referee.game_setup import deal_secret_of
from referee.record import GameRecord, read_record
from referee.storage import GAMES_DIR, traffic_path
from tournaments.config import TournamentConfig
from tournaments.runner import RunEvents, RunOptions, run_games
from tournaments.schedule import schedule

SEED = 3
CONFIG = TournamentConfig(
    engines=(
        engine_spec("random", "--level", "0", "--seed", "1", "--rules", "casual"),
        engine_spec("greedy", "--level", "1", "--seed", "2", "--rules", "casual"),
    ),
    rules=PRESETS["casual"],
    rounds=1,
    seed=SEED,
)
REFUSALS = (errno.ENOSPC, errno.EROFS)
WORDS = {errno.ENOSPC: "no space left on device", errno.EROFS: "read-only file system"}


def play(out: Path) -> None:
    """Play (or resume) the one-pair tournament in ``out``, keeping transcripts."""
    options = RunOptions(
        key=TEST_KEY,
        out=out,
        events=RunEvents(lambda record, standings: None, lambda *_: None),
        log_traffic=True,
        start_engine=in_process(),
        live_views=False,
    )
    asyncio.run(run_games(schedule(CONFIG, SEED), CONFIG, options))


def assert_complete(out: Path, games: int, transcripts: bool) -> None:
    """Every record of the run complete, with its transcript (every flip echoed in it) if
    kept; nothing half-written, nothing held."""
    records = [read_record(path) for path in sorted((out / GAMES_DIR).glob("*.json"))]
    assert len(records) == games
    for record in records:
        assert not record.withheld
        log = traffic_path(out, record.game_id)
        assert log.exists() is transcripts
        if transcripts:
            echoes = log.read_text(encoding="utf-8")
            flips = [ply.move for ply in record.plies if "(" in ply.move]
            assert flips and all(f"flip {move[:2]} {move[3]}" in echoes for move in flips)
    assert not [path.name for path in out.rglob("*") if path.suffix in (".tmp", ".held")]


@contextlib.contextmanager
def refused_at(monkeypatch: pytest.MonkeyPatch, write: int, code: int) -> Iterator[None]:
    """The ``write``-th durable write from now on (0 first) fails with ``code``."""
    count = iter(range(1_000_000))

    def fsync(fd: int) -> None:
        if next(count) == write:  # the others do nothing: durability is not tested here
            raise OSError(code, os.strerror(code))

    with monkeypatch.context() as patch:
        patch.setattr(os, "fsync", fsync)
        yield


def test_a_run_stopped_at_any_write_is_completed_by_the_next_with_every_transcript(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    stopped_at = set()
    for write in range(100):
        out = tmp_path / str(write)
        code = REFUSALS[write % 2]
        try:
            with refused_at(monkeypatch, write, code):
                play(out)
        except WriteError as error:
            stopped_at.add(str(error).split(" to ")[0])
            where = re.escape(str(out))
            assert re.fullmatch(
                rf"cannot write [\w .-]+ to {where}(/games)?: {WORDS[code]}", str(error)
            )
        else:
            break  # every write of the run has been refused once
        play(out)
        assert_complete(out, 2, transcripts=True)
    assert write > 10
    assert {"cannot write transcript r1-1-2-1", "cannot write record r1-1-2-2"} <= stopped_at


Mount = Callable[..., None]
"""Runs mount(8) with these arguments; the test is skipped where it cannot."""


@pytest.fixture
def mount() -> Iterator[Mount]:
    """mount(8), each mount undone after the test, the last first."""
    points: list[str] = []

    def run(*args: str) -> None:
        try:
            done = subprocess.run(["mount", *args], capture_output=True, text=True, check=False)
        except OSError as error:
            pytest.skip(f"no mount(8) here: {error}")
        if done.returncode != 0:
            pytest.skip(f"this machine does not let the tests mount: {done.stderr.strip()}")
        points.append(args[-1])

    yield run
    for point in reversed(points):
        subprocess.run(["umount", point], check=False)


def read_only(mount: Mount, folder: Path) -> None:
    """Make ``folder`` read-only where it is (a read-only bind mount over it)."""
    mount("--bind", str(folder), str(folder))
    mount("-o", "remount,ro,bind", str(folder))


def fill(path: Path) -> None:
    """Write ``path`` until its disk refuses more."""
    fd = os.open(path, os.O_WRONLY | os.O_CREAT)
    with contextlib.suppress(OSError):
        while True:
            os.write(fd, bytes(1 << 16))
    os.close(fd)


def engines(folder: Path, fakes: list[Fake]) -> list[str]:
    """Two fake engines that play legal moves, as ``NAME=COMMAND`` (in ``fakes`` too)."""
    fakes += [write_fake(folder, name, legal=True) for name in ("alpha", "beta")]
    return [f"{fake.name}={shlex.join(fake.command)}" for fake in fakes]


def test_a_full_disk_stops_a_match_with_one_line_and_the_same_command_completes_it(
    tmp_path: Path, mount: Mount, monkeypatch: pytest.MonkeyPatch, fakes: list[Fake]
) -> None:
    disk = tmp_path / "disk"
    disk.mkdir()
    mount("-t", "tmpfs", "-o", "size=4m", "tmpfs", str(disk))
    out, filler = disk / "run", disk / "filler"
    save = DealRecords.save

    def save_then_fill(
        self: DealRecords, record: GameRecord, transcript: str | None = None
    ) -> list[GameRecord]:
        saved = save(self, record, transcript)
        fill(filler)  # the disk is full once the first game's withheld record is saved
        return saved

    args = ["match", *engines(tmp_path, fakes), "--games", "2", "--rules", "casual", "--seed", "1"]
    args += ["--log-traffic", "--sandbox", "off", "--out", str(out)]
    args += ["--key-file", str(tmp_path / "key")]
    with monkeypatch.context() as patch:
        patch.setattr(DealRecords, "save", save_then_fill)
        stopped = CliRunner().invoke(cli, args)
    assert stopped.exit_code == 1
    assert "Traceback" not in stopped.output
    assert stopped.stderr.splitlines()[-1] == (
        f"Error: cannot write standings.json to {out}: no space left on device"
    )
    assert read_record(out / GAMES_DIR / "g0001.json").withheld

    filler.unlink()
    resumed = CliRunner().invoke(cli, args)
    assert resumed.exit_code == 0, resumed.output
    assert_complete(out, 2, transcripts=True)


def test_a_read_only_run_folder_is_named_and_so_is_the_record_it_cannot_write(
    tmp_path: Path, mount: Mount, fakes: list[Fake]
) -> None:
    out = tmp_path / "run"
    args = ["tournament", *(f"--engine={engine}" for engine in engines(tmp_path, fakes))]
    args += ["--rules", "casual", "--seed", "1", "--sandbox", "off", "--quiet"]
    args += ["--out", str(out), "--key-file", str(tmp_path / "key")]
    assert CliRunner().invoke(cli, args).exit_code == 0
    read_only(mount, out)
    refused = CliRunner().invoke(cli, [*args, "--rounds", "2"])
    assert (refused.exit_code, refused.stderr.splitlines()[-1]) == (
        1,
        f"Error: cannot open the lock file tournament.lock in {out}: read-only file system",
    )
    subprocess.run(["umount", str(out)], check=True)

    read_only(mount, out / GAMES_DIR)
    refused = CliRunner().invoke(cli, [*args, "--rounds", "2"])
    assert (refused.exit_code, refused.stderr.splitlines()[-1]) == (
        1,
        f"Error: cannot write record r2-1-2-1 to {out / GAMES_DIR}: read-only file system",
    )
    subprocess.run(["umount", str(out / GAMES_DIR)], check=True)
    assert CliRunner().invoke(cli, [*args, "--rounds", "2"]).exit_code == 0
    assert_complete(out, 4, transcripts=False)


@pytest.mark.parametrize(
    ("what", "says"),
    [
        ("deal book", "cannot write deal book {ro}/book.json"),
        ("key file", "cannot create referee key file {ro}/key"),
        ("run folder", "cannot create the run folder {ro}/run"),
    ],
)
def test_each_file_a_run_makes_in_a_read_only_folder_is_named(
    tmp_path: Path, mount: Mount, what: str, says: str, fakes: list[Fake]
) -> None:
    ro = tmp_path / "ro"
    ro.mkdir()
    read_only(mount, ro)
    key = ro / "key" if what == "key file" else tmp_path / "key"
    if what == "run folder":
        args = ["match", *engines(tmp_path, fakes), "--sandbox", "off", "--out", str(ro / "run")]
    else:
        book = ro if what == "deal book" else tmp_path
        args = ["deals", "--count", "1", "--out", str(book / "book.json")]
    result = CliRunner().invoke(cli, [*args, "--key-file", str(key)])
    assert result.exit_code == 1
    assert result.stderr.splitlines()[-1] == f"Error: {says.format(ro=ro)}: read-only file system"


def test_a_live_view_that_cannot_be_written_is_given_up_with_one_warning(
    tmp_path: Path, mount: Mount, caplog: pytest.LogCaptureFixture
) -> None:
    live = tmp_path / "live"
    live.mkdir()
    read_only(mount, live)
    setup = next(schedule(CONFIG, SEED)).setup
    game = play_game(
        setup,
        deal_secret_of(setup, TEST_KEY),
        start_engine=in_process(),
        live_path=live / f"{setup.game_id}.json",
    )
    with caplog.at_level(logging.WARNING, logger="referee.live"):
        played = asyncio.run(game)
    assert played.record.plies
    assert caplog.messages == [
        f"cannot write live view {setup.game_id} to {live}: read-only file system"
    ]
