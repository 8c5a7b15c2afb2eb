"""``run_match``: a whole match between two engines from plain code, as ``banqi match``
runs it: pairs of games on one hidden layout with the seats swapped, records saved in a
run folder as each game ends, the same call again resuming it."""

import os
import warnings
from collections.abc import Callable
from pathlib import Path

from pydantic import ValidationError

from referee.deals import new_seed
from referee.record import GameRecord
from referee.sandbox import INSTALL_HINT, Isolation, SandboxMode
from tournaments.engine_places import Notices
from tournaments.match_config import MatchConfig
from tournaments.match_job import MatchEvents, MatchJob, MatchOutcome, MatchStart, run_match_job
from tournaments.match_score import MatchScore
from tournaments.run_access import RunAccess

from . import _args
from .errors import ArgumentError
from .refereed_game import DEFAULT_GAME_TIME


def run_match(
    engine_a: _args.EngineLike,
    engine_b: _args.EngineLike,
    *,
    out: str | os.PathLike[str],
    games: int = 2,
    rules: _args.RulesLike = "olympiad",
    time: float = DEFAULT_GAME_TIME,
    increment: float = 0.0,
    move_time: float | None = None,
    seed: int | None = None,
    first_to: float | None = None,
    concurrency: int = 1,
    sandbox: str = SandboxMode.AUTO.value,
    key_file: str | os.PathLike[str] | None = None,
    on_game: Callable[[GameRecord], None] | None = None,
) -> MatchOutcome:
    """Play the games of a match between ``engine_a`` and ``engine_b`` that the run folder
    ``out`` does not hold yet, and return every record (and, with ``first_to`` points, how
    the match to that score ended).

    Engines are given as to :func:`~banqi.play_game`. The deals come from the referee key
    (``key_file``, else ``$BANQI_REFEREE_KEY`` or ``~/.config/banqi/referee.key``, made if
    missing), as ``banqi match`` deals them; a resumed match keeps the seed it started
    with unless ``seed`` is given (and a different one is refused). ``on_game`` is called
    with each record as its game ends. InputError for what cannot be used (a folder that
    holds another run, a missing engine), ArgumentError for bad arguments.
    """
    engines = _args.distinct((_args.engine_spec(engine_a), _args.engine_spec(engine_b)))
    chosen, clock, mode = (
        _args.rule_set(rules),
        _args.time_control(time, increment, move_time),
        _args.sandbox_mode(sandbox),
    )
    try:
        config = MatchConfig(
            engines=engines,
            games=games,
            rules=chosen,
            time_control=clock,
            seed=new_seed() if seed is None else seed,
            out=Path(out),
            sandbox=mode,
            concurrency=concurrency,
        )
        score = None if first_to is None else MatchScore(first_to=first_to)
    except ValidationError as error:
        raise ArgumentError(_args.field_words(error, "match")) from None
    access = RunAccess(key_file=None if key_file is None else Path(key_file))
    job = MatchJob(config=config, seed_given=seed is not None, score=score, access=access)
    return run_match_job(job, _events(on_game))


def _events(on_game: Callable[[GameRecord], None] | None) -> MatchEvents:
    def isolation(found: Isolation, mode: SandboxMode) -> None:
        if found is Isolation.NONE and mode is SandboxMode.AUTO:
            warnings.warn(
                f"no sandbox works on this machine, engines are NOT isolated; {INSTALL_HINT}",
                RuntimeWarning,
                stacklevel=4,
            )

    def started(start: MatchStart) -> None:
        """A script learns the match from its outcome."""

    def engine_out(name: str, remaining: int | None, last: str) -> None:
        warnings.warn(f"{name} is out: its games are forfeited ({last})", RuntimeWarning, 2)

    return MatchEvents(
        Notices(isolation, lambda address, mode: None),
        started,
        on_game or (lambda record: None),
        engine_out,
    )
