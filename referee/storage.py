"""Where a run's files go: ``games/<game_id>.json``, ``.txt`` and ``.dctp.log`` (and
``.held`` beside a withheld record, ``referee.held``)."""

from pathlib import Path

from banqi_common.atomic import write_atomic
from banqi_common.write_errors import writing
from banqi_engine.position import Position

from .record import GameRecord, write_record
from .text_record import format_text_record

GAMES_DIR = "games"


def make_games_folder(out: Path) -> None:
    """Make the run folder's ``games/`` if it is missing (WriteError if it cannot be)."""
    with writing(f"create the folder {GAMES_DIR} in {out}"):
        (out / GAMES_DIR).mkdir(parents=True, exist_ok=True)


def record_path(out: Path, game_id: str) -> Path:
    """The JSON record of a game in a run folder."""
    return out / GAMES_DIR / f"{game_id}.json"


def traffic_path(out: Path, game_id: str) -> Path:
    """The DCTP transcript of a game in a run folder."""
    return out / GAMES_DIR / f"{game_id}.dctp.log"


def held_path(out: Path, game_id: str) -> Path:
    """What a game's withheld record leaves out, sealed (``referee.held``)."""
    return out / GAMES_DIR / f"{game_id}.held"


def save_game(out: Path, record: GameRecord, transcript: str | None = None) -> Path:
    """Write a complete record's DCTP transcript (if given) and platform text record, then
    the JSON record (the one that counts), each atomically; WriteError names the first
    that cannot be written."""
    path = record_path(out, record.game_id)
    if transcript is not None:
        write_atomic(traffic_path(out, record.game_id), transcript, f"transcript {record.game_id}")
    text = format_text_record(record, Position.opening())
    write_atomic(path.with_suffix(".txt"), text, f"text record {record.game_id}")
    write_record(record, path)
    return path
