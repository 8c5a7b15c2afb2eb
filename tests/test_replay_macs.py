"""``banqi replay`` checks a JSON record's MAC with the referee key (``--key-file``, else
the one in its usual place, if any), says whether and how it did, and takes a record whose
MAC is missing or wrong for NOT OK; ``--skip-mac`` checks the plies alone."""

import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner, Result
from in_process_engines import engine_spec, in_process
from job_events import Told
from referee_fakes import TEST_KEY
from run_helpers import edit

from banqi_cli.main import cli
from banqi_engine.rules import resolve_rules
from referee.storage import record_path
from tournaments.match_config import MatchConfig
from tournaments.match_job import MatchJob, run_match_job
from tournaments.run_access import RunAccess


def played(tmp_path: Path) -> Path:
    """A finished two-game match under the key ``tmp_path / "referee.key"``: its first
    record."""
    key = tmp_path / "referee.key"
    key.write_bytes(TEST_KEY)
    engines = (engine_spec("a", "--level", "0"), engine_spec("b", "--level", "1"))
    config = MatchConfig(
        engines=engines, games=2, rules=resolve_rules("casual"), seed=3, out=tmp_path / "m"
    )
    run_match_job(
        MatchJob(config=config, access=RunAccess(key_file=key)), Told().match_events(), in_process()
    )
    return record_path(config.out, "g0001")


def replay(path: Path, *args: str) -> Result:
    result = CliRunner().invoke(cli, ["replay", str(path), *args])
    assert "Traceback" not in result.output
    return result


def mac_line(result: Result) -> str:
    return next(line for line in result.output.splitlines() if line.startswith("mac: "))


def test_replay_checks_the_mac_with_the_referee_key(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = played(tmp_path)
    key = tmp_path / "referee.key"
    good = replay(path, "--key-file", str(key))
    assert good.exit_code == 0, good.output
    assert mac_line(good) == f"mac: valid (referee key {key})"
    assert good.output.endswith("ok: every ply is legal and the ending agrees\n")

    unchecked = replay(path)  # no key in its usual place ($BANQI_REFEREE_KEY: none there)
    assert unchecked.exit_code == 0
    assert mac_line(unchecked).startswith("mac: not checked: no referee key at ")
    monkeypatch.setenv("BANQI_REFEREE_KEY", str(key))
    assert mac_line(replay(path)) == f"mac: valid (referee key {key})"

    tampered = tmp_path / "tampered.json"
    shutil.copy(path, tampered)
    edit(tampered, {"started_at": "2020-01-01T00:00:00Z"})  # the plies still replay
    wrong = replay(tampered, "--key-file", str(key))
    assert wrong.exit_code == 1
    assert mac_line(wrong).startswith(f"mac: WRONG: not written by the referee key {key}")
    assert "NOT OK" in wrong.output
    skipped = replay(tampered, "--skip-mac")
    assert skipped.exit_code == 0 and mac_line(skipped) == "mac: not checked (--skip-mac)"

    edit(tampered, {}, drop=("mac",))
    missing = replay(tampered)
    assert missing.exit_code == 1
    assert mac_line(missing).startswith("mac: MISSING: not written by a run")

    text = replay(path.with_suffix(".txt"), "--rules", "casual")  # a text record names none
    assert text.exit_code == 0 and mac_line(text) == "mac: not checked: a text record has none"
    absent = replay(path, "--key-file", str(tmp_path / "none.key"))
    assert absent.exit_code == 2  # nothing to check with
    assert absent.output == f"Error: referee key file {tmp_path / 'none.key'} does not exist\n"
