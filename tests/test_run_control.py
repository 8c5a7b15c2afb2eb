"""The organiser's control of a run: pauses and forfeits, kept in the run folder, obeyed by
the runner."""

import asyncio
import json
from pathlib import Path

import pytest
from in_process_engines import engine_spec, in_process
from referee_fakes import TEST_KEY, TEST_MACS

from banqi_engine.rules import PRESETS
from referee.reasons import Reason
from referee.record import GameRecord
from referee.timecontrol import TimeControl
from tournaments.match import open_match, run_match, start_match_folder
from tournaments.match_config import MatchConfig
from tournaments.run_control import (
    CONTROL_FILE,
    ORGANISER_FORFEIT_DETAIL,
    ControlError,
    RunControl,
)
from tournaments.runner import RunEvents, RunOptions


def test_pauses_and_forfeits_are_kept_in_the_run_folder(tmp_path: Path) -> None:
    async def act() -> None:
        control = RunControl(tmp_path, ["a", "b", "c"])
        await control.pause()
        await control.pause_entrant("b")
        await control.pause_entrant("c")
        await control.forfeit("c")  # a forfeit ends its pause: it is for good
        with pytest.raises(ControlError, match="c is forfeited for good"):
            await control.pause_entrant("c")
        with pytest.raises(ControlError, match=r"no engine 'zed' .*a, b, c"):
            await control.forfeit("zed")

    asyncio.run(act())
    again = RunControl(tmp_path, ["a", "b", "c"])
    assert again.paused
    assert again.state.paused_entrants == ("b",)
    assert again.forfeited() == {"c"}

    async def resume() -> None:
        await again.resume()
        await again.resume_entrant("b")

    asyncio.run(resume())
    saved = json.loads((tmp_path / CONTROL_FILE).read_text())
    assert saved == {
        "format": "banqi-control/1",
        "paused": False,
        "paused_entrants": [],
        "forfeited": ["c"],
    }


def test_a_control_file_of_other_engines_or_not_a_control_file_is_refused(
    tmp_path: Path,
) -> None:
    (tmp_path / CONTROL_FILE).write_text(json.dumps({"forfeited": ["x"]}))
    with pytest.raises(ControlError, match="names engines this run does not have: x"):
        RunControl(tmp_path, ["a", "b"])
    (tmp_path / CONTROL_FILE).write_text('{"paused": "maybe"}')
    with pytest.raises(ControlError, match=r"control file .* is not valid: paused"):
        RunControl(tmp_path, ["a", "b"])


def _match(out: Path, control: RunControl, games: int = 2) -> "asyncio.Task[list[GameRecord]]":
    config = MatchConfig(
        engines=(engine_spec("a", "--level", "0"), engine_spec("b", "--level", "0")),
        games=games,
        rules=PRESETS["casual"],
        time_control=TimeControl(),
        seed=3,
        out=out,
    )
    start_match_folder(open_match(config, True, TEST_MACS), TEST_MACS)
    events = RunEvents(lambda record, standings: None, lambda name, left, last: None)
    options = RunOptions(
        key=TEST_KEY, out=out, events=events, start_engine=in_process(), control=control
    )
    return asyncio.ensure_future(run_match(config, options))


def test_no_game_of_a_paused_engine_starts_until_it_is_resumed(tmp_path: Path) -> None:
    out = tmp_path / "run"

    async def run() -> list[GameRecord]:
        control = RunControl(out, ["a", "b"])
        await control.pause_entrant("b")
        task = _match(out, control)
        await asyncio.sleep(1.0)
        assert not task.done()
        assert not list((out / "games").glob("*.json"))  # every game has b: none started
        await control.resume_entrant("b")
        return await asyncio.wait_for(task, 60)

    records = asyncio.run(run())
    assert len(records) == 2
    assert all(record.reason is not Reason.FORFEIT for record in records)


def test_an_engine_forfeited_for_good_loses_every_game_left(tmp_path: Path) -> None:
    out = tmp_path / "run"

    async def run() -> list[GameRecord]:
        control = RunControl(out, ["a", "b"])
        await control.pause()
        task = _match(out, control, games=4)
        await control.forfeit("b")
        await control.resume()
        return await asyncio.wait_for(task, 60)

    records = asyncio.run(run())
    assert len(records) == 4
    for record in records:
        assert record.reason is Reason.FORFEIT
        assert record.detail == ORGANISER_FORFEIT_DETAIL
        assert record.winner is not None and record.players[record.winner].name == "a"
