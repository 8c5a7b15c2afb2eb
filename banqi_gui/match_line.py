"""A match's head-to-head line, as ``banqi match`` prints it under its score.

The standings' Elo is a rating fitted over all games with two virtual draws an engine
(finite even after a clean sweep); the match's summary line is the head-to-head estimate
(``+inf`` when one engine won every game). The watch page shows both, as the CLI does.
"""

from collections.abc import Sequence
from pathlib import Path

from pydantic import BaseModel, ValidationError

from referee.record import GameRecord
from tournaments.from_records import head_to_head_from_records
from tournaments.reports import format_head_to_head
from tournaments.run_kinds import MATCH_FILE


class _Named(BaseModel):
    name: str


class _MatchEngines(BaseModel):
    engines: tuple[_Named, _Named]


class _MatchFile(BaseModel):
    """What the page reads of ``match.json``: the two engines' names, in the match's order
    (nothing else of it, such as the engines' commands, ever reaches the page)."""

    config: _MatchEngines


def match_line(folder: Path, records: Sequence[GameRecord]) -> str | None:
    """The head-to-head line of the match in ``folder`` from the first engine's side, as
    ``banqi match`` prints it; None for a run that is not a match, or before its first game."""
    try:
        engines = _MatchFile.model_validate_json((folder / MATCH_FILE).read_bytes()).config.engines
    except (OSError, ValidationError):
        return None
    if not records:
        return None
    try:
        stats = head_to_head_from_records(records, engines[0].name, engines[1].name)
    except ValueError:  # a record of another engine: not this match's
        return None
    return format_head_to_head(stats)
