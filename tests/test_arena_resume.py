"""A relay whose connection drops in the middle of its games: back within the grace period,
its engines go on (none started afresh, no game told again) and the games end on the
board; back after it, its engines have been stopped and fresh ones are told the games. The
server resumes only what it knows: a game not the entrant's, or lines that do not match,
mean a fresh engine."""

import asyncio
import os
from collections.abc import Callable
from pathlib import Path

import pytest

pytest.importorskip("websockets")
pytest.importorskip("uvicorn")

from arena_helpers import Heard, arena, engine_command, relaying

from banqi_arena import relay, wire
from banqi_arena.hub import ClientLink, Hub
from banqi_arena.remote_seat import RemoteSeat
from banqi_arena.tokens import add_entrant, read_store
from banqi_engine.rules import PRESETS
from protocol.line_protocol import TrafficLog
from referee.deals import deal_secret
from referee.engine_spec import EngineSpec
from referee.engine_start import EngineFactory
from referee.game_runner import play_game
from referee.game_setup import GameSetup
from referee.record import GameRecord, PlayerInfo
from referee.seats import EngineSeat, Seat
from referee.timecontrol import TimeControl

REMOTE = EngineSpec(name="alice", command=("(remote)",))
LOCAL = EngineSpec(name="local", command=(*engine_command(), "--level", "0", "--seed", "2"))
RELAYED = ("--level", "0", "--seed", "77")
"""The relayed engine's arguments: its processes are told from the local engines by them."""
GAMES = ("g1", "g2", "g3")


class CuttingProxy:
    """A TCP proxy on loopback whose connections can be cut, as a network failing, and
    which refuses new ones while it is down."""

    def __init__(self, target_port: int) -> None:
        self.target_port = target_port
        self.down = False
        self.writers: list[asyncio.StreamWriter] = []
        self.server: asyncio.Server | None = None

    async def start(self) -> int:
        self.server = await asyncio.start_server(self._serve, "127.0.0.1", 0)
        port: int = self.server.sockets[0].getsockname()[1]
        return port

    def cut(self) -> None:
        for writer in self.writers:
            writer.transport.abort()
        self.writers.clear()

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        if self.down:
            writer.transport.abort()
            return
        up_reader, up_writer = await asyncio.open_connection("127.0.0.1", self.target_port)
        self.writers += [writer, up_writer]
        await asyncio.gather(
            self._pipe(reader, up_writer), self._pipe(up_reader, writer), return_exceptions=True
        )

    async def _pipe(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            while data := await reader.read(65536):
                writer.write(data)
                await writer.drain()
        finally:
            writer.transport.abort()


class Traffic:
    """What the server said to each game's remote engine: its genmoves and reset_boards."""

    def __init__(self) -> None:
        self.genmoves = dict.fromkeys(GAMES, 0)
        self.resets = dict.fromkeys(GAMES, 0)

    def log(self, game: str) -> TrafficLog:
        def heard(line: str) -> None:
            if line.startswith("> ") and " genmove " in f" {line[2:]} ":
                self.genmoves[game] += 1
            if line.startswith("> ") and " reset_board" in f" {line[2:]}":
                self.resets[game] += 1

        return heard

    async def moved(self, count: int, games: "list[asyncio.Task[GameRecord]]") -> None:
        """Until every game's remote engine was asked for ``count`` moves (or ended)."""
        while any(
            self.genmoves[game] < count and not task.done()
            for game, task in zip(GAMES, games, strict=True)
        ):
            await asyncio.sleep(0.02)


def setup(game: str) -> GameSetup:
    return GameSetup(
        game_id=game,
        rules=PRESETS["casual"],  # short: 20 plies without progress draw
        time_control=TimeControl(time=120),
        players=(REMOTE, LOCAL),
        first=0,
        seed=7,
        deal=game,
        stall_timeout=30.0,
    )


def games(hub: Hub, traffic: Traffic) -> "list[asyncio.Task[GameRecord]]":
    async def one(game: str) -> GameRecord:
        def make(
            spec: EngineSpec, factory: EngineFactory, info: PlayerInfo, log: TrafficLog | None
        ) -> Seat:
            if spec.name == REMOTE.name:
                return RemoteSeat(spec, hub, game, info, traffic.log(game))
            return EngineSeat(spec, factory, info, log)

        secret = deal_secret(b"k" * 32, 7, game)
        return (await play_game(setup(game), secret, make_seat=make)).record

    return [asyncio.create_task(one(game)) for game in GAMES]


def relayed_engines() -> int:
    """The relayed engine's processes running (children of this process)."""
    count = 0
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
            command = (entry / "cmdline").read_bytes().split(b"\0")
        except OSError:
            continue
        parent = int(stat.rsplit(")", 1)[1].split()[1])
        if parent == os.getpid() and b"77" in command:
            count += 1
    return count


async def until(check: Callable[[], bool], seconds: float = 20.0) -> None:
    async with asyncio.timeout(seconds):
        while not check():
            await asyncio.sleep(0.02)


def run_dropped(tmp_path: Path, down_seconds: float) -> tuple[list[GameRecord], Heard, Traffic]:
    """Three games of a remote entrant whose connection is cut after its engines made two
    moves each, and stays down ``down_seconds``."""
    token, _ = add_entrant(tmp_path, REMOTE.name)
    heard, traffic = Heard(), Traffic()

    async def scenario() -> list[GameRecord]:
        async with arena(tmp_path) as (hub, url):
            port = int(url.rsplit(":", 1)[1].split("/")[0])
            proxy = CuttingProxy(port)
            cut_url = url.replace(f":{port}/", f":{await proxy.start()}/")
            async with asyncio.timeout(90), relaying(cut_url, token, heard, *RELAYED):
                tasks = games(hub, traffic)
                await traffic.moved(2, tasks)
                proxy.down = True
                proxy.cut()
                if down_seconds > wire.RESUME_SECONDS:
                    await until(lambda: relayed_engines() == 0)  # the relay stopped them
                    await until(lambda: not hub.suspended)  # the server lost them
                await asyncio.sleep(down_seconds)
                proxy.down = False
                return await asyncio.gather(*tasks)

    return asyncio.run(scenario()), heard, traffic


def test_a_relay_back_within_the_grace_period_keeps_its_engines(tmp_path: Path) -> None:
    records, heard, traffic = run_dropped(tmp_path, down_seconds=1.0)
    for game, record in zip(GAMES, records, strict=True):
        assert record.reason.is_board_end, (game, record.reason, record.detail)
        assert heard.lines.count(f"{game} started") == 1, heard.lines
        assert heard.lines.count(f"{game} resumed") == 1, heard.lines
        assert traffic.resets[game] == 1  # told the game once, at its start
        assert len([ply for ply in record.plies if ply.player == 0]) > 2
    assert heard.lines.count(f"connected {REMOTE.name}") == 2
    assert relayed_engines() == 0


def test_a_relay_back_after_the_grace_period_gets_fresh_engines(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(wire, "RESUME_SECONDS", 0.5)
    monkeypatch.setattr(relay, "RESUME_SECONDS", 0.5)
    records, heard, traffic = run_dropped(tmp_path, down_seconds=1.0)
    for game, record in zip(GAMES, records, strict=True):
        assert record.reason.is_board_end, (game, record.reason, record.detail)
        assert heard.lines.count(f"{game} started") == 2, heard.lines
        assert f"{game} resumed" not in heard.lines
        assert traffic.resets[game] == 2  # the fresh engine told the game from its start
    assert relayed_engines() == 0


def test_the_server_resumes_only_an_engine_whose_lines_match(tmp_path: Path) -> None:
    add_entrant(tmp_path, REMOTE.name)

    async def scenario() -> list[str]:
        hub = Hub(read_store(tmp_path), max_per_address=4)
        link = hub.links[REMOTE.name] = ClientLink(REMOTE.name, resumes=True)
        started = {}
        for game in ("a", "b", "c"):
            started[game] = (await hub.start_engine(REMOTE.name, game, None))[1]
        for one in started.values():
            one.send_line("7 reset_board")
            one.line_received("=7")
        link.closed = True
        await hub._detach(link)
        held = [
            wire.Held(game="a", told=1, said=1, kept=1),  # all told, all heard: resumed
            wire.Held(game="b", told=2, said=1, kept=1),  # told a line never sent: fresh
            wire.Held(game="z", told=0, said=0, kept=0),  # not a game of its: ignored
        ]
        resumed = hub._resumable(REMOTE.name, held)
        assert not hub.suspended
        assert started["b"].lost and started["c"].lost and not started["a"].lost
        return [entry.game for _, entry in resumed]

    assert asyncio.run(scenario()) == ["a"]


def test_a_version_1_client_is_welcomed_as_before_and_a_hello_holds_64_engines() -> None:
    token = "t" * 20
    hello = wire.client_frame(f'{{"type":"hello","protocol":"banqi-arena/1","token":"{token}"}}')
    assert isinstance(hello, wire.Hello) and hello.held is None
    welcome = wire.encoded(wire.Welcome(protocol="banqi-arena/1", entrant="alice"))
    assert welcome == '{"type":"welcome","protocol":"banqi-arena/1","entrant":"alice"}'
    held = [wire.Held(game=f"g{n}", told=9, said=9, kept=9) for n in range(wire.MAX_ENGINES)]
    text = wire.encoded(wire.Hello(token=token, held=held))
    assert isinstance(wire.client_frame(text), wire.Hello)
    one_more = '"held":[{"game":"g","told":9,"said":9,"kept":9},'
    with pytest.raises(wire.FrameError):
        wire.client_frame(text.replace('"held":[', one_more))
