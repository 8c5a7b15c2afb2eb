"""Engines that keep failing: faults in a row, who is out, and the records of forfeited games.

Whether a lost game is a failure is the referee's word (``GameRecord.loser_failed``):
an engine fault, or a time loss where the engine also stopped answering.
"""

from collections.abc import Container
from dataclasses import dataclass, field
from datetime import UTC, datetime

from referee.deals import Deal
from referee.reasons import Reason
from referee.record import GameEnd, GameRecord, build_record, player_info

from .pairs import ScheduledGame

FORFEIT_DETAIL = "the engine failed too many games in a row"


@dataclass
class FailureTracker:
    """Failures in a row per engine, and which engines are out of the tournament."""

    limit: int
    in_a_row: dict[str, int] = field(default_factory=dict)
    last_fault: dict[str, str] = field(default_factory=dict)
    out: set[str] = field(default_factory=set)

    def add(self, record: GameRecord) -> list[str]:
        """Count a finished game (a void one is a failure of both engines); return the
        engines it puts out of the tournament."""
        if record.reason is Reason.FORFEIT:
            return []
        if record.void:
            failed = {player.name for player in record.players}
        elif record.winner is not None and record.loser_failed:
            failed = {record.players[1 - record.winner].name}
        else:
            failed = set()
        newly_out = []
        for player in record.players:
            if player.name in failed:
                self.in_a_row[player.name] = self.in_a_row.get(player.name, 0) + 1
                self.last_fault[player.name] = f"{record.reason.value}: {record.detail}"
                if self.in_a_row[player.name] >= self.limit and player.name not in self.out:
                    self.out.add(player.name)
                    newly_out.append(player.name)
            else:
                self.in_a_row[player.name] = 0
        return newly_out


def games_left(games: list[ScheduledGame], records: Container[str], name: str) -> int:
    """How many scheduled games of engine ``name`` have no record yet."""
    return sum(
        1
        for game in games
        if game.setup.game_id not in records and name in (s.name for s in game.setup.players)
    )


def forfeit_record(
    game: ScheduledGame, out_engines: set[str], deal: Deal | str, detail: str = FORFEIT_DETAIL
) -> GameRecord:
    """The record of a game not played because an engine was put out of the tournament
    (its ``deal``, a Deal or the secret it is the shuffle of, revealed; it is saved withheld
    like a played game's until its deal is complete); ``detail`` says why."""
    setup = game.setup
    names = [spec.name for spec in setup.players]
    losers = [index for index, name in enumerate(names) if name in out_engines]
    if len(losers) == 2:
        end = GameEnd(
            winner=None,
            reason=Reason.FORFEIT,
            result="void: both engines forfeited",
            detail=detail,
            void=True,
        )
    else:
        winner = 1 - losers[0]
        result = Reason.FORFEIT.result_words(names[winner], names[1 - winner])
        end = GameEnd(winner=winner, reason=Reason.FORFEIT, result=result, detail=detail)
    players = (
        player_info(setup.players[0], setup.own_time[0]),
        player_info(setup.players[1], setup.own_time[1]),
    )
    now = datetime.now(UTC)
    return build_record(setup, deal, players, [], end, now, now)
