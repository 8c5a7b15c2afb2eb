"""One referee game between two DCTP engines: the game loop over two engine seats, with
the public live view and the DCTP transcript.

The referee speaks to each engine as the platform does (:mod:`protocol.session`) and the
loop judges every ply (:mod:`referee.game_loop`). Engines come from an
:data:`~referee.engine_start.EngineFactory` (processes unless a caller says otherwise).
"""

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from protocol.line_protocol import TrafficLog

from .deals import Deal
from .engine_spec import EngineSpec
from .engine_start import EngineFactory, start_engine_process
from .game_loop import GameLoop
from .game_setup import GameSetup
from .live import live_view
from .live_writer import LiveViewWriter
from .record import GameRecord, PlayerInfo, player_info
from .seats import EngineSeat, Seat
from .transcript import Transcript


@dataclass(frozen=True)
class PlayedGame:
    """A finished game: its complete record, and its DCTP transcript if it was kept."""

    record: GameRecord
    transcript: str | None


SeatMaker = Callable[[EngineSpec, EngineFactory, PlayerInfo, TrafficLog | None], Seat]
"""Makes the seat of one player of a game: its spec, the factory of local engines, its
record entry and its traffic log (``EngineSeat`` itself; an arena's remote seats)."""


def engine_seats(
    setup: GameSetup,
    start_engine: EngineFactory,
    traffic: Transcript | None,
    make_seat: SeatMaker = EngineSeat,
) -> tuple[Seat, Seat]:
    """The two seats of ``setup``, made by ``make_seat``, each logging to ``traffic`` if it
    is kept."""
    seats = [
        make_seat(
            spec,
            start_engine,
            player_info(spec, own),
            traffic.logger(spec.name) if traffic is not None else None,
        )
        for spec, own in zip(setup.players, setup.own_time, strict=True)
    ]
    return seats[0], seats[1]


async def play_game(
    setup: GameSetup,
    deal: Deal | str,
    *,
    keep_traffic: bool = False,
    start_engine: EngineFactory = start_engine_process,
    live_path: Path | None = None,
    make_seat: SeatMaker = EngineSeat,
) -> PlayedGame:
    """Play one game on ``deal`` (a Deal, or the secret it is the shuffle of), keeping its
    DCTP transcript if asked; its seats made by ``make_seat`` (engine seats by default).

    Nothing is written but the live view at ``live_path`` while the game runs (if given;
    written off the event loop, the newest view first, by :mod:`referee.live_writer`;
    given up, with one warning, at the first write that fails; removed at its end): the
    caller saves the record and the transcript (see ``referee.deal_records``); a game cut
    short keeps neither.
    """
    traffic = Transcript() if keep_traffic else None
    seats = engine_seats(setup, start_engine, traffic, make_seat)
    loop: GameLoop
    live = LiveViewWriter(live_path) if live_path is not None else None

    def publish() -> None:
        if live is not None and loop.record is None:
            # What the view is made of as it is now (colours and a take-back change it):
            # the view is built and written in a worker thread.
            infos = [seat.info.model_copy() for seat in seats]
            plies = tuple(loop.plies)
            live.show(lambda: live_view(setup, infos, plies))

    loop = GameLoop(setup, deal, seats, on_change=publish)
    try:
        record = await loop.run()
    finally:
        if live is not None:
            await live.end()
    return PlayedGame(record, traffic.text() if traffic is not None else None)
