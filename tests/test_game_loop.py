"""The one game loop over two seats: a person's seat (moves, time, take-backs, resigning),
an engine seat kept in step by DCTP, and a game ended from outside."""

import asyncio

import pytest
from in_process_engines import engine_spec, in_process

from banqi_engine.game import Game
from banqi_engine.notation import parse_ply
from banqi_engine.players import make_player
from banqi_engine.rules import PRESETS
from protocol.connection import EngineConnection
from protocol.line_protocol import TrafficLog
from protocol.messages import Command, CommandId, Reply
from referee.deals import deal_secret
from referee.engine_spec import EngineSpec
from referee.game_faults import Fault
from referee.game_loop import GameLoop, LoopOptions
from referee.game_setup import GameSetup
from referee.reasons import Reason
from referee.record import player_info
from referee.seats import EngineSeat, PersonSeat, PlayerSeat, Resignation, TakeBack
from referee.timecontrol import TimeControl

OLYMPIAD = PRESETS["olympiad"]
SECRET = deal_secret(b"k" * 32, 7, "0")
PERSON = EngineSpec(name="you", command=("(person)",))


class Recorded:
    """An engine connection that notes every command it is sent."""

    def __init__(self, inner: EngineConnection, sent: list[CommandId], hangs: bool) -> None:
        self._inner = inner
        self.sent = sent
        self.hangs = hangs
        self.name, self.pid, self.isolation = inner.name, inner.pid, inner.isolation
        self.quit_called = self.killed = False

    async def request(self, command: Command, timeout: float | None) -> Reply:
        self.sent.append(command.id)
        if self.hangs and command.id is CommandId.GENMOVE:
            await asyncio.sleep(3600)  # thinks for ever
        return await self._inner.request(command, timeout)

    async def quit(self) -> int | None:
        self.quit_called = True
        return await self._inner.quit()

    async def kill(self) -> None:
        self.killed = True
        await self._inner.kill()


class Factory:
    """The in-process engine factory, with each connection it made kept."""

    def __init__(self, hangs: bool = False) -> None:
        self.hangs = hangs
        self.made: list[Recorded] = []
        self.sent: list[CommandId] = []
        self._inner = in_process()

    async def __call__(self, spec: EngineSpec, log: TrafficLog | None) -> EngineConnection:
        connection = Recorded(await self._inner(spec, log), self.sent, self.hangs)
        self.made.append(connection)
        return connection


def setup(time: float = 60.0, first: int = 0) -> GameSetup:
    engine = engine_spec("level-1", "--level", "1", "--seed", "3")
    return GameSetup(
        game_id="g1",
        rules=OLYMPIAD,
        time_control=TimeControl(time=time),
        players=(PERSON, engine),
        first=first,
        seed=7,
        deal="0",
    )


def person_and_engine(time: float = 60.0) -> tuple[GameLoop, PersonSeat, EngineSeat, Factory]:
    game = setup(time)
    factory = Factory()
    person = PersonSeat(player_info(PERSON))
    engine = EngineSeat(game.players[1], factory, player_info(game.players[1]))
    return GameLoop(game, SECRET, (person, engine)), person, engine, factory


async def person_moves(loop: GameLoop, person: PersonSeat, count: int) -> None:
    """The person plays ``count`` legal moves (the first one it finds), each on its turn."""
    for _ in range(count):
        await asyncio.wait_for(person.on_move.wait(), 10)
        person.submit(loop.game.legal_moves()[0])
        await asyncio.sleep(0)
        while person.on_move.is_set():
            await asyncio.sleep(0.001)


def test_a_person_and_an_engine_play_and_the_record_names_both() -> None:
    async def main() -> None:
        loop, person, _, _ = person_and_engine()
        await loop.open()
        playing = asyncio.ensure_future(loop.play())
        await person_moves(loop, person, 3)
        await asyncio.wait_for(person.on_move.wait(), 10)
        person.submit(Resignation("resigned at the board"))
        await playing
        record = loop.record
        assert record is not None
        assert [ply.player for ply in record.plies] == [0, 1, 0, 1, 0, 1]
        assert (record.reason, record.winner, record.detail) == (
            Reason.RESIGN,
            1,
            "resigned at the board",
        )
        assert {p.colour for p in record.players} == {"red", "black"}
        assert record.players[1].engine_name is not None  # the engine was asked its name

    asyncio.run(main())


def test_a_person_who_does_not_move_in_time_loses_on_time() -> None:
    async def main() -> None:
        game = setup(time=0.2).model_copy(update={"players": (PERSON, PERSON)})
        seats = (PersonSeat(player_info(PERSON)), PersonSeat(player_info(PERSON)))
        record = await GameLoop(game, SECRET, seats).run()
        assert (record.reason, record.winner) == (Reason.TIME_FORFEIT, 1)
        assert record.plies == []

    asyncio.run(main())


def test_an_untimed_game_loses_nothing_on_time() -> None:
    async def main() -> None:
        game = setup(time=0.05).model_copy(update={"players": (PERSON, PERSON)})
        seats = (PersonSeat(player_info(PERSON)), PersonSeat(player_info(PERSON)))
        loop = GameLoop(game, SECRET, seats, options=LoopOptions(enforce_clock=False))
        await loop.open()
        playing = asyncio.ensure_future(loop.play())
        await asyncio.sleep(0.2)  # four times the clock
        assert not loop.over
        await asyncio.wait_for(seats[0].on_move.wait(), 10)
        seats[0].submit(Resignation("resigned"))
        await playing
        assert loop.record is not None and loop.record.reason is Reason.RESIGN

    asyncio.run(main())


def test_a_take_back_tells_the_same_engine_the_game_again() -> None:
    async def main() -> None:
        loop, person, _, factory = person_and_engine()
        await loop.open()
        playing = asyncio.ensure_future(loop.play())
        await person_moves(loop, person, 2)
        await asyncio.wait_for(person.on_move.wait(), 10)
        kept = loop.plies[:2]
        factory.sent.clear()
        person.submit(TakeBack(2))
        await asyncio.sleep(0)
        while person.on_move.is_set():
            await asyncio.sleep(0.001)
        await asyncio.wait_for(person.on_move.wait(), 10)
        assert loop.plies == kept  # the person is on move again after the two kept
        assert len(factory.made) == 1  # the same engine, told the game from its start
        assert factory.sent[0] is CommandId.RESET_BOARD
        echoes = [c for c in factory.sent if c in (CommandId.FLIP, CommandId.MOVE)]
        assert len(echoes) == 2
        replayed = Game(OLYMPIAD)
        for ply in kept:
            replayed.play_ply(parse_ply(ply.move))
        assert replayed.position == loop.game.position
        loop.stop(Fault(0, Reason.RESIGN, "resigned"))
        await playing

    asyncio.run(main())


def test_a_game_stopped_while_the_engine_thinks_closes_it_at_once() -> None:
    async def main() -> None:
        game = setup(first=1)
        factory = Factory(hangs=True)
        person = PersonSeat(player_info(PERSON))
        engine = EngineSeat(game.players[1], factory, player_info(game.players[1]))
        loop = GameLoop(game, SECRET, (person, engine))
        await loop.open()
        playing = asyncio.ensure_future(loop.play())
        while CommandId.GENMOVE not in factory.sent:
            await asyncio.sleep(0.001)
        loop.stop(Fault(0, Reason.RESIGN, "resigned at the board"))
        await asyncio.wait_for(playing, 10)
        assert loop.record is not None
        assert (loop.record.reason, loop.record.winner) == (Reason.RESIGN, 1)
        assert factory.made[0].killed and not factory.made[0].quit_called

    asyncio.run(main())


@pytest.mark.parametrize("seed", [1, 2])
def test_built_in_players_play_a_whole_game_on_the_board(seed: int) -> None:
    async def main() -> None:
        game = setup().model_copy(update={"players": (PERSON, PERSON)})
        players = [make_player(level, seed, OLYMPIAD) for level in (0, 1)]
        seats = (
            PlayerSeat(players[0], player_info(PERSON), None),
            PlayerSeat(players[1], player_info(PERSON), None),
        )
        record = await GameLoop(game, deal_secret(b"s" * 32, seed, "0"), seats).run()
        assert record.reason in (
            Reason.NO_LEGAL_MOVE,
            Reason.THREEFOLD_REPETITION,
            Reason.NO_PROGRESS,
        )
        assert [p.player for p in record.plies] == [i % 2 for i in range(len(record.plies))]

    asyncio.run(main())
