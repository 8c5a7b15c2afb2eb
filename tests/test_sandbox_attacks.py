"""Hostile engines under the default ``banqi match``: each attack fails for the engine and
the run's results stand.

Each attacker is a fake (``referee_fakes``) with the attack pasted in; it tells what it
achieved through its answer to ``name``, which the record keeps. Where it helps, the same
attack is also shown to work without the sandbox, so the test can tell.
"""

import contextlib
import socket
import sys
import threading
import uuid
from pathlib import Path

import pytest
from arena_helpers import remote_event
from processes import run_banqi
from referee_fakes import Fake, attacker, write_fake

from referee.cgroups import cgroup_place
from referee.engine_limits import EngineLimits
from referee.record import GameRecord
from referee.sandbox import Isolation, working_isolations

pytestmark = pytest.mark.skipif(
    working_isolations()[0] is Isolation.NONE, reason="no sandbox works on this machine"
)


def command(fake: Fake) -> str:
    return f"{fake.name}={sys.executable} {fake.script.name}"


def records(out: Path) -> list[GameRecord]:
    paths = sorted((out / "games").glob("*.json"))
    return [GameRecord.model_validate_json(path.read_text()) for path in paths]


def reports(out: Path, name: str) -> set[str]:
    return {
        (player.engine_name or "").removeprefix("report:")
        for record in records(out)
        for player in record.players
        if player.name == name
    }


def match(work: Path, *engines: str, games: int = 2, extra: tuple[str, ...] = ()) -> Path:
    """``banqi match`` of the engines in ``work`` (which must succeed); its run folder."""
    out = work / f"run-{len(list(work.glob('run-*')))}"
    args = ["match", *engines, "--games", str(games), "--rules", "casual", "--out", str(out)]
    done = run_banqi([*args, *extra], work, work.parent / "home")
    assert done.returncode == 0, done.stderr
    return out


@pytest.fixture
def work(tmp_path: Path) -> Path:
    (tmp_path / "home").mkdir()
    folder = tmp_path / "work"
    folder.mkdir()
    return folder


REWRITE = r"""
results = []
for target in (os.path.join(HERE, "victim.py"), os.path.join(HERE, "planted.txt")):
    try:
        with open(target, "a") as handle:
            handle.write("\nraise SystemExit(3)\n")
        results.append("wrote")
    except OSError:
        results.append("refused")
REPORT = ",".join(results)
"""


def test_an_engine_cannot_rewrite_its_opponent_or_the_referees_folder(work: Path) -> None:
    victim = write_fake(work, "victim", legal=True)
    before = victim.script.read_bytes()
    hostile = attacker(work, "hostile", REWRITE)
    out = match(work, command(hostile), command(victim), games=4)
    assert reports(out, "hostile") == {"refused,refused"}
    assert victim.script.read_bytes() == before
    assert not (work / "planted.txt").exists()
    games = records(out)
    assert len(games) == 4
    assert all(record.reason.is_board_end for record in games)
    # the attack is real: unsandboxed, it breaks the victim
    match(work, command(hostile), command(victim), games=1, extra=("--sandbox", "off"))
    assert victim.script.read_bytes() != before


READ_OLD = r"""
import glob
found = glob.glob(os.path.join(HERE, "**", "*.json"), recursive=True)
found = [path for path in found if "/games/" in path]
REPORT = f"records:{len(found)}"
"""


def test_an_engine_reads_no_earlier_run(work: Path) -> None:
    """Neither a run of its own --out nor one in banqi-runs/ beside its program."""
    plain = write_fake(work, "plain", legal=True)
    other = write_fake(work, "other", legal=True)
    earlier = match(work, command(plain), command(other))
    default = run_banqi(
        ["match", command(plain), command(other), "--games", "2", "--rules", "casual"],
        work,
        work.parent / "home",
    )
    assert default.returncode == 0, default.stderr
    on_disk = [p for p in work.rglob("*.json") if p.parent.name == "games"]
    assert len(on_disk) == 4 and any("banqi-runs" in str(p) for p in on_disk)
    assert records(earlier)
    reader = attacker(work, "reader", READ_OLD)
    out = match(work, command(reader), command(other))
    assert reports(out, "reader") == {"records:0"}
    # unsandboxed, the same engine reads them all
    out = match(work, command(reader), command(other), extra=("--sandbox", "off"))
    assert all(int(words.removeprefix("records:")) >= 4 for words in reports(out, "reader"))


DIAL = r"""
import socket


def listening_ports():
    ports = set()
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        try:
            lines = open(table).read().splitlines()[1:]
        except OSError:
            continue
        for line in lines:
            fields = line.split()
            if fields[3] == "0A":
                ports.add(int(fields[1].rsplit(":", 1)[1], 16))
    return ports


reached = []
# the listener's port, and a few of those it sees (with the host's network, a busy host
# has many: each a wait of up to the timeout, which must not make the engine miss its
# time to answer)
for port in [__PORT__, *sorted(listening_ports() - {__PORT__})[:16]]:
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=0.5) as connection:
            if port == __PORT__:
                connection.sendall(b"__TOKEN__")
        reached.append(port)
    except OSError:
        pass
REPORT = f"seen:{len(listening_ports())},reached:{__PORT__ in reached}"
"""


def dial(port: int, token: bytes) -> str:
    """The attack: connect to every port seen, and bring ``token`` to ``port``."""
    return DIAL.replace("__PORT__", str(port)).replace("__TOKEN__", token.decode())


class Listener:
    """A TCP listener on the host's loopback that counts the connections that bring its
    token: the engine's own, not those of other programs that happen on its port."""

    def __init__(self) -> None:
        self.socket = socket.create_server(("127.0.0.1", 0))
        self.port: int = self.socket.getsockname()[1]
        self.token = uuid.uuid4().hex.encode()
        self.accepted = 0
        self.socket.settimeout(0.2)
        self.open = True
        self.thread = threading.Thread(target=self._serve, daemon=True)
        self.thread.start()

    def _serve(self) -> None:
        while self.open:
            try:
                connection, _ = self.socket.accept()
            except OSError:
                continue
            with connection:
                connection.settimeout(2)
                heard = b""
                with contextlib.suppress(OSError):
                    while len(heard) < len(self.token):
                        chunk = connection.recv(len(self.token) - len(heard))
                        if not chunk:
                            break
                        heard += chunk
            if heard == self.token:
                self.accepted += 1

    def close(self) -> None:
        self.open = False
        self.thread.join()
        self.socket.close()


def test_an_engine_reaches_no_port_of_the_host_unless_given_the_network(work: Path) -> None:
    listener = Listener()
    try:
        dialler = attacker(work, "dialler", dial(listener.port, listener.token))
        other = write_fake(work, "other", legal=True)
        out = match(work, command(dialler), command(other))
        assert reports(out, "dialler") == {"seen:0,reached:False"}, reports(out, "dialler")
        assert listener.accepted == 0
        assert {p.network for r in records(out) for p in r.players} == {False}
        given = match(work, command(dialler), command(other), extra=("--network", "dialler"))
        seen = reports(given, "dialler")  # how many ports it saw is the host's business
        assert seen and all(words.endswith("reached:True") for words in seen), seen
        assert listener.accepted > 0
        networks = {p.name: p.network for r in records(given) for p in r.players}
        assert networks == {"dialler": True, "other": False}
    finally:
        listener.close()


def test_an_engine_reaches_no_dask_scheduler(work: Path) -> None:
    """Under --cluster local:1 the scheduler and worker listen on the host's loopback."""
    pytest.importorskip("distributed")
    dialler = attacker(work, "dialler", dial(1, b"none"))
    other = write_fake(work, "other", legal=True)
    out = match(work, command(dialler), command(other), extra=("--cluster", "local:1"))
    assert reports(out, "dialler") == {"seen:0,reached:False"}
    plain = match(
        work, command(dialler), command(other), extra=("--cluster", "local:1", "--sandbox", "off")
    )
    seen = reports(plain, "dialler")  # the count may differ between games: other programs
    assert seen and not any(words.startswith("seen:0,") for words in seen), seen  # unsandboxed


def at_first_genmove(work: Path, name: str, code: str) -> Fake:
    """A legal-playing fake ``name`` that runs ``code`` at its first genmove."""
    attack = "def on_genmove(i, words):\n" + "".join(
        f"    {line}\n" for line in code.strip().splitlines()
    )
    attack += "    reply(i, choose(words[2]))\n"
    return write_fake(work, name, attack, legal=True)


def limited_attack(
    work: Path, code: str, limit: str | None = None
) -> tuple[list[GameRecord], Fake]:
    """A match of an engine that runs ``code`` at its first genmove against a plain one,
    under ``--limit limit`` (the default limits without)."""
    hostile = at_first_genmove(work, "hostile", code)
    other = write_fake(work, "other", legal=True)
    extra = ("--limit", limit) if limit else ()
    out = match(work, command(hostile), command(other), extra=extra)
    return records(out), other


def lost_by(games: list[GameRecord], name: str, reason: str) -> bool:
    for record in games:
        loser = record.players[1 - record.winner] if record.winner is not None else None
        if loser is None or loser.name != name or record.reason.value != reason:
            return False
    return bool(games)


needs_cgroups = pytest.mark.skipif(
    cgroup_place() is None, reason="no control group can be made here"
)

HOG = """
hoard = [b"\\x01" * (64 << 20) for _ in range(40)]
"""
"""Touches 2.5 GiB."""


@needs_cgroups
def test_a_fork_bomb_loses_by_its_process_limit(work: Path) -> None:
    code = """
children = 0
for _ in range(300):
    try:
        if os.fork() == 0:
            time.sleep(30)
            os._exit(0)
        children += 1
    except OSError:
        break
"""
    games, _ = limited_attack(work, code, "processes=40")
    assert lost_by(games, "hostile", "process-limit")
    assert all("40 processes" in (record.detail or "") for record in games)


@needs_cgroups
def test_an_engine_that_allocates_too_much_loses_by_its_memory_limit(work: Path) -> None:
    games, _ = limited_attack(work, HOG, "memory_mib=256")
    assert lost_by(games, "hostile", "memory-limit")
    limits = {p.name: p.limits for record in games for p in record.players}
    assert limits["hostile"] == EngineLimits(memory_mib=256)
    assert limits["other"] == EngineLimits(memory_mib=256)  # --limit is for both


def test_by_default_an_engine_has_2_gib_and_loses_by_its_memory_limit_beyond(
    work: Path,
) -> None:
    """No --limit: an engine that touches 2.5 GiB (the hostile engine of a 24 GiB machine
    touched 3 GiB) is stopped at its default of 2,048 MiB, not left to take the machine."""
    games, _ = limited_attack(work, HOG)
    assert lost_by(games, "hostile", "memory-limit")
    assert all("memory limit of 2048 MiB" in record.detail for record in games), games
    assert all(p.limits == EngineLimits() for record in games for p in record.players)


def test_a_tournament_on_a_cluster_worker_holds_engines_to_the_limit_given(work: Path) -> None:
    """``banqi tournament --cluster local:1 --limit``: the engine that allocates too much on
    the worker loses by ``memory-limit``; every record keeps the limits."""
    pytest.importorskip("distributed")
    hostile = at_first_genmove(work, "hostile", HOG)
    other = write_fake(work, "other", legal=True)
    out = work / "run"
    args = ["tournament", command(hostile), command(other), "--rounds", "1", "--rules", "casual"]
    args += ["--cluster", "local:1", "--limit", "memory_mib=256", "--out", str(out)]
    done = run_banqi(args, work, work.parent / "home", timeout=240)
    assert done.returncode == 0, done.stderr
    games = records(out)
    assert len(games) == 2 and all(record.worker is not None for record in games)
    assert lost_by(games, "hostile", "memory-limit"), [(g.reason, g.detail) for g in games]
    assert all(p.limits == EngineLimits(memory_mib=256) for g in games for p in g.players)


def test_an_engine_behind_banqi_connect_loses_by_its_memory_limit(work: Path) -> None:
    """``banqi connect --limit`` holds the relayed engine to it; the server's records say
    ``memory-limit``, not a crash."""
    pytest.importorskip("websockets")
    pytest.importorskip("uvicorn")
    at_first_genmove(work, "hog", HOG)
    relay_args = ["--limit", "memory_mib=256", "--", sys.executable, "hog.py"]
    games = remote_event(work, "hog", relay_args)
    assert len(games) == 2
    assert lost_by(games, "hog", "memory-limit"), [(g.reason, g.detail) for g in games]
    assert all("memory limit of 256 MiB" in (record.detail or "") for record in games)


def test_an_engine_that_fills_its_room_loses_and_leaves_nothing(work: Path) -> None:
    code = """
chunk = b"\\x01" * (1 << 20)
for n in range(64):
    try:
        with open(f"fill-{n}", "wb") as handle:
            for _ in range(8):
                handle.write(chunk)
    except OSError:
        break
time.sleep(2)
"""
    before = sum(p.stat().st_size for p in work.rglob("*") if p.is_file())
    games, _ = limited_attack(work, code, "room_mib=32")
    assert lost_by(games, "hostile", "room-limit")
    after = sum(
        p.stat().st_size
        for p in work.rglob("*")
        if p.is_file() and not p.is_relative_to(work / "run-0")
    )
    assert after - before < 1 << 20  # the room was a tmpfs: nothing written stays


def test_a_file_larger_than_the_room_ends_its_writer(work: Path) -> None:
    code = """
with open("big", "wb") as handle:
    for _ in range(40):
        handle.write(b"\\x01" * (1 << 20))
"""
    games, _ = limited_attack(work, code, "room_mib=16")
    assert lost_by(games, "hostile", "room-limit")
    assert all("larger than" in (record.detail or "") for record in games)


@pytest.mark.parametrize("where", ["match", "tournament", "connect"])
def test_limits_are_checked_on_the_command_line(work: Path, where: str) -> None:
    plain, other = write_fake(work, "plain"), write_fake(work, "other")
    engines = [command(plain), command(other)]
    before = {
        "match": ["match", *engines],
        "tournament": ["tournament", *engines],
        "connect": ["connect", "ws://127.0.0.1:9/arena", "--token", "t" * 43],
    }[where]
    after = ["--", sys.executable, plain.script.name] if where == "connect" else []
    for bad, words in (
        ("memory=3", "KEY one of memory_mib"),
        ("processes=0", "greater than or equal to 1"),
    ):
        done = run_banqi([*before, "--limit", bad, *after], work, work.parent / "home")
        assert done.returncode == 2 and words in done.stderr, done.stderr
