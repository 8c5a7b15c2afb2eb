"""Counting a run's games in complete pairs, in pair order, until its stop rule ends it.

After pair ``i`` the counter counts pair ``i + 1`` once both of its games have records,
whatever finished before (the last game of an odd number of games is a pair of its own).
A stop rule (a match to a score, an SPRT's verdict) subclasses :class:`PairCounter`: it
counts each pair and says when the run is decided. From then on no new pair starts; games
already started finish (with their pair's other game, so that no record stays withheld)
and are kept, but not counted. The plain counter never decides: a fixed number of games.
"""

from collections.abc import Sequence

from referee.record import GameRecord

from .pairs import ScheduledGame


class PairCounter:
    """The pairs of a run counted so far, and the pairs started."""

    def __init__(self, games: Sequence[ScheduledGame]) -> None:
        self.index = {game.setup.game_id: i for i, game in enumerate(games)}
        self.total = len(games)
        self.records: dict[int, GameRecord] = {}
        self.started: set[int] = set()
        """Pairs with a game started or recorded: once decided, only these play."""
        self.pairs = 0
        """Pairs counted so far."""

    @property
    def decided(self) -> bool:
        """Whether the run has what it plays for (the plain counter: never)."""
        return False

    @property
    def counted_games(self) -> int:
        """Games in the pairs counted so far."""
        return min(2 * self.pairs, self.total)

    def count_pair(self, pair: Sequence[GameRecord]) -> None:
        """Count one complete pair, the ``pairs``-th, in pair order (the plain counter only
        numbers it)."""

    def admit(self, game: ScheduledGame) -> bool:
        """Whether a queued game starts: any before the run is decided, then only the other
        game of a pair already started."""
        pair = self.index[game.setup.game_id] // 2
        if self.decided and pair not in self.started:
            return False
        self.started.add(pair)
        return True

    def add(self, record: GameRecord) -> int:
        """Take a finished game; count every pair it completes, in order, until decided.
        How many pairs it let count."""
        index = self.index[record.game_id]
        self.records[index] = record
        self.started.add(index // 2)
        before = self.pairs
        while not self.decided and self.counted_games < self.total:
            members = range(2 * self.pairs, min(2 * self.pairs + 2, self.total))
            if any(i not in self.records for i in members):
                break
            self.pairs += 1
            self.count_pair([self.records[i] for i in members])
        return self.pairs - before

    def add_in_order(self, records: Sequence[GameRecord]) -> None:
        """Take the records a run folder already holds, in game order."""
        for record in sorted(records, key=lambda r: self.index[r.game_id]):
            self.add(record)
