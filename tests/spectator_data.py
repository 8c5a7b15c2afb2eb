"""Games for the pages that show games being played and played: a short match played
in-process, and live views cut from its records (real plies, so that every board replays)."""

from datetime import UTC, datetime
from pathlib import Path
from typing import Final

from gui_helpers import builtin_loop
from referee_fakes import play

from referee.engine_spec import EngineSpec
from referee.engine_start import in_process_engines
from referee.live import LiveGame, LivePlayer, live_file, write_live
from referee.record import GameRecord
from tournaments.config import builtin_engine_command

LONG_NAME: Final = "a-rather-long-engine-name-that-goes-on-v2"
"""A name that does not fit a phone's bar on one line."""


def play_match(
    out: Path, games: int = 2, names: tuple[str, str] = (LONG_NAME, "random")
) -> list[GameRecord]:
    """A match of level 1 (``names[0]``) against level 0 under the casual rules, played in
    this process; its records, standings and reports are in ``out``."""
    engines = tuple(
        EngineSpec(name=name, command=builtin_engine_command("--level", level))
        for name, level in zip(names, ("1", "0"), strict=True)
    )
    return play(out, engines, games=games, start_engine=in_process_engines(builtin_loop))


def live_view(record: GameRecord, game_id: str, plies: int) -> LiveGame:
    """A live view of ``record``'s game after its first ``plies`` plies, updated now."""
    return LiveGame(
        game_id=game_id,
        deal=record.deal,
        seed=record.seed,
        rules=record.rules,
        time_control=record.time_control,
        players=(
            LivePlayer(name=record.players[0].name, colour=record.players[0].colour),
            LivePlayer(name=record.players[1].name, colour=record.players[1].colour),
        ),
        first=record.first,
        plies=record.plies[:plies],
        updated_at=datetime.now(UTC),
    )


def write_live_games(out: Path, records: list[GameRecord], count: int) -> list[str]:
    """``count`` live views in ``out`` cut from the records (a few plies more each); their
    game ids."""
    ids = []
    for number in range(count):
        record = records[number % len(records)]
        view = live_view(record, f"live{number:02d}", min(len(record.plies), 12 + 3 * number))
        write_live(live_file(out, view.game_id), view)
        ids.append(view.game_id)
    return ids
