"""A tournament's ``--out`` on another kind of run's folder says plainly what the folder
holds; records of no run's say so too."""

from pathlib import Path

import pytest
from referee_fakes import TEST_MACS

from referee.engine_spec import EngineSpec
from tournaments.config import TournamentConfig
from tournaments.run_kinds import KINDS, STATE_FILE, RunFolderError
from tournaments.state import open_run

CONFIG = TournamentConfig(
    engines=(EngineSpec(name="a", command=("a",)), EngineSpec(name="b", command=("b",)))
)


@pytest.mark.parametrize("state_file", [name for name in KINDS if name != STATE_FILE])
@pytest.mark.parametrize("with_records", [False, True])
def test_another_kinds_folder_is_named_by_what_it_holds(
    tmp_path: Path, state_file: str, with_records: bool
) -> None:
    out = tmp_path / "run"
    out.mkdir()
    (out / state_file).write_text("{}", encoding="utf-8")
    if with_records:
        (out / "games").mkdir()
        (out / "games" / "g0001.json").write_text("{}", encoding="utf-8")
    with pytest.raises(RunFolderError) as refused:
        open_run(out, CONFIG, 1, TEST_MACS)
    assert str(refused.value) == (
        f"{out} holds {KINDS[state_file]} ({state_file}), not a tournament; choose another --out"
    )
    assert "?" not in str(refused.value)
    assert not (out / STATE_FILE).exists()


def test_records_of_no_run_say_that_no_run_left_them(tmp_path: Path) -> None:
    out = tmp_path / "run"
    (out / "games").mkdir(parents=True)
    (out / "games" / "g0001.json").write_text("{}", encoding="utf-8")
    with pytest.raises(RunFolderError) as refused:
        open_run(out, CONFIG, 1, TEST_MACS)
    message = str(refused.value)
    assert "holds game records but no run's state file" in message
    assert all(name in message for name in KINDS)
    assert "?" not in message
