"""``play_game``: one game between two engines, refereed as ``banqi match`` plays it, from
plain code; and ``deal``, the hidden layout a seed deals.

The layout comes from the seed, as the referee derives a run's layouts from its key and
seed (``referee.deals``): the deal secret is HMAC-SHA256 of ``key`` and the seed, and the
layout is its shuffle. Without a ``key`` the API's public one is used, so a seed gives
the same layout everywhere, which anyone (an engine too) can work out from the seed:
for a fair match use ``banqi match``, whose key is private.
"""

import os
import warnings
from pathlib import Path
from typing import Final

from pydantic import ValidationError

from banqi_engine.pieces import Piece
from referee.deals import deal_secret, layout_from_secret, new_seed
from referee.engine_start import EngineFactory, process_engines
from referee.game_runner import PlayedGame
from referee.game_runner import play_game as referee_play_game
from referee.game_setup import DEFAULT_STALL_TIMEOUT, GameSetup
from referee.record import GameRecord
from referee.sandbox import INSTALL_HINT, Isolation, SandboxMode
from referee.storage import record_path, save_game
from referee.timecontrol import TimeControl
from tournaments.run_access import RUNS_FOLDER, RunAccess

from ._args import (
    EngineLike,
    RulesLike,
    distinct,
    engine_spec,
    field_words,
    rule_set,
    sandbox_mode,
    time_control,
)
from ._loop import BackgroundLoop
from .errors import ArgumentError

PUBLIC_KEY: Final = b"banqi.play_game: the public deal key of the Python API"
"""The key the API deals from when it is given none: public, so that a seed's layout is
the same everywhere."""
MIN_KEY_BYTES: Final = 16
"""The shortest key ``play_game`` and ``deal`` take (as a referee key file)."""
DEAL: Final = "1"
"""The deal's name in a game's record (the first deal of a one-game run)."""
DEFAULT_GAME_TIME: Final = 60.0
"""Seconds on each player's clock when ``play_game`` is given no ``time``."""


def deal(seed: int, *, key: bytes | None = None) -> list[Piece]:
    """The hidden layout (square by square, a1 first) that ``play_game`` deals for ``seed``
    (and ``key``); ``Game.piece_shown(move, layout)`` says what a flip turns up."""
    return layout_from_secret(_secret(seed, key))


def _secret(seed: int, key: bytes | None) -> str:
    if isinstance(seed, bool) or not isinstance(seed, int):
        raise ArgumentError(f"seed must be an integer, not {seed!r}")
    if key is not None and (not isinstance(key, bytes) or len(key) < MIN_KEY_BYTES):
        what = f"{len(key)} bytes" if isinstance(key, bytes) else type(key).__name__
        raise ArgumentError(f"key must be {MIN_KEY_BYTES} bytes or more, not {what}")
    return deal_secret(PUBLIC_KEY if key is None else key, seed, DEAL)


def play_game(
    engine_a: EngineLike,
    engine_b: EngineLike,
    *,
    rules: RulesLike = "olympiad",
    time: float = DEFAULT_GAME_TIME,
    increment: float = 0.0,
    move_time: float | None = None,
    seed: int | None = None,
    first: int = 0,
    key: bytes | None = None,
    sandbox: str = SandboxMode.AUTO.value,
    stall_timeout: float = DEFAULT_STALL_TIMEOUT,
    game_id: str | None = None,
    out: str | os.PathLike[str] | None = None,
    log_traffic: bool = False,
) -> GameRecord:
    """Play one game between ``engine_a`` (player 0) and ``engine_b`` (player 1) and return
    its complete record; ``first`` is the player who moves first.

    Engines are commands (``["banqi-engine", "--level", "1"]``), program paths or
    ``referee.engine_spec.EngineSpec``; they are started as the referee starts them, in a
    sandbox when one works (``sandbox``: ``auto``, ``required`` or ``off``). Each has
    ``time`` seconds plus ``increment`` a move, and at most ``move_time`` for one move.
    The layout is the one ``deal(seed, key=key)`` gives (a fresh seed when None; the record
    has it). With ``out`` (a folder), the record is saved there as ``banqi match`` saves
    it: ``games/<game_id>.json`` and ``.txt`` (and the DCTP traffic with ``log_traffic``);
    ArgumentError, before any game, if that record exists already.
    """
    chosen = new_seed() if seed is None else seed
    secret = _secret(chosen, key)
    clock = time_control(time, increment, move_time)
    setup = _setup(engine_a, engine_b, rules, clock, chosen, first, stall_timeout, game_id)
    folder = None if out is None else Path(out)
    if folder is not None and record_path(folder, setup.game_id).exists():
        raise ArgumentError(
            f"out: {record_path(folder, setup.game_id)} exists already; a record is never "
            "overwritten: give another game_id or another out folder"
        )
    factory = _engines(sandbox, folder)
    loop = BackgroundLoop("banqi play_game")
    try:
        played: PlayedGame = loop.run(
            referee_play_game(setup, secret, start_engine=factory, keep_traffic=log_traffic),
            None,
        )
    finally:
        loop.stop()
    if folder is not None:
        save_game(folder, played.record, played.transcript)
    return played.record


def _setup(
    engine_a: EngineLike,
    engine_b: EngineLike,
    rules: RulesLike,
    time_control: TimeControl,
    seed: int,
    first: int,
    stall_timeout: float,
    game_id: str | None,
) -> GameSetup:
    players = distinct((engine_spec(engine_a), engine_spec(engine_b)))
    try:
        return GameSetup(
            game_id=game_id or f"game-{seed}",
            players=players,
            first=first,
            deal=DEAL,
            seed=seed,
            rules=rule_set(rules),
            time_control=time_control,
            stall_timeout=stall_timeout,
        )
    except ValidationError as error:
        raise ArgumentError(field_words(error, "game")) from None


def _engines(sandbox: str, out: Path | None) -> EngineFactory:
    """How the engines are started: sandboxed as the referee does (``process_engines``),
    out of their sight what a run's engines may not see (``RunAccess.hidden``: the referee
    key files, ``out`` and the runs folder)."""
    mode = sandbox_mode(sandbox)
    factory, isolation = process_engines(mode, RunAccess().hidden(out or RUNS_FOLDER))
    if isolation is Isolation.NONE and mode is SandboxMode.AUTO:
        warnings.warn(
            f"no sandbox works on this machine, engines are NOT isolated; {INSTALL_HINT}",
            RuntimeWarning,
            stacklevel=3,
        )
    return factory
