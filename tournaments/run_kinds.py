"""The kinds of run a run folder may hold (each known by its state file), and the checks
before a new run of one kind takes a folder."""

from pathlib import Path
from typing import Final

from banqi_common.errors import InputError
from referee.storage import GAMES_DIR

STATE_FILE: Final = "tournament.json"
MATCH_FILE: Final = "match.json"
SETTINGS_FILE: Final = "sprt-settings.json"
TUNE_FILE: Final = "tune-settings.json"
ENTRANTS_FILE: Final = "arena-entrants.json"
"""The hashes of an arena's entrants' tokens (``banqi serve --add-entrant``), made before
the tournament of that folder starts."""
KINDS: Final = {
    STATE_FILE: "a tournament",
    MATCH_FILE: "a match",
    SETTINGS_FILE: "an SPRT",
    TUNE_FILE: "a tuning run",
}
"""Each kind's state file, and the kind in words."""


class RunFolderError(InputError):
    """A run folder whose saved state is damaged or is not a tournament's."""


def refuse_other_kind(out: Path, state_file: str) -> None:
    """Refuse a folder that holds another kind of run than the one ``state_file`` keeps,
    saying what it holds (by its state file) and what this run is."""
    for other, other_kind in KINDS.items():
        if other != state_file and (out / other).exists():
            raise RunFolderError(
                f"{out} holds {other_kind} ({other}), not {KINDS[state_file]}; choose another --out"
            )


def check_new_run_folder(out: Path, state_file: str) -> None:
    """Refuse a folder a new run (known by ``state_file``) cannot take: one that is a file
    or under a file, that holds another kind of run, or records without a state file."""
    kind = KINDS[state_file]
    if out.exists() and not out.is_dir():
        raise RunFolderError(f"cannot use {out} as the run folder: it is a file")
    for parent in out.parents:
        if parent.exists():
            if not parent.is_dir():
                raise RunFolderError(f"cannot create the run folder {out}: {parent} is a file")
            break
    refuse_other_kind(out, state_file)
    if any((out / GAMES_DIR).glob("*.json")):
        raise RunFolderError(
            f"{out} holds game records but no {state_file}; choose another --out ({kind} "
            "never overwrites records)"
        )
