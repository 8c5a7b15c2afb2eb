"""A caller of the library's run jobs that keeps what it is told."""

from referee.record import GameRecord
from tournaments.engine_places import Notices
from tournaments.match_job import MatchEvents, MatchStart


class Told:
    """What a job told its caller."""

    def __init__(self) -> None:
        self.notes: list[str] = []
        self.starts: list[MatchStart] = []
        self.games: list[GameRecord] = []

    def notices(self) -> Notices:
        return Notices(
            lambda isolation, mode: self.notes.append(f"isolation {isolation.value}"),
            lambda address, mode: self.notes.append(f"cluster {address}"),
        )

    def match_events(self) -> MatchEvents:
        def engine_out(name: str, remaining: int | None, last: str) -> None:
            self.notes.append(f"out {name}")

        return MatchEvents(self.notices(), self.starts.append, self.games.append, engine_out)
