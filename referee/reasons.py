"""The fixed set of reason codes that end a game, and their words for people."""

from enum import StrEnum

from banqi_engine.game import BoardEnd


class Reason(StrEnum):
    """Why a game ended. The values are the codes written in records."""

    NO_LEGAL_MOVE = BoardEnd.NO_LEGAL_MOVE.value
    THREEFOLD_REPETITION = BoardEnd.THREEFOLD_REPETITION.value
    NO_PROGRESS = BoardEnd.NO_PROGRESS.value
    TIME_FORFEIT = "time-forfeit"
    ILLEGAL_MOVE = "illegal-move"
    UNREADABLE_REPLY = "unreadable-reply"
    CRASH = "crash"
    STALL = "stall"
    RESIGN = "resign"
    FORFEIT = "forfeit"

    @property
    def is_fault(self) -> bool:
        """Whether the loser's engine misbehaved (as opposed to losing on the board)."""
        return self in ENGINE_FAULTS


ENGINE_FAULTS = frozenset(
    {Reason.ILLEGAL_MOVE, Reason.UNREADABLE_REPLY, Reason.CRASH, Reason.STALL}
)

REASON_DOCS: dict[Reason, str] = {
    Reason.NO_LEGAL_MOVE: "the side to move had no legal action and lost",
    Reason.THREEFOLD_REPETITION: "the same position (board and side to move) occurred the "
    "rule set's repetition count of times: draw",
    Reason.NO_PROGRESS: "the rule set's limit of plies without flip or capture was reached: draw",
    Reason.TIME_FORFEIT: "the loser's clock (or per-move limit) ran out, beyond the grace margin",
    Reason.ILLEGAL_MOVE: "the loser answered genmove with a move that is illegal in the position",
    Reason.UNREADABLE_REPLY: "the loser's genmove reply did not parse, carried a wrong id, was a "
    "failure reply, or was an endless line",
    Reason.CRASH: "the loser's process exited, failed to start, or closed its pipes",
    Reason.STALL: "the loser did not answer a command other than genmove in time, or its "
    "processes used no CPU for that long while it owed a move (stuck, not thinking)",
    Reason.RESIGN: "the loser resigned (genmove answered a0 a0)",
    Reason.FORFEIT: "the loser's engine kept failing and its remaining games were forfeited "
    "without play",
}
