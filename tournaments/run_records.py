"""The game records of run folders, read for figures over them: every ``games/*.json`` of
each folder, read bounded (``referee.record_input``), validated and replayed
(``referee.replay``). A record that cannot be read, or does not replay, is not left out in
silence: the reading stops, naming it. MACs are not checked (as ``tournaments.from_records``
does not): figures take a record as it is."""

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from banqi_common.errors import InputError
from banqi_engine.errors import RulesInputError
from referee.record import GameRecord
from referee.record_input import parse_json_record, read_record_text
from referee.replay import replay_game_record
from referee.storage import GAMES_DIR


class RunRecordsError(InputError):
    """A run folder, or a record in it, that figures cannot be computed from."""


@dataclass(frozen=True)
class FoundRecord:
    """A record and the file it was read from."""

    path: Path
    record: GameRecord


def run_records(folders: Sequence[Path]) -> list[FoundRecord]:
    """The records of ``folders``, folder by folder in the order given, each folder's by
    file name. RunRecordsError for a folder given twice, missing, or holding no record; and,
    once every folder is read, one naming each record that cannot be read or does not
    replay."""
    seen: set[Path] = set()
    found = []
    problems = []
    for folder in folders:
        if folder.resolve() in seen:
            raise RunRecordsError(f"the run folder {folder} is given twice")
        seen.add(folder.resolve())
        for path in _record_paths(folder):
            try:
                found.append(FoundRecord(path, _replayed_record(path)))
            except RunRecordsError as error:
                problems.append(str(error))
    if problems:
        one = len(problems) == 1
        raise RunRecordsError(
            f"{len(problems)} record(s) cannot be counted: "
            + "; ".join(problems)
            + f". Move {'it' if one else 'them'} out of the run folder to leave "
            f"{'it' if one else 'them'} out of the figures"
        )
    return found


def _record_paths(folder: Path) -> list[Path]:
    """The JSON records of the run folder ``folder``, by name; RunRecordsError if it is
    missing, not a folder or holds none."""
    if not folder.exists():
        raise RunRecordsError(f"no run folder {folder}: it does not exist")
    if not folder.is_dir():
        raise RunRecordsError(
            f"{folder} is not a folder: give a run folder (the --out of a match, tournament, "
            "SPRT or tuning run)"
        )
    paths = sorted((folder / GAMES_DIR).glob("*.json"))
    if not paths:
        raise RunRecordsError(
            f"{folder} holds no game records ({GAMES_DIR}/*.json): not a run folder, or no "
            "game of it has ended yet"
        )
    return paths


def _replayed_record(path: Path) -> GameRecord:
    """The record in ``path``, read bounded and replayed; RunRecordsError says why it cannot
    be counted."""
    try:
        record = parse_json_record(read_record_text(path), path)
        report = replay_game_record(record)
    except InputError as error:
        raise RunRecordsError(str(error)) from None
    except RulesInputError as error:
        raise RunRecordsError(f"record {path} does not replay: {error}") from None
    if not report.ok:
        why = report.problems[0] if report.problems else report.incomplete
        raise RunRecordsError(f"record {path} does not replay: {why}")
    return record
