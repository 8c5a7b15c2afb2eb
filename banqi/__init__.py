"""banqi's Python API: what a script needs to play Chinese Dark Chess engines.

- :class:`Engine`, a DCTP engine driven from plain code (``Engine.popen(command)``, or
  ``Engine.builtin(level)`` for the project's own engine in this process), whose
  ``play`` returns a :class:`PlayResult`;
- :func:`play_game`, one refereed game between two engines, returning its
  :class:`GameRecord` (:func:`read_record` reads a saved one), and :func:`deal`, the
  hidden layout a seed deals;
- the game itself: :class:`Game`, :class:`Position` and :func:`parse_position`,
  :class:`RuleSet` and :func:`rule_set` (a preset name or a rule-set file);
- :class:`BanqiError`, the root of every error banqi raises on purpose, and the API's own
  errors in :mod:`banqi.errors`.

See ``docs/api.md``.
"""

from banqi_common.errors import BanqiError
from banqi_engine.game import Game
from banqi_engine.position import Position, parse_position
from banqi_engine.rules import RuleSet
from referee.record import GameRecord, read_record

from ._args import rule_set
from .engine import Engine
from .errors import ArgumentError
from .game import deal, play_game
from .result import PlayResult

__all__ = [
    "ArgumentError",
    "BanqiError",
    "Engine",
    "Game",
    "GameRecord",
    "PlayResult",
    "Position",
    "RuleSet",
    "deal",
    "parse_position",
    "play_game",
    "read_record",
    "rule_set",
]
