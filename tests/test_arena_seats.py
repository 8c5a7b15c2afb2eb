"""A remote entrant's seat in a real game over loopback: its client dropped mid-game comes
back and the game goes on with a fresh engine told the game; one that never comes back
loses by disconnect; sixteen remote entrants connected at once play their games; a slow
network (a delaying proxy) is credited back to the clock, within its cap."""

import asyncio
import contextlib
from pathlib import Path
from typing import ClassVar

import pytest

pytest.importorskip("websockets")
pytest.importorskip("uvicorn")

from arena_helpers import Heard, arena, engine_command, relaying

from banqi_arena.hub import ClientLink, Hub
from banqi_arena.remote_seat import LAG_CAP, LAG_SHARE, RemoteSeat
from banqi_arena.tokens import add_entrant, read_store
from banqi_engine.pieces import RED
from banqi_engine.rules import PRESETS
from protocol.errors import EngineDisconnectedError, EngineTimeoutError
from protocol.line_protocol import TrafficLog
from protocol.session import MoveAnswer
from referee.deals import deal_secret
from referee.engine_spec import EngineSpec
from referee.engine_start import EngineFactory
from referee.game_runner import play_game
from referee.game_setup import GameSetup
from referee.reasons import Reason
from referee.record import GameRecord, PlayerInfo
from referee.sandbox import Isolation
from referee.seats import EngineSeat, Seat, Turn
from referee.timecontrol import TimeControl

REMOTE = EngineSpec(name="alice", command=("(remote)",))
LOCAL = EngineSpec(name="local", command=(*engine_command(), "--level", "1", "--seed", "2"))


def game(time: float, rules: str = "olympiad") -> GameSetup:
    return GameSetup(
        game_id="g1",
        rules=PRESETS[rules],
        time_control=TimeControl(time=time),
        players=(REMOTE, LOCAL),
        first=0,
        seed=7,
        deal="0",
        stall_timeout=30.0,  # engines start on relays, up to 16 at once on a busy machine
    )


class Seats:
    """Makes the game's seats, the remote one on the hub; counts the remote's genmoves."""

    def __init__(self, hub: Hub) -> None:
        self.hub = hub
        self.moves = 0

    def log(self, line: str) -> None:
        if line.startswith("> ") and " genmove " in f" {line[2:]} ":
            self.moves += 1

    def make(
        self, spec: EngineSpec, factory: EngineFactory, info: PlayerInfo, log: TrafficLog | None
    ) -> Seat:
        if spec.name == REMOTE.name:
            return RemoteSeat(spec, self.hub, "g1", info, self.log)
        return EngineSeat(spec, factory, info, log)

    async def moved(self, count: int, game: "asyncio.Task[GameRecord]") -> None:
        """Wait until the remote engine has been asked for ``count`` moves, or ``game``
        has ended (then its record says why)."""
        while self.moves < count and not game.done():
            await asyncio.sleep(0.02)


async def played(seats: Seats, setup: GameSetup) -> asyncio.Task[GameRecord]:
    async def run() -> GameRecord:
        secret = deal_secret(b"k" * 32, setup.seed, setup.deal)
        return (await play_game(setup, secret, make_seat=seats.make)).record

    return asyncio.create_task(run())


def test_an_engine_is_never_started_on_a_connection_that_has_ended(tmp_path: Path) -> None:
    # Between a connection's end and its detaching, its link is still listed: a seat that
    # restarts its engine then must wait for the next connection, not start on the dead one.
    add_entrant(tmp_path, REMOTE.name)

    async def scenario() -> tuple[bool, ClientLink]:
        hub = Hub(read_store(tmp_path), max_per_address=4)
        ended = ClientLink(REMOTE.name, closed=True)
        hub.links[REMOTE.name] = ended
        starting = asyncio.create_task(hub.start_engine(REMOTE.name, "g1", None))
        await asyncio.sleep(0.2)
        waited = not starting.done()
        fresh = ClientLink(REMOTE.name)
        async with hub._changed:
            hub.links[REMOTE.name] = fresh
            hub._changed.notify_all()
        _, _, link = await asyncio.wait_for(starting, 5)
        return waited, link

    waited, link = asyncio.run(scenario())
    assert waited
    assert not link.closed and "g1" in link.games


def test_a_time_loss_after_a_reconnection_counts_the_whole_turn(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The engine seat is asked again with what is left of the turn's wait; the time loss
    # it may end in still says how long the game loop waited in all.
    asked: list[float | None] = []

    async def dropped_then_silent(self: EngineSeat, turn: Turn) -> MoveAnswer:
        asked.append(turn.wait)
        if len(asked) == 1:
            raise EngineDisconnectedError(REMOTE.name, "dropped")
        assert turn.wait is not None
        raise EngineTimeoutError(REMOTE.name, "genmove r", turn.wait)

    async def back(self: RemoteSeat, deadline: float | None) -> None:
        await asyncio.sleep(0.3)
        self._lost = False

    monkeypatch.setattr(EngineSeat, "play", dropped_then_silent)
    monkeypatch.setattr(RemoteSeat, "_recover", back)
    hub = Hub(read_store(tmp_path), max_per_address=4)
    seat = RemoteSeat(REMOTE, hub, "g1", PlayerInfo(name=REMOTE.name, command=[]))
    turn = Turn(RED, 10.0, 9.8, None, None, None, 5.0)
    with pytest.raises(EngineTimeoutError) as raised:
        asyncio.run(seat.play(turn))
    assert asked[0] == pytest.approx(10.0, abs=0.05)
    assert asked[1] is not None and asked[1] < 9.8
    assert raised.value.timeout == 10.0


def test_a_client_dropped_mid_game_comes_back_and_the_game_goes_on(tmp_path: Path) -> None:
    token, _ = add_entrant(tmp_path, REMOTE.name)

    async def scenario() -> GameRecord:
        first, second = Heard(), Heard()
        async with arena(tmp_path) as (hub, url):
            seats = Seats(hub)
            task = await played(seats, game(60.0))
            async with asyncio.timeout(60):
                async with relaying(url, token, first, "--level", "2", "--seed", "1"):
                    await seats.moved(4, task)
                async with relaying(url, token, second, "--level", "2", "--seed", "1"):
                    record = await task
        assert first.lines[:2] == ["connected alice", "g1 started"]
        assert second.lines[:2] == ["connected alice", "g1 started"]
        return record

    record = asyncio.run(scenario())
    assert record.reason.is_board_end or record.reason is Reason.RESIGN, record.detail
    remote_plies = [ply for ply in record.plies if ply.player == 0]
    assert len(remote_plies) > 3


def test_a_client_that_never_comes_back_loses_by_disconnect(tmp_path: Path) -> None:
    token, _ = add_entrant(tmp_path, REMOTE.name)

    async def scenario() -> GameRecord:
        async with arena(tmp_path) as (hub, url):
            seats = Seats(hub)
            task = await played(seats, game(3.0))
            async with asyncio.timeout(60):
                async with relaying(url, token, Heard(), "--level", "2", "--seed", "1"):
                    await seats.moved(2, task)
                return await task

    record = asyncio.run(scenario())
    assert record.reason is Reason.DISCONNECT
    assert record.winner == 1


def test_sixteen_remote_entrants_connected_at_once_play_their_games(tmp_path: Path) -> None:
    names = [f"p{n:02d}" for n in range(16)]
    tokens = {name: add_entrant(tmp_path, name)[0] for name in names}

    async def scenario() -> list[GameRecord]:
        async with arena(tmp_path) as (hub, url), contextlib.AsyncExitStack() as stack:
            for name in names:
                await stack.enter_async_context(
                    relaying(url, tokens[name], Heard(), "--level", "0", "--seed", "1")
                )
            async with asyncio.timeout(120):
                while len(hub.links) < len(names):
                    await asyncio.sleep(0.05)

                def make(
                    spec: EngineSpec,
                    factory: EngineFactory,
                    info: PlayerInfo,
                    log: TrafficLog | None,
                ) -> Seat:
                    if spec.name in tokens:
                        return RemoteSeat(spec, hub, f"g-{spec.name}", info, log)
                    return EngineSeat(spec, factory, info, log)

                async def one(name: str) -> GameRecord:
                    remote = EngineSpec(name=name, command=("(remote)",))
                    setup = game(60.0).model_copy(
                        update={"game_id": f"g-{name}", "players": (remote, LOCAL)}
                    )
                    secret = deal_secret(b"k" * 32, setup.seed, name)
                    return (await play_game(setup, secret, make_seat=make)).record

                return await asyncio.gather(*(one(name) for name in names))

    played = asyncio.run(scenario())
    assert sorted(record.players[0].name for record in played) == names
    for record in played:
        assert record.reason.is_board_end, (record.game_id, record.reason, record.detail)
        assert record.players[0].isolation is Isolation.REMOTE


DELAY = 0.025
"""Seconds the proxy holds each chunk, each way."""


class DelayingProxy:
    """A TCP proxy on loopback that holds every chunk ``delay`` seconds, each way."""

    def __init__(self, target_port: int, delay: float) -> None:
        self.target_port = target_port
        self.delay = delay
        self.server: asyncio.Server | None = None

    async def start(self) -> int:
        self.server = await asyncio.start_server(self._serve, "127.0.0.1", 0)
        port: int = self.server.sockets[0].getsockname()[1]
        return port

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        up_reader, up_writer = await asyncio.open_connection("127.0.0.1", self.target_port)
        await asyncio.gather(
            self._pipe(reader, up_writer), self._pipe(up_reader, writer), return_exceptions=True
        )

    async def _pipe(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            while data := await reader.read(65536):
                await asyncio.sleep(self.delay)
                writer.write(data)
                await writer.drain()
        finally:
            writer.close()


class MeasuredSeat(RemoteSeat):
    """A remote seat that keeps each answer's time and the network's credit."""

    answers: ClassVar[list[tuple[float, float]]] = []

    async def play(self, turn: Turn) -> MoveAnswer:
        answer = await super().play(turn)
        self.answers.append((answer.seconds, answer.network_seconds))
        return answer


def test_a_slow_network_is_credited_within_its_cap(tmp_path: Path) -> None:
    token, _ = add_entrant(tmp_path, REMOTE.name)
    MeasuredSeat.answers = []

    async def scenario() -> GameRecord:
        async with arena(tmp_path) as (hub, url):
            port = int(url.rsplit(":", 1)[1].split("/")[0])
            proxy = DelayingProxy(port, DELAY)
            slow_url = url.replace(f":{port}/", f":{await proxy.start()}/")

            def make(
                spec: EngineSpec, factory: EngineFactory, info: PlayerInfo, log: TrafficLog | None
            ) -> Seat:
                if spec.name == REMOTE.name:
                    return MeasuredSeat(spec, hub, "g1", info, log)
                return EngineSeat(spec, factory, info, log)

            async with relaying(slow_url, token, Heard(), "--level", "1", "--seed", "1"):
                async with asyncio.timeout(120):
                    secret = deal_secret(b"k" * 32, 7, "0")
                    setup = game(60.0, "casual")  # short: 20 plies without progress draw
                    return (await play_game(setup, secret, make_seat=make)).record

    record = asyncio.run(scenario())
    assert record.reason.is_board_end, record.detail
    answers = MeasuredSeat.answers
    assert len(answers) > 5, (len(answers), record.end_ply)
    credited = [(seconds, credit) for seconds, credit in answers if credit > 0]
    assert len(credited) >= len(answers) // 2  # once the pings have measured the delay
    for seconds, credit in credited:
        assert credit <= LAG_SHARE * seconds + 1e-9 and credit <= LAG_CAP
        assert seconds >= 2 * DELAY  # the genmove and its answer were each held
    remote_ms = [ply.ms for ply in record.plies if ply.player == 0]
    late = remote_ms[len(remote_ms) // 2 :]
    assert all(ms >= (1 - LAG_SHARE) * 2 * DELAY * 1000 - 1 for ms in late)  # never all of it
