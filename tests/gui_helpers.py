"""What the GUI tests share: an app whose built-in engines play in-process, and helpers."""

from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Final

from banqi_engine.players import make_player
from banqi_engine.rules import PRESETS
from banqi_gui.app import GuiConfig
from banqi_gui.play_settings import PlayOptions, engine_choices
from banqi_gui.watch import RunFolders
from protocol.engine_loop import DctpEngine
from referee.engine_spec import EngineSpec
from referee.engine_start import EngineFactory, in_process_engines
from referee.live import LiveGame
from referee.record import PlyRecord
from referee.timecontrol import TimeControl

TOKEN: Final = "test-token-0123456789"
HEADERS: Final = {"X-Banqi-Token": TOKEN}


def builtin_loop(spec: EngineSpec) -> DctpEngine:
    """The engine loop a built-in level's command would run (told its rules by rule_set)."""
    args = list(spec.command)
    level = int(args[args.index("--level") + 1])
    rules = PRESETS["olympiad"]
    return DctpEngine(rules, make_player(level, 7, rules))


def in_process_builtins() -> EngineFactory:
    """The built-in levels played in this process (no engine process to start)."""
    return in_process_engines(builtin_loop)


def gui_config(
    tmp_path: Path, factory: EngineFactory | None = None, watched: list[Path] | None = None
) -> GuiConfig:
    """A server's config: records under ``tmp_path/out``, runs under ``tmp_path/runs``."""
    play = PlayOptions(engine_choices([]), factory or in_process_builtins(), tmp_path / "out")
    return GuiConfig(TOKEN, play, RunFolders(tmp_path / "runs", watched or []))


def hidden_squares(state: dict[str, Any]) -> list[int]:
    """Indexes of the squares a state shows face down."""
    return [index for index, letter in enumerate(state["board"]) if letter == "X"]


def live_game(
    game_id: str,
    moves: list[str],
    deal: str = "1",
    rules: str = "olympiad",
    *,
    names: tuple[str, str] = ("alpha", "beta"),
    ms: int = 5,
    updated_at: datetime = datetime(2026, 11, 30, 12, tzinfo=UTC),
) -> LiveGame:
    """A live view of a game after ``moves`` (red moved first), each ply ``ms`` long and
    each clock a millisecond lower a ply."""
    plies = [
        PlyRecord(player=i % 2, move=move, ms=ms, clocks_ms=(899_000 - i, 898_000 - i))
        for i, move in enumerate(moves)
    ]
    return LiveGame.model_validate(
        {
            "game_id": game_id,
            "deal": deal,
            "seed": 7,
            "rules": PRESETS[rules],
            "time_control": TimeControl(),
            "players": [{"name": names[0], "colour": "red"}, {"name": names[1], "colour": "black"}],
            "first": 0,
            "plies": plies,
            "updated_at": updated_at,
        }
    )
