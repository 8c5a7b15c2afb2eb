"""Withheld records: a deal's layout is on disk only once every game of the deal has ended.

Matches and tournaments are played in-process (``in_process_engines``); the run folder is
read, every file as text, after each game.
"""

import asyncio
import base64
import json
import re
import shutil
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner
from in_process_engines import engine_spec, in_process
from referee_fakes import TEST_KEY, TEST_MACS

from banqi_cli.main import cli
from banqi_engine.errors import MoveError
from banqi_engine.layout import format_layout
from banqi_engine.notation import parse_ply
from banqi_engine.position import Position
from banqi_engine.rules import PRESETS
from banqi_engine.squares import parse_square
from referee.deal_records import DealRecords
from referee.deals import deal_secret, layout_from_secret
from referee.held import HeldError, HeldGame, seal, unseal
from referee.macs import mac_matches, signed
from referee.reasons import Reason
from referee.record import GameRecord, RecordError, read_record, write_record
from referee.replay import replay_game_record
from referee.shape_board import EMPTY, FACE_DOWN, FACE_UP, ShapeBoard
from referee.storage import held_path, record_path, traffic_path
from referee.text_record import format_text_record
from referee.withheld import DETAIL_WITHHELD, complete, withhold
from tournaments.config import TournamentConfig
from tournaments.match import open_match, run_match, start_match_folder
from tournaments.match_config import MatchConfig
from tournaments.pairs import ScheduledGame
from tournaments.results import Standings
from tournaments.runner import RunEvents, RunOptions, run_games
from tournaments.schedule import schedule

CASUAL = PRESETS["casual"]
SEED = 3
ENGINES = (
    engine_spec("random", "--level", "0", "--seed", "1", "--rules", "casual"),
    engine_spec("greedy", "--level", "1", "--seed", "2", "--rules", "casual"),
)
SHOWN_FLIP = re.compile(r"[a-d][1-8]\([KGMRNCPkgmrncp]\)")
"""A flip that names its piece, as records and text records write it."""


def folder_text(out: Path) -> dict[str, str]:
    """Every file under ``out``, read as text, by its path relative to ``out``."""
    return {
        str(path.relative_to(out)): path.read_text(encoding="utf-8", errors="replace")
        for path in sorted(out.rglob("*"))
        if path.is_file()
    }


def game_files(files: dict[str, str]) -> list[str]:
    """The paths among ``files`` that are a game's (records and transcripts)."""
    return sorted(name for name in files if name.startswith("games/"))


def play_match(config: MatchConfig, on_game: Callable[[GameRecord], None]) -> list[GameRecord]:
    """Open (or resume) the match and play it in-process, telling ``on_game`` of each game."""
    start_match_folder(open_match(config, True, TEST_MACS), TEST_MACS)
    events = RunEvents(lambda record, standings: on_game(record), lambda *_: None)
    options = RunOptions(
        key=TEST_KEY, out=config.out, events=events, log_traffic=True, start_engine=in_process()
    )
    return asyncio.run(run_match(config, options))


def assert_nothing_of_the_deal(files: dict[str, str], seed: int, deal: str) -> None:
    """No file shows the deal's secret, its layout, or any flip's piece."""
    secret = deal_secret(TEST_KEY, seed, deal)
    layout = format_layout(layout_from_secret(secret))
    for name, text in files.items():
        assert secret not in text, name
        assert layout not in text and layout.replace("/", "") not in text, name
        assert not SHOWN_FLIP.search(text), (name, SHOWN_FLIP.search(text))
        assert " flip " not in text, name  # no DCTP flip echo either


def unsigned(record: GameRecord) -> GameRecord:
    """``record`` without its MAC: what the game made, before the writer MAC'd it."""
    return record.model_copy(update={"mac": None})


def assert_signed(record: GameRecord) -> None:
    """The record carries its game's valid MAC."""
    assert mac_matches(record, record.mac, TEST_MACS.game(record.seed, record.game_id))


def assert_complete(out: Path, original: GameRecord, *, transcript: bool) -> None:
    """The game's files are those of its complete record, equal to the one the game made
    (with its MAC)."""
    path = record_path(out, original.game_id)
    assert "withheld" not in json.loads(path.read_text(encoding="utf-8"))
    saved = read_record(path)
    assert unsigned(saved) == unsigned(original)
    assert_signed(saved)
    assert not saved.withheld
    assert saved.deal_secret == deal_secret(TEST_KEY, original.seed, original.deal)
    report = replay_game_record(saved)
    assert report.ok and not report.withheld, report.problems
    text = path.with_suffix(".txt").read_text(encoding="utf-8", errors="replace")
    assert text == format_text_record(original, Position.opening()).replace("\r\n", "\n")
    log = traffic_path(out, original.game_id)
    assert log.exists() is transcript
    if transcript:
        echoes = log.read_text(encoding="utf-8")
        for ply in original.plies:
            if "(" in ply.move:
                assert f"flip {ply.move[:2]} {ply.move[3]}" in echoes


@pytest.fixture
def originals(monkeypatch: pytest.MonkeyPatch) -> dict[str, GameRecord]:
    """The complete record of every game as its game made it, before it was saved."""
    made: dict[str, GameRecord] = {}
    save = DealRecords.save

    def spy(
        self: DealRecords, record: GameRecord, transcript: str | None = None
    ) -> list[GameRecord]:
        made[record.game_id] = record
        return save(self, record, transcript)

    monkeypatch.setattr(DealRecords, "save", spy)
    return made


def test_a_match_withholds_each_deal_until_its_last_game_has_ended(
    tmp_path: Path, originals: dict[str, GameRecord]
) -> None:
    out = tmp_path / "run"
    seen: dict[str, dict[str, str]] = {}

    def on_game(record: GameRecord) -> None:
        seen[record.game_id] = folder_text(out)

    config = MatchConfig(
        engines=ENGINES, games=3, rules=CASUAL, seed=SEED, out=out, log_traffic=True
    )
    records = play_match(config, on_game)

    after_first = seen["g0001"]
    assert game_files(after_first) == ["games/g0001.held", "games/g0001.json"]
    assert_nothing_of_the_deal(after_first, SEED, "0")
    withheld = json.loads(after_first["games/g0001.json"])
    assert withheld["withheld"] is True
    assert "deal_secret" not in withheld and "layout" not in withheld
    flips = [p["move"] for p in withheld["plies"] if "(" in p["move"]]
    assert flips and all(move.endswith("(?)") for move in flips)
    assert_signed(GameRecord.model_validate(withheld))
    del withheld["mac"]
    assert withheld == json.loads(withhold(originals["g0001"]).model_dump_json())

    paired = {f"games/g000{n}.{ext}" for n in (1, 2) for ext in ("json", "txt", "dctp.log")}
    assert set(game_files(seen["g0002"])) == paired
    alone = {f"games/g0003.{ext}" for ext in ("json", "txt", "dctp.log")}
    assert set(game_files(seen["g0003"])) == paired | alone

    assert [r.game_id for r in records] == ["g0001", "g0002", "g0003"]
    for record in records:
        assert unsigned(record) == originals[record.game_id]
        assert_complete(out, record, transcript=True)
    assert records[0].layout == records[1].layout != records[2].layout


class Stop(Exception):
    """Stands in for a run stopped, or a referee killed, between two games."""


def test_a_match_stopped_after_half_a_pair_completes_it_when_run_again(
    tmp_path: Path, originals: dict[str, GameRecord]
) -> None:
    out = tmp_path / "run"

    def stop(record: GameRecord) -> None:
        assert record.withheld
        raise Stop

    config = MatchConfig(
        engines=ENGINES, games=2, rules=CASUAL, seed=SEED, out=out, log_traffic=True
    )
    with pytest.raises(Stop):
        play_match(config, stop)
    files = folder_text(out)
    assert game_files(files) == ["games/g0001.held", "games/g0001.json"]
    assert_nothing_of_the_deal(files, SEED, "0")

    records = play_match(config, lambda record: None)
    assert [r.game_id for r in records] == ["g0001", "g0002"]
    assert_complete(out, originals["g0001"], transcript=True)  # sealed beside its record
    assert_complete(out, originals["g0002"], transcript=True)
    assert not held_path(out, "g0001").exists()


def two_engine_tournament(concurrency: int = 1) -> tuple[TournamentConfig, list[ScheduledGame]]:
    config = TournamentConfig(
        engines=ENGINES, rules=CASUAL, rounds=1, concurrency=concurrency, seed=SEED
    )
    return config, list(schedule(config, SEED))


def run(
    out: Path, config: TournamentConfig, games: list[ScheduledGame], events: RunEvents
) -> Standings:
    options = RunOptions(
        key=TEST_KEY, out=out, events=events, log_traffic=True, start_engine=in_process()
    )
    return asyncio.run(run_games(games, config, options))


def test_a_tournament_resumed_with_half_a_pair_plays_the_other_game_then_completes_both(
    tmp_path: Path, originals: dict[str, GameRecord]
) -> None:
    out = tmp_path / "run"
    config, games = two_engine_tournament()
    first, second = (game.setup.game_id for game in games)

    def stop(record: GameRecord, standings: Standings) -> None:
        raise Stop

    with pytest.raises(Stop):
        run(out, config, games, RunEvents(stop, print))
    files = folder_text(out)
    assert game_files(files) == [f"games/{first}.held", f"games/{first}.json"]
    assert_nothing_of_the_deal(files, SEED, games[0].setup.deal)
    assert read_record(record_path(out, first)).withheld
    rows = json.loads(files["standings.json"])
    assert [row["games"] for row in rows] == [1, 1]  # a withheld record is a finished game

    played: list[GameRecord] = []
    standings = run(out, config, games, RunEvents(lambda r, s: played.append(r), print))
    assert [record.game_id for record in played] == [second]
    assert not played[0].withheld
    assert_complete(out, originals[first], transcript=True)
    assert_complete(out, originals[second], transcript=True)
    assert [row.games for row in standings.rows] == [2, 2]


def test_both_games_of_a_pair_played_at_once_end_complete(
    tmp_path: Path, originals: dict[str, GameRecord]
) -> None:
    out = tmp_path / "run"
    config, games = two_engine_tournament(concurrency=2)
    done: list[GameRecord] = []
    run(out, config, games, RunEvents(lambda r, s: done.append(r), print))
    assert [record.withheld for record in done] == [True, False]
    for game in games:
        assert_complete(out, originals[game.setup.game_id], transcript=True)


@pytest.fixture(scope="module")
def finished_pair(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[GameRecord]]:
    """A finished one-pair tournament, and its records."""
    out = tmp_path_factory.mktemp("pair") / "run"
    config, games = two_engine_tournament()
    run(out, config, games, RunEvents(lambda r, s: None, print))
    return out, [read_record(record_path(out, game.setup.game_id)) for game in games]


@pytest.fixture
def pair(
    finished_pair: tuple[Path, list[GameRecord]], tmp_path: Path
) -> Iterator[tuple[Path, list[GameRecord]]]:
    """A copy of the finished pair's run folder that a test may change."""
    out = tmp_path / "run"
    shutil.copytree(finished_pair[0], out)
    yield out, finished_pair[1]


@pytest.mark.parametrize("left_withheld", [(0,), (1,), (0, 1)], ids=["first", "second", "both"])
def test_a_deal_killed_while_completing_is_completed_when_the_run_opens(
    pair: tuple[Path, list[GameRecord]], left_withheld: tuple[int, ...]
) -> None:
    out, records = pair
    for index in left_withheld:
        path = record_path(out, records[index].game_id)
        hidden = withhold(records[index])  # as the killed run wrote it: with its MAC
        write_record(signed(hidden, TEST_MACS.game(hidden.seed, hidden.game_id)), path)
        path.with_suffix(".txt").unlink()
        traffic_path(out, records[index].game_id).unlink()
    config, games = two_engine_tournament()
    played: list[GameRecord] = []
    run(out, config, games, RunEvents(lambda r, s: played.append(r), print))
    assert played == []
    for index, record in enumerate(records):
        assert_complete(out, record, transcript=index not in left_withheld)


def test_a_withheld_record_hides_the_deal_and_completes_to_the_same_record(
    finished_pair: tuple[Path, list[GameRecord]],
) -> None:
    _, records = finished_pair
    for record in records:
        hidden = withhold(record)
        assert hidden.withheld and hidden.deal_secret is None and hidden.layout is None
        text = hidden.model_dump_json()
        assert not SHOWN_FLIP.search(text)
        assert '"deal_secret"' not in text and '"layout"' not in text
        assert GameRecord.model_validate_json(text) == hidden
        assert record.deal_secret is not None
        assert complete(hidden, record.deal_secret) == unsigned(record)
        assert '"withheld"' not in record.model_dump_json()


def test_an_illegal_moves_detail_is_cut_while_withheld(
    finished_pair: tuple[Path, list[GameRecord]],
) -> None:
    record = finished_pair[1][0].model_copy(
        update={
            "reason": Reason.ILLEGAL_MOVE,
            "detail": "b2 b4: illegal move b2-b4: K cannot go from b2 to b4",
        }
    )
    hidden = withhold(record)
    assert hidden.detail == f"b2 b4: {DETAIL_WITHHELD}"
    assert record.deal_secret is not None
    assert complete(hidden, record.deal_secret, record.detail) == unsigned(record)
    assert complete(hidden, record.deal_secret).detail == hidden.detail


def test_an_illegal_first_move_keeps_its_detail_while_withheld(
    finished_pair: tuple[Path, list[GameRecord]],
) -> None:
    """Before any piece is turned up the referee's words can name none: they are kept."""
    detail = "a1 a2: illegal move a1-a2: colours are not decided yet, only a flip is allowed"
    record = finished_pair[1][0].model_copy(
        update={"reason": Reason.ILLEGAL_MOVE, "detail": detail, "plies": [], "end_ply": 0}
    )
    assert withhold(record).detail == detail


def test_records_validate_withheld_only_without_the_deal(
    finished_pair: tuple[Path, list[GameRecord]], tmp_path: Path
) -> None:
    record = finished_pair[1][0]
    complete_data = json.loads(record.model_dump_json())
    hidden = json.loads(withhold(record).model_dump_json())
    flip = next(i for i, p in enumerate(complete_data["plies"]) if "(" in p["move"])
    shown = [dict(p) for p in hidden["plies"]]
    shown[flip]["move"] = complete_data["plies"][flip]["move"]
    bad = {
        "secret": {**hidden, "deal_secret": complete_data["deal_secret"]},
        "layout": {**hidden, "layout": complete_data["layout"]},
        "shown flip": {**hidden, "plies": shown},
        "bare flip": {**hidden, "plies": [{**shown[flip], "move": "b6"}]},
        "no secret": {k: v for k, v in complete_data.items() if k != "deal_secret"},
        "no layout": {k: v for k, v in complete_data.items() if k != "layout"},
    }
    for name, data in bad.items():
        path = tmp_path / f"{name}.json"
        path.write_text(json.dumps(data))
        with pytest.raises(RecordError, match="not a valid banqi-record/1 record"):
            read_record(path)
    assert GameRecord.model_validate(complete_data) == record
    assert GameRecord.model_validate({**complete_data, "withheld": False}) == record


def replay_cli(path: Path) -> tuple[int, str]:
    result = CliRunner().invoke(cli, ["replay", str(path)])
    assert "Traceback" not in result.output
    return result.exit_code, result.output


def test_replay_checks_a_withheld_record_as_far_as_it_can(
    finished_pair: tuple[Path, list[GameRecord]], tmp_path: Path
) -> None:
    hidden = withhold(finished_pair[1][0])
    path = tmp_path / "withheld.json"
    write_record(hidden, path)
    code, output = replay_cli(path)
    assert code == 0, output
    assert "layout: withheld" in output
    assert f"plies checked: {len(hidden.plies)} (who played each, and its shape)" in output
    assert "flips, captures and ending were not fully checked" in output
    assert "ok as far as it can be checked" in output

    flips = [i for i, p in enumerate(hidden.plies) if "(" in p.move]
    again = list(hidden.plies)
    again[flips[1]] = again[flips[1]].model_copy(update={"move": hidden.plies[flips[0]].move})
    swapped = list(hidden.plies)
    swapped[0] = swapped[0].model_copy(update={"player": 1 - swapped[0].player})
    tampered = {
        "again": (again, f"ply {flips[1] + 1} ({hidden.plies[flips[0]].move}) is illegal"),
        "player": (swapped, "ply 1 ("),
    }
    for name, (plies, problem) in tampered.items():
        write_record(hidden.model_copy(update={"plies": plies}), path)
        code, output = replay_cli(path)
        assert code == 1, (name, output)
        assert f"problem: {problem}" in output and "NOT OK" in output, (name, output)


def board(rules: str, **squares: str) -> ShapeBoard:
    """A shape board under ``rules`` with the given squares (by name) set."""
    shape = ShapeBoard(PRESETS[rules])
    for name, state in squares.items():
        shape.squares[parse_square(name)] = state
    return shape


@pytest.mark.parametrize(
    ("rules", "squares", "move", "error"),
    [
        ("olympiad", {"a1": FACE_UP, "a2": FACE_DOWN, "a3": FACE_UP}, "a1-a3", None),
        ("hong-kong", {"a1": FACE_UP, "a2": FACE_DOWN, "a3": FACE_UP}, "a1-a3", "not one step"),
        ("olympiad", {"a1": FACE_UP, "a2": FACE_UP, "a3": FACE_UP, "a4": FACE_UP}, "a1-a4", "not"),
        ("olympiad", {"a1": FACE_UP, "a2": EMPTY, "a3": EMPTY}, "a1-a3", "nor a cannon's capture"),
        ("taiwan-sliding-cannon", {"a1": FACE_UP, "a2": EMPTY, "a3": EMPTY}, "a1-a3", None),
        ("olympiad", {"a1": FACE_UP, "b2": EMPTY}, "a1-b2", "not one step"),
        ("olympiad", {"a1": FACE_UP}, "a1-a2", "a2 is face down and cannot be taken"),
        ("olympiad", {"a1": EMPTY, "a2": EMPTY}, "a1-a2", "a1 is empty"),
        ("olympiad", {}, "a1-a2", "a1 is face down"),
        ("olympiad", {"a1": FACE_UP}, "a1(?)", "cannot flip a1: it is not face down"),
        ("olympiad", {}, "a1(?)", None),
    ],
)
def test_the_shape_board_allows_only_what_some_piece_could_play(
    rules: str, squares: dict[str, str], move: str, error: str | None
) -> None:
    shape = board(rules, **squares)
    ply = parse_ply(move)
    if error is not None:
        with pytest.raises(MoveError, match=re.escape(error)):
            shape.play(ply)
        return
    shape.play(ply)
    frm, to = ply.move >> 5, ply.move & 31
    assert shape.squares[to] == FACE_UP
    if frm != to:
        assert shape.squares[frm] == EMPTY


def test_what_a_withheld_record_leaves_out_is_sealed_and_completed_by_the_next_run(
    finished_pair: tuple[Path, list[GameRecord]], tmp_path: Path
) -> None:
    """The transcript and an illegal move's whole detail: on disk only sealed, and back in
    the complete record though the referee that played the game is gone."""
    _, records = finished_pair
    _, games = two_engine_tournament()
    setups = [game.setup for game in games]
    first = records[0].model_copy(
        update={
            "reason": Reason.ILLEGAL_MOVE,
            "detail": "b2 b4: illegal move b2-b4: K cannot go from b2 to b4",
        }
    )
    transcript = "".join(f"    0.001 [x] > 11 flip {p.move[:2]} {p.move[3]}\n" for p in first.plies)
    out = tmp_path / "run"
    DealRecords(out, TEST_KEY, setups, {}).save(first, transcript)
    assert game_files(folder_text(out)) == [f"games/{first.game_id}.{x}" for x in ("held", "json")]
    assert_nothing_of_the_deal(folder_text(out), SEED, games[0].setup.deal)
    assert "cannot go" not in folder_text(out)[f"games/{first.game_id}.json"]

    found = {first.game_id: read_record(record_path(out, first.game_id))}
    with pytest.raises(HeldError, match=r"\.held \(damaged, another game's, or sealed for anoth"):
        DealRecords(out, b"another key" * 3, setups, found).save(records[1])
    saved = DealRecords(out, TEST_KEY, setups, found).save(records[1])
    assert [unsigned(record) for record in saved] == [unsigned(first), unsigned(records[1])]
    for record in saved:
        assert_signed(record)
    assert traffic_path(out, first.game_id).read_text(encoding="utf-8") == transcript
    assert not held_path(out, first.game_id).exists()


def test_a_held_file_opens_only_for_its_game_under_its_key() -> None:
    held = HeldGame(detail="b2 b4: illegal move", transcript="> 11 flip b6 K\n" * 1000)
    text = seal(TEST_KEY, "g0001", held)
    assert unseal(TEST_KEY, "g0001", text) == held
    assert "flip" not in text and "illegal" not in text
    assert seal(TEST_KEY, "g0001", held) != text  # a fresh nonce each time
    data = json.loads(text)
    sealed = bytearray(base64.b64decode(data["sealed"]))
    sealed[7] ^= 1
    tampered = json.dumps({**data, "sealed": base64.b64encode(sealed).decode()})
    for key, game_id, bad in [
        (bytes(32), "g0001", text),
        (TEST_KEY, "g0002", text),
        (TEST_KEY, "g0001", tampered),
        (TEST_KEY, "g0001", "{"),
    ]:
        with pytest.raises(ValueError):
            unseal(key, game_id, bad)
