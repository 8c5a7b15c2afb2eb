"""Run folders as the watch page sees them: games being played, finished games, standings.

A game being played is read from its live view (``referee.live``), which holds only what
its engines have been told; a finished game from its record (a withheld record shows no
flipped piece). The page names a run by its id from :meth:`RunFolders.listing`, never by
a path.
"""

import json
import re
from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Final

from banqi_common.errors import InputError
from banqi_engine.errors import RulesInputError
from banqi_engine.game import Game
from banqi_engine.moves import move_from, move_to
from banqi_engine.notation import parse_ply
from banqi_engine.rules import RuleSet
from banqi_engine.squares import square_name
from referee.live import LIVE_DIR, LiveGame, read_live
from referee.record import GameRecord, PlyRecord, read_record
from referee.shape_board import ShapeBoard
from referee.storage import GAMES_DIR
from referee.withheld import hide_move

from .board_view import add_taken, board_letters, no_captures, taken_piece
from .match_line import match_line
from .replay_view import ReplayView, replay_of_record

RUN_MARKERS: Final = (GAMES_DIR, LIVE_DIR, "tournament.json", "match.json")
"""A folder holding any of these is a run folder."""
GAME_ID: Final = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._+-]{0,199}$")
STANDING_FIELDS: Final = (
    "rank",
    "name",
    "games",
    "wins",
    "draws",
    "losses",
    "void",
    "points",
    "score_percent",
    "elo",
    "elo_error",
)


class WatchError(Exception):
    """A run or a game the page asked for that is not there."""


def is_run(folder: Path) -> bool:
    """Whether a folder looks like a match's or a tournament's run folder."""
    return folder.is_dir() and any((folder / marker).exists() for marker in RUN_MARKERS)


class RunFolders:
    """The run folders the server shows: those in the runs folder, and any watched one."""

    def __init__(self, root: Path, watched: Sequence[Path] = ()) -> None:
        self.root = root
        self.watched = [path.resolve() for path in watched]

    def _runs(self) -> dict[str, Path]:
        found: dict[str, Path] = {}
        folders = list(self.watched)
        if self.root.is_dir():
            folders += sorted(p.resolve() for p in self.root.iterdir() if is_run(p))
        for folder in folders:
            if folder in found.values():
                continue
            name = folder.name or "run"
            run_id, number = name, 2
            while run_id in found:
                run_id, number = f"{name}-{number}", number + 1
            found[run_id] = folder
        return found

    def listing(self) -> list[dict[str, Any]]:
        """Every run: its id (a name, never the folder's path) and how many games are live
        and finished."""
        runs = []
        for run_id, folder in self._runs().items():
            runs.append(
                {
                    "id": run_id,
                    "live": len(list((folder / LIVE_DIR).glob("*.json"))),
                    "finished": len(list((folder / GAMES_DIR).glob("*.json"))),
                }
            )
        return runs

    def folder(self, run_id: str) -> Path:
        """The folder of a run id; WatchError if there is no such run."""
        folder = self._runs().get(run_id)
        if folder is None:
            raise WatchError(f"no run {run_id!r} here")
        return folder


class RecordCache:
    """Records read once per change of their file (a run may hold thousands)."""

    def __init__(self) -> None:
        self._seen: dict[Path, tuple[int, int, GameRecord]] = {}

    def get(self, path: Path) -> GameRecord:
        """The record in ``path``; RecordError if it does not validate."""
        stat = path.stat()
        known = self._seen.get(path)
        if known is not None and known[:2] == (stat.st_mtime_ns, stat.st_size):
            return known[2]
        record = read_record(path)
        self._seen[path] = (stat.st_mtime_ns, stat.st_size, record)
        return record


def watch_view(folder: Path, cache: RecordCache) -> dict[str, Any]:
    """The games being played (by their live views), the finished games, the standings
    of a run folder, and a match's head-to-head line."""
    records = []
    for path in sorted((folder / GAMES_DIR).glob("*.json")):
        try:
            records.append(cache.get(path))
        except (InputError, OSError):
            continue
    done = {record.game_id for record in records}
    live = []
    for path in sorted((folder / LIVE_DIR).glob("*.json")):
        try:
            view = read_live(path)
        except InputError:
            continue  # being replaced, or not a live view
        if view.game_id not in done:
            live.append(live_board(view))
    return {
        "live": live,
        "finished": [game_summary(record) for record in records],
        "standings": _standings(folder),
        "head_to_head": match_line(folder, records),
    }


def game_summary(record: GameRecord) -> dict[str, Any]:
    """A finished game in a list: players, colours, result and reason, plies, withheld."""
    return {
        "game_id": record.game_id,
        "players": [p.name for p in record.players],
        "colours": [p.colour for p in record.players],
        "score": record.score,
        "result": record.result,
        "reason": record.reason.value,
        "plies": len(record.plies),
        "withheld": record.withheld,
    }


class BoardReplay:
    """A live game's board replayed ply by ply, kept between calls of ``live_board`` so
    that only the plies new since the last call are played."""

    def __init__(self, rules: RuleSet, *, withheld: bool) -> None:
        self.rules = rules
        self.withheld = withheld
        self._start()

    def _start(self) -> None:
        rules, withheld = self.rules, self.withheld
        self._played: list[str] = []
        """The moves played, as the live view has them."""
        self.moves: list[str] = []
        """The moves as shown (hidden while withheld)."""
        self.captured = no_captures()
        self.problem: str | None = None
        self._game = None if withheld else Game(rules, play_past_end=True)
        self._shape = ShapeBoard(rules) if withheld else None

    def advance(self, plies: Sequence[PlyRecord]) -> None:
        """Play the plies past those played; start again if ``plies`` do not begin with
        them."""
        played = self._played
        if len(plies) < len(played) or any(
            ply.move != move for ply, move in zip(plies, played, strict=False)
        ):
            self._start()
            played = self._played
        for number, ply in enumerate(plies[len(played) :], start=len(played) + 1):
            played.append(ply.move)
            move = hide_move(ply.move) if self.withheld else ply.move
            self.moves.append(move)
            if self.problem is None:
                self._play(number, move)

    def _play(self, number: int, move: str) -> None:
        try:
            parsed = parse_ply(move)
            if self._shape is not None:
                self._shape.play(parsed)
            elif self._game is not None:
                taken = taken_piece(self._game.position, parsed, self.rules)
                self.captured = add_taken(self.captured, taken)
                self._game.play_ply(parsed)
        except RulesInputError as error:
            self.problem = f"ply {number} ({move}) does not replay: {error}"

    def letters(self) -> str:
        """The 32 square letters of the board, a1 first."""
        if self._shape is not None:
            return "".join(self._shape.squares)
        assert self._game is not None
        return board_letters(self._game.position)


def live_board(
    view: LiveGame, *, withheld: bool = False, replay: BoardReplay | None = None
) -> dict[str, Any]:
    """The board of a live game after its plies (flips and moves onto face-down pieces
    with the pieces they turned up, as the engines were told). ``withheld``: while another
    game of its deal has not ended, the pieces turned up are the other game's face-down
    pieces too, so they show as a withheld record shows them (``?``, flips as ``b6(?)``).
    ``replay``: the caller's replay of this game (made with the same ``withheld``), kept
    between calls so that only the plies new since the last call are played."""
    if replay is None:
        replay = BoardReplay(view.rules, withheld=withheld)
    elif replay.withheld != withheld or replay.rules != view.rules:
        raise ValueError("the replay is of another game's board")
    replay.advance(view.plies)
    last = None
    if replay.moves:
        parsed = parse_ply(replay.moves[-1])
        last = {
            "from": square_name(move_from(parsed.move)),
            "to": square_name(move_to(parsed.move)),
        }
    clocks = view.plies[-1].clocks_ms if view.plies else (view.time_control.time_ms,) * 2
    age = (datetime.now(UTC) - view.updated_at).total_seconds()
    return {
        "game_id": view.game_id,
        "players": [p.name for p in view.players],
        "colours": [p.colour for p in view.players],
        "rules": view.rules.name,
        "board": replay.letters(),
        "plies": list(replay.moves),
        "to_move": view.first if len(view.plies) % 2 == 0 else 1 - view.first,
        "last": last,
        "captured": replay.captured,
        "clocks_ms": list(clocks),
        "seconds_since_update": round(age, 1),
        "withheld": withheld,
        "problem": replay.problem,
    }


def _standings(folder: Path) -> list[dict[str, Any]]:
    """The rows of ``standings.json``, the fields the page shows (none while absent)."""
    try:
        rows = json.loads((folder / "standings.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return []
    if not isinstance(rows, list):
        return []
    return [{key: row.get(key) for key in STANDING_FIELDS} for row in rows if isinstance(row, dict)]


def record_replay(folder: Path, game_id: str, cache: RecordCache) -> ReplayView:
    """The replay of a finished game of a run; WatchError if it has no record, RecordError
    if its record does not validate."""
    path = folder / GAMES_DIR / f"{game_id}.json"
    if not GAME_ID.match(game_id) or not path.is_file():
        raise WatchError(f"no record of game {game_id!r} in this run")
    return replay_of_record(cache.get(path))
