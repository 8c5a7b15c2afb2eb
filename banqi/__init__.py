"""banqi's Python API: what a script needs to play Chinese Dark Chess engines, with no
DCTP and no asyncio to learn (see ``docs/api.md``). It re-exports the game itself
(``Game``, ``Position``, ``parse_position``, ``RuleSet``, ``rule_set``), the record
(``GameRecord``, ``read_record``), the error root ``BanqiError`` and ``__version__``.

- ``simple_engine``: ``Engine``, a DCTP engine driven from plain code (``Engine.popen(command)``,
  or ``Engine.builtin(level)`` in this process), whose ``play`` returns a ``PlayResult``.
- ``result``: ``PlayResult``, what an engine answered to one ``genmove``.
- ``refereed_game``: ``play_game``, one refereed game between two engines, returning its record;
  ``deal``, the hidden layout a seed deals.
- ``refereed_match``: ``run_match``, a whole match between two engines in a run folder,
  resumable, as ``banqi match`` plays it.
- ``errors``: the API's own errors, each under ``BanqiError``.
- ``_args``: the API's arguments checked and turned into the project's types.
- ``_loop``: an asyncio event loop in a daemon thread of its own, for the blocking API.
- ``_telling``: telling an engine the game to move in, as a platform does.
"""

from banqi_common.errors import BanqiError
from banqi_common.version import VERSION as __version__
from banqi_engine.game import Game
from banqi_engine.position import Position, parse_position
from banqi_engine.rules import RuleSet
from referee.record import GameRecord, read_record

from ._args import rule_set
from .errors import ArgumentError
from .refereed_game import deal, play_game
from .refereed_match import run_match
from .result import PlayResult
from .simple_engine import Engine

__all__ = [
    "ArgumentError",
    "BanqiError",
    "Engine",
    "Game",
    "GameRecord",
    "PlayResult",
    "Position",
    "RuleSet",
    "__version__",
    "deal",
    "parse_position",
    "play_game",
    "read_record",
    "rule_set",
    "run_match",
]
