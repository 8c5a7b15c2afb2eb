"""A tournament killed with SIGKILL part-way, twice, then resumed to the end.

The referee runs as a real ``banqi tournament`` process. Every process it starts
inherits a marker variable, so the test can find the engines it left behind.
"""

import contextlib
import json
import os
import random
import shlex
import shutil
import signal
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest
from click.testing import CliRunner, Result
from processes import script, wait_for

from banqi_cli.tournament_command import tournament_command
from banqi_cli.words import counted
from referee.deals import load_or_create_key
from referee.game_setup import deal_secret_of
from referee.reasons import Reason
from referee.record import GameRecord, read_record
from referee.replay import replay_game_record
from tournaments.run_folder import locked_run
from tournaments.schedule import schedule
from tournaments.state import STATE_FILE, TournamentState

MARKER = "BANQI_TOURNAMENT_TEST_RUN"
ROUNDS = 2
GAMES = ROUNDS * 3 * 2


def engine_flags(engine: str) -> list[str]:
    return [
        "--engine",
        f"a={engine} --level 0",
        "--engine",
        f"b={engine} --level 1",
        "--engine",
        f"c={engine} --level 1 --seed 5",
    ]


def tournament_args(
    out: Path, key: Path, engine: str, concurrency: int = 2, rounds: int = ROUNDS
) -> list[str]:
    return [
        *engine_flags(engine),
        "--rounds",
        str(rounds),
        "--concurrency",
        str(concurrency),
        "--rules",
        "casual",
        "--stall-timeout",
        "30",
        "--seed",
        "1",
        "--out",
        str(out),
        "--key-file",
        str(key),
    ]


def proc_stat(pid: int) -> tuple[str, int, int] | None:
    """(state, parent pid, start time) of a process, or None once it is gone."""
    try:
        text = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    fields = text[text.rindex(")") + 2 :].split()
    return fields[0], int(fields[1]), int(fields[19])


def marked_processes(marker: str) -> dict[int, str]:
    """Live (not zombie) processes whose environment holds the marker, with their command."""
    found = {}
    needle = f"{MARKER}={marker}".encode()
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            environ = (entry / "environ").read_bytes()
            cmdline = (entry / "cmdline").read_bytes()
        except OSError:
            continue
        stat = proc_stat(int(entry.name))
        if needle in environ.split(b"\0") and stat is not None and stat[0] != "Z":
            found[int(entry.name)] = cmdline.replace(b"\0", b" ").decode(errors="replace")
    return found


def children(pid: int) -> dict[int, int]:
    """Child pids of ``pid`` with their start times."""
    found = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            stat = proc_stat(int(entry.name))
            if stat is not None and stat[1] == pid:
                found[int(entry.name)] = stat[2]
    return found


def records_in(out: Path) -> list[Path]:
    folder = out / "games"
    return sorted(folder.glob("*.json")) if folder.is_dir() else []


def kill_referee(process: subprocess.Popen[bytes], marker: str) -> dict[int, str]:
    """SIGKILL the referee; the engines still alive 3 seconds later, with their commands."""
    engines = children(process.pid)
    process.send_signal(signal.SIGKILL)
    process.wait(timeout=10)
    deadline = time.monotonic() + 3.0
    while True:
        alive = {
            pid: "(started by the referee)"
            for pid, started in engines.items()
            if (stat := proc_stat(pid)) is not None and stat[0] != "Z" and stat[2] == started
        }
        alive.update(marked_processes(marker))
        if not alive or time.monotonic() > deadline:
            return alive
        time.sleep(0.05)


def check_standings(out: Path, records: list[GameRecord]) -> None:
    rows = json.loads((out / "standings.json").read_text())
    assert isinstance(rows, list)
    assert sorted(row["name"] for row in rows) == ["a", "b", "c"]
    for row in rows:
        mine = [
            (record, seat)
            for record in records
            for seat, player in enumerate(record.players)
            if player.name == row["name"]
        ]
        points = sum(record.points(seat) for record, seat in mine)
        assert row["games"] == len(mine) == 8
        assert row["points"] == points
        assert row["wins"] == sum(record.winner == seat for record, seat in mine)
        assert row["draws"] == sum(record.winner is None for record, _ in mine)
        assert isinstance(row["elo"], float)
        assert isinstance(row["elo_error"], float)


def test_killed_twice_then_resumed(tmp_path: Path) -> None:
    out = tmp_path / "run"
    key = tmp_path / "referee.key"
    marker = uuid.uuid4().hex
    env = {**os.environ, MARKER: marker}
    env.pop("BANQI_REFEREE_KEY", None)
    engine = shlex.quote(script("banqi-engine"))
    command = [script("banqi"), "tournament", *tournament_args(out, key, engine)]

    def start(log: str) -> subprocess.Popen[bytes]:
        with (tmp_path / log).open("wb") as output:
            return subprocess.Popen(command, env=env, stdout=output, stderr=subprocess.STDOUT)

    first = start("first.log")
    try:
        wait_for(
            "two records while a game is being played",
            lambda: len(records_in(out)) >= 2 and bool(children(first.pid)),
        )
    finally:
        survivors = kill_referee(first, marker)
    assert survivors == {}, "engines outlived the referee killed after two records by 3s"
    done_first = len(records_in(out))
    assert done_first < GAMES

    second = start("second.log")
    delay = random.uniform(0.5, 3.0)
    try:
        time.sleep(delay)
    finally:
        survivors = kill_referee(second, marker)
    assert survivors == {}, f"engines outlived the referee killed {delay:.2f}s in by 3s"

    already = len(records_in(out))
    third = subprocess.run(command, env=env, capture_output=True, text=True, timeout=180)
    assert third.returncode == 0, third.stderr
    if already:
        assert f"resuming with {counted(already, 'game')} done" in third.stdout
    played = [line for line in third.stdout.splitlines() if line.startswith("[")]
    assert len(played) == GAMES - already
    assert "Standings" in third.stdout
    assert marked_processes(marker) == {}

    state = TournamentState.model_validate_json((out / STATE_FILE).read_text())
    scheduled = list(schedule(state.config, state.seed))
    referee_key = load_or_create_key(key)
    assert len(scheduled) == GAMES
    assert [p.stem for p in records_in(out)] == sorted(g.setup.game_id for g in scheduled)
    assert sorted(p.stem for p in (out / "games").glob("*.txt")) == sorted(
        g.setup.game_id for g in scheduled
    )
    assert [p for p in out.rglob("*") if p.name.endswith(".tmp")] == []

    records = []
    for game in scheduled:
        record = read_record(out / "games" / f"{game.setup.game_id}.json")
        assert record.game_id == game.setup.game_id
        assert record.deal_secret == deal_secret_of(game.setup, referee_key)
        assert [p.name for p in record.players] == [s.name for s in game.setup.players]
        assert not record.loser_failed and record.reason is not Reason.FORFEIT, record.detail
        report = replay_game_record(record)
        assert report.ok, (record.game_id, report.problems)
        records.append(record)
    check_standings(out, records)


@pytest.fixture(scope="module")
def finished_template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A small finished run with instant engines (they resign at once)."""
    folder = tmp_path_factory.mktemp("finished")
    program = folder / "instant_engine.py"
    program.write_text(
        "import sys\n"
        "for line in sys.stdin:\n"
        "    words = line.split()\n"
        "    if not words:\n"
        "        continue\n"
        "    reply = {'12': ' a0 a0', '1': ' instant'}.get(words[0], '')\n"
        "    print(f'={words[0]}{reply}', flush=True)\n"
        "    if words[0] == '5':\n"
        "        break\n"
    )
    engine = shlex.join([sys.executable, str(program)])
    (folder / "engine.txt").write_text(engine)
    args = tournament_args(folder / "run", folder / "referee.key", engine)
    result = CliRunner().invoke(tournament_command, args)
    assert result.exit_code == 0, result.output
    return folder


@pytest.fixture
def finished_run(finished_template: Path, tmp_path: Path) -> tuple[Path, Path, str]:
    """A copy of the finished run: its folder, its key file and the engine command."""
    shutil.copytree(finished_template / "run", tmp_path / "run")
    shutil.copy(finished_template / "referee.key", tmp_path / "referee.key")
    engine = (finished_template / "engine.txt").read_text()
    return tmp_path / "run", tmp_path / "referee.key", engine


def run_again(finished_run: tuple[Path, Path, str], *extra: str, concurrency: int = 2) -> Result:
    """The tournament command on the finished run, as it was run, with ``extra`` options."""
    out, key, engine = finished_run
    args = tournament_args(out, key, engine, concurrency=concurrency)
    return CliRunner().invoke(tournament_command, [*args, *extra])


@pytest.mark.parametrize(
    ("change", "named"),
    [
        (["--rounds", "1"], "rounds"),
        (["--rules", "olympiad"], "rules"),
        (["--time", "60"], "time_control"),
        (["--seed", "2"], "seed"),
    ],
)
def test_changed_config_is_refused(
    finished_run: tuple[Path, Path, str], change: list[str], named: str
) -> None:
    out = finished_run[0]
    saved = (out / STATE_FILE).read_text()
    result = run_again(finished_run, *change)
    assert result.exit_code != 0
    assert "different config" in result.output
    assert f"{named}" in result.output
    assert "Traceback" not in result.output
    assert (out / STATE_FILE).read_text() == saved


def test_changed_engine_command_is_refused(finished_run: tuple[Path, Path, str]) -> None:
    out, key, engine = finished_run
    args = tournament_args(out, key, engine)
    args[args.index(f"b={engine} --level 1")] = f"b={engine} --level 0"
    result = CliRunner().invoke(tournament_command, args)
    assert result.exit_code != 0
    assert "engines[1].command[3]: was '1', now '0'" in result.output


def test_finished_run_with_other_concurrency_plays_nothing(
    finished_run: tuple[Path, Path, str],
) -> None:
    out = finished_run[0]
    before = {p.name: p.stat().st_mtime_ns for p in (out / "games").iterdir()}
    result = run_again(finished_run, concurrency=1)
    assert result.exit_code == 0, result.output
    assert f"resuming with {GAMES} games done" in result.output
    assert "[1/" not in result.output
    assert "Standings" in result.output
    assert {p.name: p.stat().st_mtime_ns for p in (out / "games").iterdir()} == before
    rows = json.loads((out / "standings.json").read_text())
    assert sum(row["games"] for row in rows) == 2 * GAMES


def test_seed_drawn_at_random_is_kept_on_resume(finished_run: tuple[Path, Path, str]) -> None:
    out, key, engine = finished_run
    other = out.parent / "unseeded"
    args = tournament_args(other, key, engine, rounds=1)
    del args[args.index("--seed") : args.index("--seed") + 2]
    first = CliRunner().invoke(tournament_command, args)
    assert first.exit_code == 0, first.output
    seed = TournamentState.model_validate_json((other / STATE_FILE).read_text()).seed
    for extra in ([], ["--seed", str(seed)]):
        again = CliRunner().invoke(tournament_command, [*args, *extra])
        assert again.exit_code == 0, again.output
        assert "resuming with 6 games done" in again.output


def test_second_run_on_a_busy_folder_is_refused(finished_run: tuple[Path, Path, str]) -> None:
    with locked_run(finished_run[0]):
        result = run_again(finished_run)
    assert result.exit_code != 0
    assert "another run is using" in result.output


def test_resume_refuses_damaged_records_then_replays_them_once_moved_away(
    finished_run: tuple[Path, Path, str],
) -> None:
    out, key, engine = finished_run
    games = out / "games"
    (games / "r1-1-2-1.json").unlink()
    (games / "r1-1-2-2.json").write_text('{"format": "banqi-record/1", "game_')
    (games / "r1-1-3-1.json").write_text((games / "r1-1-3-2.json").read_text())
    stale = [out / ".standings.json.k2j4.tmp", games / ".r1-1-2-1.json.x9q1.tmp"]
    for path in stale:
        path.write_text("half")
    before = {p.name: p.read_bytes() for p in games.iterdir() if not p.name.startswith(".")}

    refused = CliRunner().invoke(tournament_command, tournament_args(out, key, engine))
    assert refused.exit_code == 1
    assert "Traceback" not in refused.output
    error = refused.output.splitlines()[-1]
    assert error.startswith(f"Error: 2 damaged record(s) in {games}: ")
    assert f"record {games / 'r1-1-2-2.json'} is not a valid banqi-record/1 record: " in error
    assert "Invalid JSON" in error
    assert f"record {games / 'r1-1-3-1.json'} is the record of game r1-1-3-2" in error
    assert "move them out of the folder to have their games played again" in error
    assert "[1/" not in refused.output
    assert {p.name: p.read_bytes() for p in games.iterdir() if not p.name.startswith(".")} == (
        before
    )

    (games / "r1-1-2-2.json").rename(out / "r1-1-2-2.json.damaged")
    (games / "r1-1-3-1.json").unlink()
    result = CliRunner().invoke(tournament_command, tournament_args(out, key, engine))
    assert result.exit_code == 0, result.output
    assert f"resuming with {GAMES - 3} games done" in result.output
    played = sorted(line.split()[1] for line in result.output.splitlines() if line.startswith("["))
    assert played == ["r1-1-2-1", "r1-1-2-2", "r1-1-3-1"]
    assert [p for p in out.rglob("*") if p.name.endswith(".tmp")] == []
    assert read_record(games / "r1-1-2-2.json").game_id == "r1-1-2-2"


def test_thinking_engine_dies_with_killed_referee(tmp_path: Path) -> None:
    """An engine busy in genmove does not read its pipes, so only the referee's death ends it."""
    program = tmp_path / "thinker.py"
    program.write_text(
        "import sys, time\n"
        "for line in sys.stdin:\n"
        "    words = line.split()\n"
        "    if words and words[0] == '12':\n"
        "        time.sleep(20)\n"
        "    if words:\n"
        "        print(f'={words[0]}', flush=True)\n"
    )
    engine = shlex.join([sys.executable, str(program)])
    marker = uuid.uuid4().hex
    env = {**os.environ, MARKER: marker}
    args = tournament_args(tmp_path / "run", tmp_path / "referee.key", engine, rounds=1)
    referee = subprocess.Popen(
        [script("banqi"), "tournament", *args],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        wait_for("four engines", lambda: len(children(referee.pid)) == 4, 30)
        time.sleep(0.5)
        survivors = kill_referee(referee, marker)
        assert survivors == {}, "engines busy in genmove outlived the killed referee by 3s"
    finally:
        referee.kill()
        referee.wait()
        for pid in marked_processes(marker):
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
