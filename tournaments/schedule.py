"""The schedule: every pairing (round-robin or gauntlet), every round, one hidden layout
played twice.

Game ids are stable for a config: ``r<round>-<i>-<j>-<k>`` with engine indices (from 1)
``i < j`` and ``k`` 1 (engine i moves first) or 2 (engine j moves first); both
games of a pair share the deal ``r<round>-<i>-<j>``. A gauntlet's games have the ids its
pairings would have in a round-robin of the same engines, and a run that gains rounds
keeps the ids (and deals) of the rounds it had. Each player's clock runs by its engine's
own time control, if it has one.
"""

from dataclasses import dataclass

from referee.game_setup import GameSetup, game_setup

from .config import TournamentConfig


@dataclass(frozen=True)
class ScheduledGame:
    """One game of the schedule and the engines (by index into the config) that play it."""

    setup: GameSetup
    engines: tuple[int, int]
    pair_id: str


def schedule(config: TournamentConfig, seed: int) -> list[ScheduledGame]:
    """All games in playing order: round by round, pairing by pairing, both seats in turn."""
    games = []
    pairings = config.pairings()
    specs = [entry.spec() for entry in config.engines]
    own_time = [config.own_time(index) for index in range(len(config.engines))]
    for round_number in range(1, config.rounds + 1):
        for i, j in pairings:
            deal = f"r{round_number}-{i + 1}-{j + 1}"
            for first in (0, 1):
                setup = game_setup(
                    game_id=f"{deal}-{first + 1}",
                    players=(specs[i], specs[j]),
                    first=first,
                    deal=deal,
                    seed=seed,
                    rules=config.rules,
                    time_control=config.time_control,
                    stall_timeout=config.stall_timeout,
                    own_time=(own_time[i], own_time[j]),
                )
                games.append(ScheduledGame(setup, (i, j), deal))
    return games
