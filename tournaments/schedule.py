"""The round-robin schedule: every pair, every round, one hidden layout played twice.

Game ids are stable for a config: ``r<round>-<i>-<j>-<k>`` with engine indices
``i < j`` and ``k`` 1 (engine i moves first) or 2 (engine j moves first); both
games of a pair share the deal ``r<round>-<i>-<j>``.
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
    """All games in playing order: round by round, pair by pair, both seats in turn."""
    games = []
    count = len(config.engines)
    for round_number in range(1, config.rounds + 1):
        for i in range(count):
            for j in range(i + 1, count):
                deal = f"r{round_number}-{i + 1}-{j + 1}"
                for first in (0, 1):
                    setup = game_setup(
                        game_id=f"{deal}-{first + 1}",
                        players=(config.engines[i], config.engines[j]),
                        first=first,
                        deal=deal,
                        seed=seed,
                        rules=config.rules,
                        time_control=config.time_control,
                        stall_timeout=config.stall_timeout,
                    )
                    games.append(ScheduledGame(setup, (i, j), deal))
    return games
