"""The reason codes that end a game, and for each: how it ends, whether it is a fault, its words.

This is the one place that knows these facts; the referee, the records, the match
summary, the tournament's failure counter and ``banqi reasons`` all ask it.
"""

from dataclasses import dataclass
from enum import StrEnum
from typing import Final

from banqi_engine.game import BoardEnd
from protocol.resource_watch import LimitKind


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
    RULES_REFUSED = "rules-refused"
    FORFEIT = "forfeit"
    MEMORY_LIMIT = "memory-limit"
    PROCESS_LIMIT = "process-limit"
    ROOM_LIMIT = "room-limit"
    CPU_LIMIT = "cpu-limit"
    DISCONNECT = "disconnect"

    @classmethod
    def of_board_end(cls, end: BoardEnd) -> "Reason":
        """The reason code of an end on the board."""
        return cls(end.value)

    @property
    def is_board_end(self) -> bool:
        """Whether the rules ended the game on the board (no engine lost by misbehaving)."""
        return _FACTS[self].board_end

    @property
    def is_fault(self) -> bool:
        """Whether the loser's engine misbehaved, whatever else happened.

        A time loss is not a fault by itself: see :func:`counts_as_failure`.
        """
        return _FACTS[self].fault

    @property
    def loser_words(self) -> str:
        """What the loser did, for a result line (``black {loser_words}``); empty for an
        end on the board, whose words are the rules' own (``Outcome.description``)."""
        return _FACTS[self].loser_words

    def result_words(self, winner: str, loser: str) -> str:
        """The result of a game the loser lost by this reason, in words, each player named
        as results name it (``red wins: black resigned``)."""
        return f"{winner} wins: {loser} {self.loser_words}"

    @property
    def meaning(self) -> str:
        """What the code means, for people (``banqi reasons``)."""
        return _FACTS[self].meaning


def counts_as_failure(reason: Reason, stopped_answering: bool) -> bool:
    """Whether a lost game counts as the loser's engine failing (faults in a row, summaries).

    Every engine fault counts. A time loss counts only if the engine also stopped
    answering (it was cut off with the move still owed); an engine that answered,
    only too late, lost on the clock as a player may, and is not failing.
    """
    return reason.is_fault or (reason is Reason.TIME_FORFEIT and stopped_answering)


@dataclass(frozen=True, slots=True)
class _Facts:
    board_end: bool
    fault: bool
    loser_words: str
    meaning: str


_FACTS: dict[Reason, _Facts] = {
    Reason.NO_LEGAL_MOVE: _Facts(True, False, "", "the side to move had no legal action and lost"),
    Reason.THREEFOLD_REPETITION: _Facts(
        True,
        False,
        "",
        "the same position (board and side to move) occurred the rule set's repetition "
        "count of times: draw",
    ),
    Reason.NO_PROGRESS: _Facts(
        True,
        False,
        "",
        "the rule set's limit of plies without flip or capture was reached: draw",
    ),
    Reason.TIME_FORFEIT: _Facts(
        False,
        False,
        "exceeded its time",
        "the loser's clock (or per-move limit) ran out, beyond the grace margin",
    ),
    Reason.ILLEGAL_MOVE: _Facts(
        False,
        True,
        "played an illegal move",
        "the loser answered genmove with a move that is illegal in the position",
    ),
    Reason.UNREADABLE_REPLY: _Facts(
        False,
        True,
        "sent an unreadable reply",
        "the loser's genmove reply did not parse, carried a wrong id, was a failure reply, "
        "or was an endless line",
    ),
    Reason.CRASH: _Facts(
        False,
        True,
        "crashed",
        "the loser's process exited, failed to start, or closed its pipes",
    ),
    Reason.STALL: _Facts(
        False,
        True,
        "stopped answering",
        "the loser did not answer a command other than genmove in time, or, under an idle "
        "limit, its processes used no CPU for that long while it owed a move (stuck, not "
        "thinking)",
    ),
    Reason.RESIGN: _Facts(False, False, "resigned", "the loser resigned (genmove answered a0 a0)"),
    Reason.RULES_REFUSED: _Facts(
        False,
        True,
        "did not take the rules",
        "the loser's engine did not take a rule set it cannot play untold (one with moves "
        "onto face-down pieces): it does not list rule_set, refused it or left it unanswered",
    ),
    Reason.FORFEIT: _Facts(
        False,
        False,
        "forfeited",
        "the loser's engine kept failing and its remaining games were forfeited without play",
    ),
    Reason.MEMORY_LIMIT: _Facts(
        False,
        True,
        "went over its memory limit",
        "the loser's processes together used more memory than its sandbox allows "
        "(limits.memory_mib): the kernel ended one, and the referee the rest",
    ),
    Reason.PROCESS_LIMIT: _Facts(
        False,
        True,
        "went over its process limit",
        "the loser tried to run more processes and threads at once than its sandbox allows "
        "(limits.processes)",
    ),
    Reason.ROOM_LIMIT: _Facts(
        False,
        True,
        "filled its room",
        "the loser filled its private /tmp and room, or wrote a file larger than its "
        "sandbox allows (limits.room_mib)",
    ),
    Reason.CPU_LIMIT: _Facts(
        False,
        True,
        "went over its CPU-time limit",
        "a process of the loser used more CPU time than its sandbox allows (limits.cpu_seconds)",
    ),
    Reason.DISCONNECT: _Facts(
        False,
        True,
        "lost its connection",
        "the loser's engine played over the network (an arena's remote entrant): its "
        "connection dropped and it did not come back within the time it had",
    ),
}

LIMIT_REASONS: Final[dict[LimitKind, Reason]] = {
    "memory": Reason.MEMORY_LIMIT,
    "processes": Reason.PROCESS_LIMIT,
    "room": Reason.ROOM_LIMIT,
    "cpu": Reason.CPU_LIMIT,
}
"""The reason of each kind of limit an engine can reach (``EngineLimitError.kind``)."""
