"""Driving games in tests: random plies on a random layout, and a ply played as the referee
plays it (the piece the layout shows, the echo the engines are sent)."""

import random
from collections.abc import Sequence

from banqi_engine.game import Game
from banqi_engine.layout import random_layout
from banqi_engine.moves import Move
from banqi_engine.pieces import UNDECIDED, Colour, Piece
from banqi_engine.rules import RuleSet
from protocol.echo import echo_command
from protocol.messages import Command


def random_game(rng: random.Random, rules: RuleSet, plies: int) -> Game:
    """A game after ``plies`` random plies on a random layout (fewer if the game ends)."""
    layout = random_layout(rng)
    game = Game(rules)
    for _ in range(plies):
        if game.outcome is not None:
            break
        chosen = rng.choice(game.legal_moves())
        game.play(chosen, game.piece_shown(chosen, layout))
    return game


def play_shown(game: Game, move: Move, layout: Sequence[Piece]) -> tuple[Command, Colour]:
    """Play ``move``, turning up the piece ``layout`` has there: the echo of the ply, and
    the colour that moved (decided by the piece when colours were not yet)."""
    mover = game.side
    piece = game.piece_shown(move, layout)
    echo = echo_command(game.position, game.rules, move, piece)
    game.play(move, piece)
    if mover == UNDECIDED:
        assert piece is not None
        mover = piece // 7
    return echo, mover
