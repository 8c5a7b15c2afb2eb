"""In-process matches between two players, for strength measurements.

Games come in pairs on one shuffled hidden layout: player A moves first in the
first game of a pair and player B in the second, so luck of the layout and of
moving first cancels out over a pair. Everything is seeded: the layouts by the
match seed, each player by a seed derived from it.
"""

import asyncio
import random
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Final

from banqi_engine.eval_params import DEFAULT_PARAMS, EvalParams
from banqi_engine.game import Game
from banqi_engine.layout import random_layout
from banqi_engine.pieces import Colour, Piece, opponent
from banqi_engine.players import Player, make_player
from banqi_engine.rules import RuleSet
from banqi_engine.search_config import SearchConfig
from banqi_engine.search_player import SearchPlayer
from referee.deals import Deal
from referee.engine_spec import EngineSpec
from referee.game_loop import GameLoop, LoopOptions
from referee.game_setup import GameSetup
from referee.record import player_info
from referee.seats import PlayerSeat
from referee.timecontrol import TimeControl

IN_PROCESS: Final = ("(in-process)",)
"""The command an in-process player has in a record."""
UNTIMED: Final = TimeControl(time=86_400)
"""The clock of a self-play game: each move has its budget instead, and no game is lost
on time."""

PlayerFactory = Callable[[int], Player]
"""Makes a player from a seed."""


@dataclass(frozen=True, slots=True)
class SelfPlayGame:
    """One finished game of a match, seen from player A."""

    index: int
    pair: int
    a_first: bool
    """Whether player A made the first move."""
    a_colour: Colour
    winner: str | None
    """'A', 'B', or None for a draw."""
    reason: str
    description: str
    plies: int

    @property
    def score(self) -> float:
        """Player A's points: 1 for a win, 0.5 for a draw, 0 for a loss."""
        return {"A": 1.0, "B": 0.0, None: 0.5}[self.winner]


@dataclass(frozen=True, slots=True)
class MatchSummary:
    """Wins, draws and losses of player A."""

    wins: int
    draws: int
    losses: int

    @property
    def games(self) -> int:
        """Games played."""
        return self.wins + self.draws + self.losses

    @property
    def score(self) -> float:
        """Player A's points."""
        return self.wins + 0.5 * self.draws

    @property
    def fraction(self) -> float:
        """Player A's points per game (0 without games)."""
        return self.score / self.games if self.games else 0.0


def play_game(
    first: Player, second: Player, rules: RuleSet, layout: list[Piece], seconds: float | None
) -> Game:
    """Play one game to its end with the referee's game loop; ``layout`` gives the piece
    under each square, ``seconds`` each move's budget. The game, with its plies."""
    players = (first, second)
    specs = tuple(EngineSpec(name=name, command=IN_PROCESS) for name in ("first", "second"))
    setup = GameSetup(
        game_id="selfplay",
        rules=rules,
        time_control=UNTIMED,
        players=(specs[0], specs[1]),
        first=0,
        seed=0,
        deal="0",
    )
    seats = tuple(
        PlayerSeat(player, player_info(spec), seconds)
        for player, spec in zip(players, specs, strict=True)
    )
    options = LoopOptions(enforce_clock=False, keep_record=False)
    loop = GameLoop(setup, Deal(list(layout)), (seats[0], seats[1]), options=options)
    asyncio.run(_played(loop))
    return loop.game


async def _played(loop: GameLoop) -> None:
    await loop.open()
    await loop.play()


def level_factory(level: int, rules: RuleSet) -> PlayerFactory:
    """A factory of the built-in player of a level."""
    return lambda seed: make_player(level, seed, rules)


def search_factory(
    rules: RuleSet, config: SearchConfig, params: EvalParams = DEFAULT_PARAMS
) -> PlayerFactory:
    """A factory of full-search players (level 3) with the search features of ``config``."""
    return lambda seed: SearchPlayer(rules, seed, params=params, config=config)


def iter_match(
    make_a: PlayerFactory,
    make_b: PlayerFactory,
    games: int,
    rules: RuleSet,
    *,
    seconds: float | None,
    seed: int = 0,
) -> Iterator[SelfPlayGame]:
    """Play ``games`` games between A and B, yielding each result as it ends."""
    rng = random.Random(seed)
    layout: list[Piece] = []
    for index in range(games):
        pair, second_of_pair = divmod(index, 2)
        if not second_of_pair:
            layout = random_layout(rng)
        player_seed = seed * 1_000_003 + pair
        a = make_a(player_seed)
        b = make_b(player_seed + 500_000)
        a_first = not second_of_pair
        game = (
            play_game(a, b, rules, layout, seconds)
            if a_first
            else play_game(b, a, rules, layout, seconds)
        )
        outcome = game.outcome
        assert outcome is not None and game.first_colour is not None
        a_colour = game.first_colour if a_first else opponent(game.first_colour)
        winner = None
        if outcome.winner is not None:
            winner = "A" if outcome.winner == a_colour else "B"
        yield SelfPlayGame(
            index,
            pair,
            a_first,
            a_colour,
            winner,
            outcome.reason.value,
            outcome.description,
            len(game.plies),
        )


def summarise(results: list[SelfPlayGame]) -> MatchSummary:
    """Player A's wins, draws and losses."""
    wins = sum(1 for r in results if r.winner == "A")
    losses = sum(1 for r in results if r.winner == "B")
    return MatchSummary(wins, len(results) - wins - losses, losses)
