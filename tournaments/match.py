"""A match as a run: two engines, a fixed number of games in pairs, played by the tournament
runner (games at once, records saved as they come, withheld pairs, failures in a row) and
resumed by running the same command again.

``match.json`` in the run folder holds the config and seed the match started with, as
``tournament.json`` does for a tournament, the deal book it is dealt from, if any (its
SHA-256: it is resumed with the same book only), and the score a match to a score is
played to (:mod:`tournaments.match_score`); the records in ``games/`` say which games
exist, and a match to a score writes how it ended in ``match-result.json``.
"""

from collections.abc import Mapping
from dataclasses import replace
from datetime import UTC, datetime
from typing import ClassVar, Final, Literal

from referee.deal_book import LoadedBook, check_same_book, stamp_of
from referee.macs import MacKeys
from referee.record import GameRecord
from referee.storage import make_games_folder

from .differences import model_differences
from .match_config import MatchConfig, match_setups
from .match_score import MatchScore, ScoreTracker, save_result
from .pairs import ScheduledGame, two_engine_games
from .report_about import about_run
from .reports import write_reports
from .results import Standings
from .run_folder import (
    DealtRunState,
    RunKind,
    open_run_folder,
    refuse_other_settings,
    write_state,
)
from .run_kinds import MATCH_FILE as MATCH_FILE
from .runner import RunEvents, RunOptions, RunSettings, run_scheduled

MAX_FAILURES: Final = 3
"""Failures in a row after which an engine's remaining games of the match are forfeited."""


class MatchState(DealtRunState):
    """What ``match.json`` holds (a match not played to a score has no ``score`` in it)."""

    left_out_when_none: ClassVar[frozenset[str]] = frozenset({"mac", "score"})

    format: Literal["banqi-match/1"] = "banqi-match/1"
    config: MatchConfig
    score: MatchScore | None = None
    """The score the match is played to (``--first-to``); None: every game is played."""


MATCH = RunKind(MATCH_FILE, MatchState, "a match's state", "a match")


def match_games(config: MatchConfig) -> list[ScheduledGame]:
    """The match's games for the runner."""
    return two_engine_games(match_setups(config))


def open_match(
    config: MatchConfig,
    seed_given: bool,
    macs: MacKeys,
    book: LoadedBook | None = None,
    score: MatchScore | None = None,
) -> MatchState:
    """The match's state: the saved one, after checking its MAC and that the config (and the
    deal ``book``, if any, and the ``score`` it is played to, if any) is the same, or a new
    one (written by ``start_match_folder``, before the engines start).

    Without ``seed_given`` a resumed match keeps its saved seed. Refuses a folder that
    holds another kind of run or records without a match, a folder under a file, and a
    book with fewer deals than the match needs.
    """
    out = config.out

    def resume(state: MatchState) -> MatchState:
        wanted = config if seed_given else config.model_copy(update={"seed": state.config.seed})
        differences = model_differences(state.config, wanted, MatchConfig.resumable)
        refuse_other_settings(out, MATCH, differences + score_differences(state.score, score))
        check_same_book(state.deal_book, book, out)
        _check_book(config, book)
        return state.model_copy(update={"config": wanted})

    def start() -> MatchState:
        _check_book(config, book)
        return MatchState(
            created_at=datetime.now(UTC), config=config, deal_book=stamp_of(book), score=score
        )

    return open_run_folder(out, MATCH, resume, start, macs)


def score_differences(saved: MatchScore | None, wanted: MatchScore | None) -> list[str]:
    """How the score a match is resumed to differs from the saved one, in words."""
    if saved == wanted:
        return []
    if saved is None or wanted is None:
        words = [
            "not given" if s is None else f"{s.first_to:g} ({s.points.describe()})"
            for s in (saved, wanted)
        ]
        return [f"first-to: was {words[0]}, now {words[1]}"]
    return model_differences(saved, wanted, frozenset())


def _check_book(config: MatchConfig, book: LoadedBook | None) -> None:
    """Refuse a deal book with fewer deals than the match has pairs (and a game alone), or
    an opening its rules do not allow."""
    if book is not None:
        book.check_fits(match_setups(config))


def start_match_folder(state: MatchState, macs: MacKeys) -> None:
    """Write a new match's ``match.json`` (a resumed match's is left as it is)."""
    out = state.config.out
    if MATCH.read(out) is None:
        make_games_folder(out)
        write_state(out, MATCH, state, macs)


def score_tracker(
    config: MatchConfig, score: MatchScore, found: Mapping[str, GameRecord]
) -> ScoreTracker:
    """A match to a score as the records ``found`` in its folder have it."""
    games = match_games(config)
    names = (config.engines[0].name, config.engines[1].name)
    tracker = ScoreTracker(score, games, names)
    tracker.add_in_order(list(found.values()))
    return tracker


async def run_match(
    config: MatchConfig, options: RunOptions, tracker: ScoreTracker | None = None
) -> list[GameRecord]:
    """Play the match's games that have no record yet in its folder, ``config.concurrency``
    at a time; return every record of the match, in game order.

    With a ``tracker`` (a match to a score), each record is counted as it comes, no new pair
    starts once the match is decided, and ``match-result.json`` is written at the end, its
    summary line in the reports too."""
    games = match_games(config)
    names = [spec.name for spec in config.engines]
    if tracker is not None:
        told = options.events.game_done

        def game_done(record: GameRecord, standings: Standings) -> None:
            tracker.add(record)
            told(record, standings)

        options = replace(
            options,
            admit=tracker.admit,
            events=RunEvents(game_done, options.events.engine_out),
        )
    settings = RunSettings(names, config.concurrency, MAX_FAILURES)
    end = await run_scheduled(games, settings, options)
    if tracker is not None:
        result = tracker.result()
        save_result(config.out, result)
        about = about_run(end.records, options.asked)
        write_reports(config.out, end.standings, match=result.summary, about=about)
    return end.records
