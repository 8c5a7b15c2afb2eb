"""Writing a run's records so that no deal's layout is on disk before its last game has ended.

The games of a deal (a pair, seats swapped) share one hidden layout. A finished game's
record is first written *withheld* (``referee.withheld``: no secret, no layout, flips as
``b6(?)``), with no text record; what it leaves out, its DCTP transcript and an illegal
move's whole detail, is written just before it, sealed under a key only the deal gives
(``referee.held``). Once every game of the deal has a record, each withheld record of the
deal is completed: the deal's secret is derived again from the referee key (or, for a run
dealt from a deal book, the deal's entry is read from the book), and the transcript, the
text record and the complete JSON record are written, in that order, then the sealed file
removed. So a referee stopped at any moment (killed, or by a full disk) leaves either a
game without a record (it is played again, its partners still withheld) or a deal whose
games all have records, which ``complete_ready`` completes, transcripts too, when the run
is opened again. Every JSON record it writes, withheld or complete, carries its MAC
(``referee.macs``).
"""

from collections.abc import Iterable, Mapping
from pathlib import Path

from .deal_book import LoadedBook, entries_by_deal
from .deals import Deal, dealt
from .game_setup import GameSetup, deal_secret_of
from .held import HeldGame, deal_key, read_held, remove_held, write_held
from .macs import MacKeys, signed
from .record import GameRecord, write_record
from .storage import record_path, save_game
from .withheld import complete, withhold


class DealRecords:
    """The records of one run's games, withheld until their deal is complete.

    ``setups`` are every game of the run, in schedule order (they say which games share a
    deal); ``found`` the records already in the run folder, by game id. Holds no secret and
    no layout: a deal's is derived from ``key`` (or read from the run's deal ``book``, its
    k-th distinct deal from entry k) when a game's held file is sealed and when the deal is
    completed, and dropped after.
    """

    def __init__(
        self,
        out: Path,
        key: bytes,
        setups: Iterable[GameSetup],
        found: Mapping[str, GameRecord],
        book: LoadedBook | None = None,
    ) -> None:
        self._out = out
        self._key = key
        self._macs = MacKeys(key)
        self._book = book
        self._setups = {setup.game_id: setup for setup in setups}
        self._deals: dict[str, list[str]] = {}
        for setup in self._setups.values():
            self._deals.setdefault(setup.deal, []).append(setup.game_id)
        self._entries = entries_by_deal(self._deals)
        self._recorded = set(found)
        self._withheld = {game_id: r for game_id, r in found.items() if r.withheld}
        for game_id, record in found.items():
            if not record.withheld:  # completed by a run stopped before it removed the file
                remove_held(out, game_id)

    def save(self, record: GameRecord, transcript: str | None = None) -> list[GameRecord]:
        """Save a finished game's (complete) record and its transcript, if kept (WriteError
        names a file that cannot be written).

        Returns the records written, as written: this game's withheld record while
        another game of its deal has no record; else every record of the deal that was
        withheld, completed, this game's among them.
        """
        game_id = record.game_id
        withheld = self._signed(withhold(record))
        if transcript is not None or withheld.detail != record.detail:
            held = HeldGame(detail=record.detail, transcript=transcript)
            write_held(self._out, deal_key(self._deal(self._setups[game_id])), game_id, held)
        write_record(withheld, record_path(self._out, game_id))
        self._recorded.add(game_id)
        self._withheld[game_id] = withheld
        deal = self._setups[game_id].deal
        if all(other in self._recorded for other in self._deals[deal]):
            return self._complete(deal)
        return [withheld]

    def complete_ready(self) -> list[GameRecord]:
        """Complete the withheld records of every deal whose games all have records (a run
        killed while completing one); returns them."""
        return [
            record
            for deal, games in self._deals.items()
            if all(game_id in self._recorded for game_id in games)
            for record in self._complete(deal)
        ]

    def _complete(self, deal: str) -> list[GameRecord]:
        """Complete the deal's withheld records: transcript, text record, then JSON each, and
        the sealed file of what it left out removed."""
        games = [game_id for game_id in self._deals[deal] if game_id in self._withheld]
        if not games:
            return []
        revealed = self._deal(self._setups[games[0]])
        completed = []
        for game_id in games:
            held = read_held(self._out, deal_key(revealed), game_id)
            record = complete(self._withheld[game_id], revealed, held.detail if held else None)
            record = self._signed(record)
            save_game(self._out, record, held.transcript if held else None)
            remove_held(self._out, game_id)
            del self._withheld[game_id]
            completed.append(record)
        return completed

    def _signed(self, record: GameRecord) -> GameRecord:
        """``record`` with its MAC, keyed by its game's key."""
        setup = self._setups[record.game_id]
        return signed(record, self._macs.game(setup.seed, setup.game_id))

    def _deal(self, setup: GameSetup) -> Deal:
        """The deal of ``setup``: its book entry, or the shuffle of its secret."""
        if self._book is not None:
            return self._book.deal(self._entries[setup.deal])
        return dealt(deal_secret_of(setup, self._key))
