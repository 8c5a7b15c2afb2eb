"""Records of real matches: JSON and platform text, replay, pairing, and hidden information."""

import json
import re
import shutil
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner, Result
from in_process_engines import engine_spec, in_process
from referee_fakes import TEST_KEY, Fake, play, survivors, write_fake

from banqi_cli.main import cli
from banqi_engine.layout import format_layout, parse_layout
from banqi_engine.notation import parse_ply
from banqi_engine.pieces import COLOUR_NAMES, PIECE_LETTERS
from banqi_engine.position import Position
from banqi_engine.rules import PRESETS
from protocol.command_parser import parse_command_line
from protocol.messages import CommandId
from referee.deals import KEY_ENV, default_key_path, layout_from_secret, load_or_create_key
from referee.engine_spec import EngineSpec
from referee.game_setup import deal_secret_of
from referee.reasons import Reason
from referee.record import GameRecord, read_record
from referee.replay import replay_game_record, replay_text_record
from referee.storage import record_path, traffic_path
from referee.text_record import format_text_record, parse_text_record
from tournaments.match_config import MatchConfig, match_setups

ENGINE = str(Path(sys.executable).with_name("banqi-engine"))
if not Path(ENGINE).exists():
    ENGINE = shutil.which("banqi-engine") or "banqi-engine"

BOARD_REASONS = {Reason.NO_LEGAL_MOVE, Reason.THREEFOLD_REPETITION, Reason.NO_PROGRESS}
PLATFORM_TIME = re.compile(r"\* \d{1,2}:\d\d[ap]m [A-Z][a-z]{2} \d{1,2}, \d{4}")


def engines(rules: str) -> tuple[EngineSpec, EngineSpec]:
    extra = ("--rules", rules)
    return (
        engine_spec("random", "--level", "0", "--seed", "1", *extra),
        engine_spec("greedy", "--level", "1", "--seed", "2", *extra),
    )


@pytest.fixture(scope="module", params=["olympiad", "hong-kong"])
def run(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> tuple[Path, list[GameRecord]]:
    """Two games between our engine's loop, played in-process, under a preset."""
    rules: str = request.param
    out = tmp_path_factory.mktemp(rules)
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv(KEY_ENV, str(out / "key"))
        records = play(
            out / "run",
            engines(rules),
            games=2,
            rules=rules,
            seed=11,
            log_traffic=rules == "olympiad",
            start_engine=in_process(),
        )
    return out / "run", records


def test_every_game_is_written_as_json_and_text_and_optionally_traffic(
    run: tuple[Path, list[GameRecord]],
) -> None:
    out, records = run
    assert [r.game_id for r in records] == ["g0001", "g0002"]
    for record in records:
        path = record_path(out, record.game_id)
        assert GameRecord.model_validate_json(path.read_text(encoding="utf-8")) == record
        assert read_record(path) == record
        raw = path.with_suffix(".txt").read_bytes()
        assert raw == format_text_record(record, Position.opening()).encode()
        assert raw.count(b"\r\n") == raw.count(b"\n") == 11 + (len(record.plies) + 1) // 2 + 3
        log = traffic_path(out, record.game_id)
        if record.rules.name == "olympiad":
            text = log.read_text(encoding="utf-8")
            assert "[random] > 12 genmove" in text
            assert "[greedy] > 12 genmove" in text
            assert "[random] > 5 quit" in text
        else:
            assert not log.exists()


def test_records_describe_a_legal_game_that_ended_on_the_board(
    run: tuple[Path, list[GameRecord]],
) -> None:
    _, records = run
    for record in records:
        assert record.rules == PRESETS[record.rules.name]
        assert record.reason in BOARD_REASONS, record.detail
        assert record.detail == ""
        assert record.end_ply == len(record.plies) > 0
        assert {p.colour for p in record.players} == {"red", "black"}
        assert all(p.engine_name == "banqi-engine" and p.version for p in record.players)
        assert record.finished_at >= record.started_at
        movers = [p.player for p in record.plies]
        assert movers == [(record.first + i) % 2 for i in range(len(movers))]
        for before, after in zip(record.plies, record.plies[1:], strict=False):
            assert after.clocks_ms[before.player] == before.clocks_ms[before.player]

        report = replay_game_record(record)
        assert report.ok, report.problems
        assert report.plies_checked == len(record.plies)
        assert report.outcome is not None
        assert report.outcome.reason.value == record.reason.value
        assert report.outcome.description == record.result
        if record.winner is None:
            assert report.outcome.winner is None
        else:
            assert report.outcome.winner is not None
            assert record.players[record.winner].colour == COLOUR_NAMES[report.outcome.winner]


def test_paired_games_share_a_layout_with_first_swapped_and_flips_show_it(
    run: tuple[Path, list[GameRecord]],
) -> None:
    _, (one, two) = run
    assert (one.first, two.first) == (0, 1)
    assert one.deal == two.deal
    assert one.deal_secret == two.deal_secret
    assert one.layout == two.layout
    assert [p.name for p in one.players] == [p.name for p in two.players]
    for record in (one, two):
        layout = parse_layout(record.layout)
        assert layout == layout_from_secret(record.deal_secret)
        flips = [parse_ply(p.move) for p in record.plies if "(" in p.move]
        assert flips
        for ply in flips:
            assert ply.piece == layout[ply.move >> 5]


def test_the_text_record_replays_and_round_trips_with_both_line_ends(
    run: tuple[Path, list[GameRecord]],
) -> None:
    out, records = run
    for record in records:
        text = record_path(out, record.game_id).with_suffix(".txt").read_bytes().decode()
        assert PLATFORM_TIME.fullmatch(text.split("\r\n")[0])
        for ends in ("\r\n", "\n"):
            parsed = parse_text_record(text.replace("\r\n", ends))
            assert parsed.names == ("random", "greedy")
            assert parsed.first == record.first
            assert parsed.start == Position.opening()
            assert parsed.time_seconds == record.time_control.time
            assert parsed.moves == [p.move for p in record.plies]
            assert parsed.reason == record.reason
            assert parsed.winner == record.winner
            report = replay_text_record(parsed, record.rules)
            assert report.ok, report.problems
            assert report.plies_checked == len(record.plies)


@pytest.mark.parametrize(
    ("reason", "winner", "last"),
    [
        (Reason.RESIGN, 1, "* resign greedy wins\r\n"),
        (Reason.TIME_FORFEIT, 0, "* time-forfeit random wins\r\n"),
        (Reason.THREEFOLD_REPETITION, None, "* threefold-repetition draw\r\n"),
    ],
)
def test_the_result_line_round_trips(
    run: tuple[Path, list[GameRecord]], reason: Reason, winner: int | None, last: str
) -> None:
    _, records = run
    record = records[0].model_copy(update={"reason": reason, "winner": winner})
    text = format_text_record(record, Position.opening())
    assert text.endswith(last)
    parsed = parse_text_record(text.replace("\r\n", "\n"))
    assert (parsed.reason, parsed.winner) == (reason, winner)


def replay_cli(path: Path, *args: str) -> Result:
    return CliRunner().invoke(cli, ["replay", str(path), *args])


def assert_clean_error(result: Result) -> None:
    assert result.exit_code != 0
    assert "Traceback" not in result.output
    assert result.exception is None or isinstance(result.exception, SystemExit)
    errors = [line for line in result.output.splitlines() if line.startswith("Error:")]
    assert len(errors) == 1, result.output


def reversed_move(record: GameRecord) -> tuple[int, str]:
    """The index of the first move (not flip) of a record, and that move played backwards."""
    index = next(i for i, p in enumerate(record.plies) if "-" in p.move)
    frm, to = record.plies[index].move.split("-")
    return index, f"{to}-{frm}"


def test_replay_cli_accepts_good_records_and_names_the_first_illegal_ply(
    run: tuple[Path, list[GameRecord]], tmp_path: Path
) -> None:
    out, records = run
    record = records[0]
    json_path = record_path(out, record.game_id)
    for path in (json_path, json_path.with_suffix(".txt")):
        result = replay_cli(path, "--rules", record.rules.name)
        assert result.exit_code == 0, result.output
        assert "ok: every ply is legal and the ending agrees" in result.output

    index, bad = reversed_move(record)
    original = record.plies[index].move
    plies = list(record.plies)
    plies[index] = plies[index].model_copy(update={"move": bad})
    tampered = tmp_path / "tampered.json"
    tampered.write_text(record.model_copy(update={"plies": plies}).model_dump_json())
    result = replay_cli(tampered)
    assert result.exit_code == 1
    problems = [line for line in result.output.splitlines() if line.startswith("problem:")]
    assert problems[0].startswith(f"problem: ply {index + 1} ({bad}) is illegal")
    assert "NOT OK" in result.output

    text = json_path.with_suffix(".txt").read_bytes().decode()
    number = index // 2 + 1
    line = next(x for x in text.split("\r\n") if x.startswith(f"* {number}. "))
    tampered_text = tmp_path / "tampered.txt"
    tampered_text.write_text(text.replace(line, line.replace(original, bad)), newline="")
    result = replay_cli(tampered_text, "--rules", record.rules.name)
    assert result.exit_code == 1
    assert f"problem: ply {index + 1} ({bad}) is illegal" in result.output


def test_replay_cli_rejects_files_that_are_not_records(
    run: tuple[Path, list[GameRecord]], tmp_path: Path
) -> None:
    out, records = run
    good = json.loads(record_path(out, records[0].game_id).read_text(encoding="utf-8"))
    files = {
        "words.txt": b"hello world\n",
        "empty.txt": b"",
        "binary.dat": bytes(range(256)),
        "other.json": b'{"format": "something-else", "moves": []}',
        "truncated.json": json.dumps(good).encode()[:300],
        "secret.json": json.dumps({**good, "deal_secret": "not hex"}).encode(),
        "layout.json": json.dumps({**good, "layout": "KKKK"}).encode(),
        "short.txt": b"* 1:00pm Jan 1, 2020\r\n* a vs b\r\n",
    }
    for name, content in files.items():
        path = tmp_path / name
        path.write_bytes(content)
        result = replay_cli(path)
        assert_clean_error(result)
        assert result.exit_code == 2, (name, result.output)  # unreadable


SPY = r"""
import json
with open(os.path.join(HERE, f"{NAME}.{os.getpid()}.start"), "w") as handle:
    json.dump({"argv": sys.argv, "env": dict(os.environ), "cwd": os.getcwd()}, handle)
seen = open(os.path.join(HERE, f"{NAME}.{os.getpid()}.seen"), "wb", buffering=0)


def received(line):
    seen.write(line)
"""


def test_engines_learn_nothing_of_the_layout_but_the_flips(
    tmp_path: Path, fakes: list[Fake]
) -> None:
    key = load_or_create_key(default_key_path())
    assert default_key_path() == tmp_path / "key"
    folder = tmp_path / "engines"
    spies = [write_fake(folder, name, SPY, legal=True) for name in ("spy1", "spy2")]
    fakes += spies
    records = play(tmp_path / "run", (spies[0].spec(), spies[1].spec()), games=2, key=key)
    assert survivors(pid for spy in spies for pid in spy.pids()) == []

    secrets = [str(tmp_path / "key"), key.hex(), KEY_ENV]
    for record in records:
        secrets += [record.deal_secret, record.layout, record.layout.replace("/", "")]
    for index, record in enumerate(records):
        for seat, spy in enumerate(spies):
            assert len(spy.pids()) == len(records)
            pid = spy.pids()[index]
            start = json.loads((folder / f"{spy.name}.{pid}.start").read_text())
            assert start["argv"] == list(spy.command[1:])
            assert KEY_ENV not in start["env"]
            seen = (folder / f"{spy.name}.{pid}.seen").read_bytes()
            dump = (folder / f"{spy.name}.{pid}.start").read_bytes() + seen
            assert key not in dump
            for secret in secrets:
                assert secret.encode() not in dump, (seat, secret)

            commands = [parse_command_line(line) for line in seen.decode().splitlines()]
            assert [c.line() for c in commands[:6]] == [
                "7 reset_board",
                "15 time_settings 900000",
                "9 num_moves_to_draw 20",
                "14 ready",
                "1 name",
                "2 version",
            ]
            flips = [c.args for c in commands if c.id == CommandId.FLIP]
            assert flips == [(p.move[:2], p.move[3]) for p in record.plies if "(" in p.move]
            for command in commands:
                if command.id != CommandId.FLIP:
                    assert not set(command.args) & set(PIECE_LETTERS), command
            assert commands[-1].id == CommandId.QUIT


def layouts(key: bytes, seed: int, games: int = 4) -> list[str]:
    specs = (
        EngineSpec(name="a", command=("a",)),
        EngineSpec(name="b", command=("b",)),
    )
    config = MatchConfig(
        engines=specs, games=games, rules=PRESETS["olympiad"], seed=seed, out=Path("unused")
    )
    return [format_layout(layout_from_secret(deal_secret_of(s, key))) for s in match_setups(config)]


def test_layouts_depend_on_the_key_and_the_seed() -> None:
    same = layouts(TEST_KEY, 5)
    assert same == layouts(TEST_KEY, 5)
    assert same[0] == same[1] != same[2] == same[3]
    other_key = layouts(bytes(reversed(TEST_KEY)), 5)
    assert all(a != b for a, b in zip(same, other_key, strict=True))
    other_seed = layouts(TEST_KEY, 6)
    assert all(a != b for a, b in zip(same, other_seed, strict=True))


def test_the_key_file_is_created_once_and_reused(tmp_path: Path) -> None:
    path = default_key_path()
    assert path == tmp_path / "key"
    key = load_or_create_key(path)
    assert len(key) == 32
    assert path.stat().st_mode & 0o777 == 0o600
    assert load_or_create_key(path) == key
    assert layouts(key, 9) == layouts(load_or_create_key(path), 9)
