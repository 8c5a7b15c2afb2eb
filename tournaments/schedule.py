"""The schedule: every pairing (round-robin or gauntlet), every round, one hidden layout
played twice.

Game ids are stable for a config: ``r<round>-<i>-<j>-<k>`` with engine indices (from 1)
``i < j`` and ``k`` 1 (engine i moves first) or 2 (engine j moves first); both
games of a pair share the deal ``r<round>-<i>-<j>``. A gauntlet's games have the ids its
pairings would have in a round-robin of the same engines, and a run that gains rounds
keeps the ids (and deals) of the rounds it had. Each player's clock runs by its engine's
own time control, if it has one.
"""

from collections.abc import Iterator
from functools import partial

from .config import TournamentConfig
from .pairs import ScheduledGame, paired_setups


def _game_id(deal: str, index: int) -> str:
    """Game ``index`` of the pair ``deal``: ``<deal>-1`` or ``<deal>-2``."""
    return f"{deal}-{index + 1}"


def schedule(config: TournamentConfig, seed: int) -> Iterator[ScheduledGame]:
    """All games in playing order: round by round, pairing by pairing, both seats in turn,
    each made as it is asked for (nothing is held but the pairings of one round)."""
    pairings = config.pairings()
    specs = [entry.spec() for entry in config.engines]
    own_time = [config.own_time(index) for index in range(len(config.engines))]
    for round_number in range(1, config.rounds + 1):
        for i, j in pairings:
            deal = f"r{round_number}-{i + 1}-{j + 1}"
            setups = paired_setups(
                config,
                (specs[i], specs[j]),
                seed,
                2,
                partial(_game_id, deal),
                deal,
                (own_time[i], own_time[j]),
            )
            yield from (ScheduledGame(setup, (i, j), deal) for setup in setups)
