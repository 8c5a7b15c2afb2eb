"""The options of the runner that say where a job's games are played: by the engines and at
the place a job chose (``tournaments.engine_places``), their live views written only where
that is safe."""

from typing import TypedDict

from referee.engine_start import EngineFactory

from .engine_places import Playing, live_views_safe
from .run_config import RunConfig
from .runner import PlayPlace


class PlacedOptions(TypedDict):
    """The ``RunOptions`` fields of where the games are played."""

    start_engine: EngineFactory
    play_on: PlayPlace | None
    live_views: bool


def placed_options(play: Playing, run: RunConfig) -> PlacedOptions:
    """Games played as ``play`` says, their live views written where ``run``'s sandbox and
    concurrency make it safe."""
    return PlacedOptions(
        start_engine=play.start_engine,
        play_on=play.place,
        live_views=live_views_safe(run.sandbox, run.concurrency),
    )
