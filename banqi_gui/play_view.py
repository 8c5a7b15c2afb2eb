"""What the page is sent of a play session: the public state of its game.

No face-down piece is ever in it: the board shows them as ``X``, flips and moves onto
face-down pieces in the plies show only what was turned up, and the layout comes only
once the game is over.
"""

import time
from typing import TYPE_CHECKING, Any

from banqi_engine.game import Game
from banqi_engine.moves import move_from, move_to
from banqi_engine.notation import parse_ply
from banqi_engine.pieces import COLOUR_NAMES, SQUARE_LETTERS, UNDECIDED
from banqi_engine.squares import square_name
from referee.reasons import Reason
from referee.record import GameEnd, PlyRecord

from .board_view import Captured, add_taken, board_letters, legal_actions, no_captures, taken_piece

if TYPE_CHECKING:
    from .play_session import PlaySession


def session_view(session: "PlaySession") -> dict[str, Any]:
    """The public state of ``session``'s game."""
    loop = session.loop
    over = loop.end
    person_on_move = over is None and session.is_person(loop.mover)
    side = loop.game.side
    choice = session.engine_choice
    return {
        "id": session.id,
        "game_id": session.setup.game_id,
        "version": session.version,
        "mode": session.settings.mode,
        "engine": None if choice is None else {"id": choice.id, "label": choice.label},
        "rules": session.setup.rules.model_dump(),
        "players": [
            {
                "name": seat.info.name,
                "person": session.is_person(player),
                "colour": seat.info.colour,
            }
            for player, seat in enumerate(loop.seats)
        ],
        "first": session.setup.first,
        "board": board_letters(loop.game.position),
        "to_move": None if over is not None else loop.mover,
        "side": None if side == UNDECIDED or over is not None else COLOUR_NAMES[side],
        "plies": [{"player": ply.player, "move": ply.move} for ply in loop.plies],
        "last": _last(loop.plies),
        "legal": legal_actions(loop.game) if person_on_move else {},
        "captured": captured(loop.plies, loop.game),
        "clocks": _clocks(session),
        "move_time": session.setup.time_control.move_time,
        "thinking": over is None and not session.is_person(loop.mover),
        "hint": session.hint,
        "can_undo": person_on_move and any(session.is_person(p.player) for p in loop.plies),
        "no_progress": loop.game.position.no_progress,
        "over": None if over is None else _over(over),
        "layout": None
        if over is None
        else "".join(SQUARE_LETTERS[piece] for piece in loop.deal.layout),
    }


def captured(plies: list[PlyRecord], game: Game) -> Captured:
    """The pieces each side has lost, replayed from the plies."""
    replay = Game(game.rules, play_past_end=True)
    strips = no_captures()
    for ply in plies:
        parsed = parse_ply(ply.move)
        strips = add_taken(strips, taken_piece(replay.position, parsed, game.rules))
        replay.play_ply(parsed)
    return strips


def _last(plies: list[PlyRecord]) -> dict[str, str] | None:
    if not plies:
        return None
    parsed = parse_ply(plies[-1].move)
    return {"from": square_name(move_from(parsed.move)), "to": square_name(move_to(parsed.move))}


def _over(end: GameEnd) -> dict[str, Any]:
    return {
        "result": end.result,
        "reason": end.reason.value,
        "reason_words": "the loser resigned" if end.reason is Reason.RESIGN else end.reason.meaning,
        "winner": end.winner,
        "detail": end.detail,
    }


def _clocks(session: "PlaySession") -> dict[str, Any] | None:
    """Both clocks in ms, the one on move counting down; None when the game has no clock."""
    if session.settings.time is None:
        return None
    loop = session.loop
    remaining = [loop.clock.remaining[0], loop.clock.remaining[1]]
    running = None
    if not loop.over:
        running = loop.mover
        remaining[running] -= time.monotonic() - loop.turn_started
    return {"ms": [max(0, round(r * 1000)) for r in remaining], "running": running}
