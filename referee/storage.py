"""Where a run's files go: ``games/<game_id>.json``, ``.txt`` and ``.dctp.log``."""

from pathlib import Path

from banqi_common.atomic import write_atomic
from banqi_engine.position import Position

from .record import GameRecord, write_record
from .text_record import format_text_record

GAMES_DIR = "games"


def record_path(out: Path, game_id: str) -> Path:
    """The JSON record of a game in a run folder."""
    return out / GAMES_DIR / f"{game_id}.json"


def traffic_path(out: Path, game_id: str) -> Path:
    """The DCTP transcript of a game in a run folder."""
    return out / GAMES_DIR / f"{game_id}.dctp.log"


def save_game(out: Path, record: GameRecord, transcript: str | None = None) -> Path:
    """Write a complete record's DCTP transcript (if given) and platform text record, then
    the JSON record (the one that counts), each atomically."""
    path = record_path(out, record.game_id)
    if transcript is not None:
        write_atomic(traffic_path(out, record.game_id), transcript)
    write_atomic(path.with_suffix(".txt"), format_text_record(record, Position.opening()))
    write_record(record, path)
    return path
