"""What the tests of whole runs share: two in-process engines, the casual rules, a run's
access to the test key, and editing a record or state file by hand."""

import json
from pathlib import Path

from in_process_engines import engine_spec
from referee_fakes import TEST_KEY

from banqi_engine.rules import resolve_rules
from tournaments.run_access import RunAccess

CASUAL = resolve_rules("casual")
ENGINES = (
    engine_spec("random", "--level", "0", "--seed", "1"),
    engine_spec("greedy", "--level", "1"),
)


def access(tmp_path: Path) -> RunAccess:
    """A run's access to the test key, written in ``tmp_path``."""
    key = tmp_path / "referee.key"
    key.write_bytes(TEST_KEY)
    return RunAccess(key_file=key)


def edit(path: Path, change: dict[str, object], drop: tuple[str, ...] = ()) -> None:
    """Change the JSON file ``path``: its fields in ``change`` set, those in ``drop`` gone."""
    data = json.loads(path.read_text(encoding="utf-8"))
    data.update(change)
    for name in drop:
        del data[name]
    path.write_text(json.dumps(data), encoding="utf-8")
