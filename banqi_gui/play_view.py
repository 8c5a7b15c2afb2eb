"""What the page is sent of a play session: the public state of its game.

No face-down piece is ever in it: the board shows them as ``X``, flips and moves onto
face-down pieces in the plies show only what was turned up, and the layout comes only
once the game is over. Each ply says what it was (the piece that moved or was flipped, the
piece it took), so that the page can say every ply in words, however many arrive at once.
"""

import time
from dataclasses import dataclass
from typing import Any, Final

from typing_extensions import TypedDict  # pydantic needs it before Python 3.12

from banqi_engine.game import Game
from banqi_engine.moves import move_from, move_to
from banqi_engine.notation import parse_ply
from banqi_engine.pieces import COLOUR_NAMES, PIECE_LETTERS, SQUARE_LETTERS, UNDECIDED, is_piece
from banqi_engine.rules import RuleSet
from banqi_engine.squares import square_name
from referee.game_loop import GameLoop
from referee.reasons import Reason
from referee.record import GameEnd, PlyRecord

from .board_view import Captured, add_taken, board_letters, legal_actions, no_captures, taken_piece
from .play_settings import EngineChoice, PlaySettings


@dataclass(frozen=True)
class SessionFacts:
    """What the view shows of a play session beside its game."""

    session_id: str
    version: int
    settings: PlaySettings
    engine: EngineChoice | None
    persons: frozenset[int]
    """The players a person plays."""
    hint: str | None


NO_UNDO_PAST_A_FLIP: Final = (
    "undo stops at the last flip: taking a flip back would show what lies under it"
)


def undo_keep(plies: list[PlyRecord], persons: frozenset[int]) -> int | None:
    """How many plies an undo keeps (the person's last ply and the replies after it taken
    back), or None when there is nothing to take back or when taking it back would take
    back a flip (or a move onto a face-down piece): a piece once turned up stays up, so an
    undo never lets a person learn what the face-down squares hide."""
    keep = len(plies)
    while keep and plies[keep - 1].player not in persons:
        keep -= 1
    if keep == 0:
        return None
    if any(parse_ply(ply.move).piece is not None for ply in plies[keep - 1 :]):
        return None
    return keep - 1


def session_view(loop: GameLoop, facts: SessionFacts) -> dict[str, Any]:
    """The public state of a play session's game."""
    over = loop.end
    person_on_move = over is None and loop.mover in facts.persons
    plies, strips = replayed(loop.plies, loop.setup.rules)
    side = loop.game.side
    choice = facts.engine
    return {
        "id": facts.session_id,
        "game_id": loop.setup.game_id,
        "version": facts.version,
        "mode": facts.settings.mode,
        "engine": None if choice is None else {"id": choice.id, "label": choice.label},
        "rules": loop.setup.rules.model_dump(),
        "players": [
            {
                "name": seat.info.name,
                "person": player in facts.persons,
                "colour": seat.info.colour,
                "move_time": loop.setup.time_control_of(player).move_time,
            }
            for player, seat in enumerate(loop.seats)
        ],
        "first": loop.setup.first,
        "board": board_letters(loop.game.position),
        "to_move": None if over is not None else loop.mover,
        "side": None if side == UNDECIDED or over is not None else COLOUR_NAMES[side],
        "plies": plies,
        "last": _last(loop.plies),
        "legal": legal_actions(loop.game) if person_on_move else {},
        "captured": strips,
        "clocks": _clocks(loop, facts.settings),
        "move_time": loop.setup.time_control.move_time,
        "thinking": over is None and loop.mover not in facts.persons,
        "turn_ms": None
        if over is not None
        else round(1000 * (time.monotonic() - loop.turn_started)),
        "hint": facts.hint,
        "can_undo": person_on_move and undo_keep(loop.plies, facts.persons) is not None,
        "no_progress": loop.game.position.no_progress,
        "over": None if over is None else _over(over, facts.persons),
        "layout": None
        if over is None
        else "".join(SQUARE_LETTERS[piece] for piece in loop.deal.layout),
    }


class PlyView(TypedDict):
    """A ply as the page is sent it: who played it, its text, and what it was."""

    player: int
    move: str
    piece: str | None
    """The letter of the piece that moved, or of the piece a flip turned up."""
    took: str | None
    """The letter of the piece it captured, if it captured one (also one a move onto a
    face-down piece turned up and took)."""


def replayed(plies: list[PlyRecord], rules: RuleSet) -> tuple[list[PlyView], Captured]:
    """Each ply with what it was, and the pieces each side has lost, replayed from the
    plies."""
    replay = Game(rules, play_past_end=True)
    strips = no_captures()
    views: list[PlyView] = []
    for ply in plies:
        parsed = parse_ply(ply.move)
        took = taken_piece(replay.position, parsed, rules)
        state = replay.position.board[move_from(parsed.move)]
        if parsed.is_flip:
            piece = None if parsed.piece is None else PIECE_LETTERS[parsed.piece]
        else:
            piece = PIECE_LETTERS[state] if is_piece(state) else None
        views.append(PlyView(player=ply.player, move=ply.move, piece=piece, took=took))
        strips = add_taken(strips, took)
        replay.play_ply(parsed)
    return views, strips


def _last(plies: list[PlyRecord]) -> dict[str, str] | None:
    if not plies:
        return None
    parsed = parse_ply(plies[-1].move)
    return {"from": square_name(move_from(parsed.move)), "to": square_name(move_to(parsed.move))}


def headline(winner: int | None, persons: frozenset[int]) -> str:
    """Who won, said to the person: ``You win``, ``You lose``, ``Draw``; between two
    people, ``Player 1 wins``."""
    if winner is None:
        return "Draw"
    if len(persons) == 1:
        return "You win" if winner in persons else "You lose"
    return f"Player {winner + 1} wins"


def _over(end: GameEnd, persons: frozenset[int]) -> dict[str, Any]:
    return {
        "result": end.result,
        "headline": headline(end.winner, persons),
        "why": end.result.partition(": ")[2] or end.result,
        "reason": end.reason.value,
        "reason_words": "the loser resigned" if end.reason is Reason.RESIGN else end.reason.meaning,
        "winner": end.winner,
        "detail": end.detail,
    }


def _clocks(loop: GameLoop, settings: PlaySettings) -> dict[str, Any] | None:
    """Both clocks in ms, the one on move counting down; None when the game has no clock."""
    if settings.time is None:
        return None
    remaining = [loop.clock.remaining[0], loop.clock.remaining[1]]
    running = None
    if not loop.over:
        running = loop.mover
        remaining[running] -= time.monotonic() - loop.turn_started
    return {"ms": [max(0, round(r * 1000)) for r in remaining], "running": running}
