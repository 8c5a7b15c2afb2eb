"""Deal books with openings: ``banqi deals --from`` cuts earlier games at their last flip (or
a ply), a run plays each pair from the cut with the seats swapped and records it, both
engines are told the opening, and an opening the run's rules do not allow is refused naming
the entry and the ply before any game."""

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

import referee.records_book
from banqi_cli.main import cli
from banqi_engine.game import Game
from banqi_engine.layout import parse_layout
from banqi_engine.notation import parse_ply
from referee.book_openings import opening_of
from referee.deal_book import DealBookError, read_deal_book
from referee.record import GameRecord, read_record
from referee.replay import replay_game_record
from referee.storage import record_path
from tournaments.phase_material import Phase, game_material

BANQI = str(Path(sys.executable).with_name("banqi"))
if not Path(BANQI).exists():
    BANQI = shutil.which("banqi") or "banqi"
ENGINE = str(Path(sys.executable).with_name("banqi-engine"))
LAYOUT = "KGGM/MRRN/NCCP/PPPP/kggm/mrrn/nccp/pppp"


def invoke(*args: str) -> Result:
    result = CliRunner().invoke(cli, list(args))
    assert "Traceback" not in result.output, result.output
    return result


def play(out: Path, book: Path | None, games: int, *extra: str) -> None:
    """A match of two greedy engines (``banqi-engine --level 1``) started by path."""
    args = [
        "match",
        f"a={ENGINE} --level 1 --seed 1",
        f"b={ENGINE} --level 1 --seed 2",
        "--games",
        str(games),
        "--time",
        "60",
        "--sandbox",
        "off",
        "--seed",
        "4",
        "--out",
        str(out),
        *extra,
    ]
    if book is not None:
        args += ["--deals", str(book)]
    done = subprocess.run([BANQI, *args], capture_output=True, text=True, timeout=240, check=False)
    assert done.returncode == 0, done.stdout + done.stderr


def records(out: Path, games: int) -> list[GameRecord]:
    return [read_record(record_path(out, f"g{n:04d}")) for n in range(1, games + 1)]


def hidden_after(record: GameRecord, plies: int) -> int:
    """How many pieces are face down after the first ``plies`` plies of the record."""
    assert record.layout is not None
    layout = parse_layout(record.layout)
    game = Game(record.rules)
    for ply in record.plies[:plies]:
        move = parse_ply(ply.move).move
        game.play(move, game.piece_shown(move, layout))
    return bin(game.position.hidden).count("1")


@pytest.fixture(scope="module")
def earlier(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A run folder of four finished games to cut openings from."""
    out = tmp_path_factory.mktemp("earlier") / "run"
    play(out, None, 4)
    return out


def test_a_book_cut_at_the_last_flip_replays_each_endgame_from_both_sides(
    earlier: Path, tmp_path: Path
) -> None:
    book = tmp_path / "endgames.json"
    result = invoke("deals", "--from", str(earlier), "--out", str(book), "--count", "2")
    assert result.exit_code == 0, result.output
    assert result.output.startswith(f"deal book {book}: 2 deals cut at the last flip from 4 ")
    entries = read_deal_book(book).book.deals
    sources = records(earlier, 4)
    for entry, source in zip(entries, sources, strict=False):
        assert entry.opening is not None
        assert entry.layout == source.layout and entry.secret == source.deal_secret
        assert entry.opening == [p.move for p in source.plies[: len(entry.opening)]]
        cut = len(entry.opening)
        assert hidden_after(source, cut) == 0 < hidden_after(source, cut - 1)

    out = tmp_path / "run"
    play(out, book, 4, "--log-traffic")
    played = records(out, 4)
    for number, record in enumerate(played):
        opening = entries[number // 2].opening
        assert opening is not None
        assert record.opening_plies == len(opening)
        assert [p.move for p in record.plies[: len(opening)]] == opening
        assert all(p.ms == 0 for p in record.plies[: len(opening)])
        assert len(record.plies) > len(opening)  # the endgame was played on
        assert replay_game_record(record).ok
        # each seat plays the same side in a pair's games, seats swapped: colours follow
        first_mover = record.players[record.first].name
        assert first_mover == ("a" if number % 2 == 0 else "b")
        # no time was charged for the opening, and nothing of it counts as played
        assert record.plies[len(opening) - 1].clocks_ms == (60_000, 60_000)
        material = game_material(record)
        assert material.taken[Phase.FACE_DOWN] == (0.0, 0.0)
        assert sum(material.opening_taken) > 0
    assert played[0].players[played[0].first].colour == played[1].players[played[1].first].colour
    transcript = (out / "games" / "g0001.dctp.log").read_text(encoding="utf-8")
    before = transcript[: transcript.index("genmove")].splitlines()
    for seat in "ab":  # both engines are told every ply of the opening, in order
        told = (re.search(rf"\[{seat}\] > 1[01] (?:move|flip) (.+)$", line) for line in before)
        plies = [found[1] for found in told if found]
        opening = entries[0].opening
        assert opening is not None
        assert len(plies) == len(opening)
        assert plies[-1] == f"{opening[-1][:2]} {opening[-1][3]}"  # the last flip: c5 K


def test_a_book_cut_at_a_ply_count_leaves_out_games_ended_by_then(
    earlier: Path, tmp_path: Path
) -> None:
    sources = records(earlier, 4)
    shortest = min(len(r.plies) for r in sources)
    book = tmp_path / "b.json"
    result = invoke("deals", "--from", str(earlier), "--at", str(shortest), "--out", str(book))
    assert result.exit_code == 0, result.output
    ended = sum(len(r.plies) == shortest for r in sources)
    assert f"from 4 records of 1 run folder ({ended} ended by then)" in result.output
    entries = read_deal_book(book).book.deals
    assert all(e.opening is not None and len(e.opening) == shortest for e in entries)
    assert len(entries) == sum(len(r.plies) > shortest for r in sources)
    assert opening_of(sources[0], len(sources[0].plies)) is None


def refusal(tmp_path: Path, opening: list[str]) -> str:
    """What a match dealt from a one-entry book with ``opening`` says; nothing is made."""
    book = tmp_path / "b.json"
    book.write_text(json.dumps({"deals": [{"layout": LAYOUT, "opening": opening}]}))
    out = tmp_path / "run"
    result = invoke(
        "match", "./no-a", "./no-b", "--deals", str(book), "--out", str(out), "--sandbox", "off"
    )
    assert result.exit_code == 1
    assert not out.exists()
    error = result.output.splitlines()[-1]
    prefix = (
        f"Error: the deal book {book} cannot be played under the rule set 'olympiad': "
        "deals[0].opening: "
    )
    assert error.startswith(prefix), result.output
    return error.removeprefix(prefix)


def test_an_opening_the_rules_do_not_allow_stops_the_run_before_any_game(tmp_path: Path) -> None:
    assert refusal(tmp_path, ["a8(K)", "d1(p)", "a8-a6"]).startswith(
        "ply 3 (a8-a6): illegal move a8-a6: a6 is face down"
    )
    assert refusal(tmp_path, ["a8(G)"]) == (
        "ply 1 (a8(G)): it shows 'G', but the layout holds 'K' at a8"
    )


def test_an_opening_that_ends_the_game_is_refused(earlier: Path, tmp_path: Path) -> None:
    whole = records(earlier, 1)[0]
    book = tmp_path / "b.json"
    entry = {"layout": whole.layout, "opening": [p.move for p in whole.plies]}
    book.write_text(json.dumps({"deals": [entry]}))
    out = str(tmp_path / "run")
    result = invoke("match", "./no-a", "./no-b", "--deals", str(book), "--out", out)
    assert result.exit_code == 1
    last = whole.plies[-1].move
    assert (
        f"deals[0].opening: ply {len(whole.plies)} ({last}) ends the game ({whole.result}): "
        "an opening must leave a game to play\n"
    ) in result.output


def test_a_flip_without_its_piece_takes_the_layouts(tmp_path: Path) -> None:
    book = tmp_path / "b.json"
    book.write_text(json.dumps({"deals": [{"layout": LAYOUT, "opening": ["a8", "d1"]}]}))
    out = tmp_path / "run"
    play(out, book, 2)
    assert [p.move for p in records(out, 1)[0].plies[:2]] == ["a8(K)", "d1(p)"]


def test_an_opening_that_does_not_read_is_refused_naming_the_ply(tmp_path: Path) -> None:
    book = tmp_path / "b.json"
    book.write_text(json.dumps({"deals": [{"layout": LAYOUT, "opening": ["a8(K)", "a9"]}]}))
    with pytest.raises(DealBookError, match=r"deals\[0\]\.opening: ply 2: bad move 'a9'"):
        read_deal_book(book)


def test_deals_from_says_what_is_wrong(earlier: Path, tmp_path: Path) -> None:
    out = str(tmp_path / "b.json")
    both = invoke("deals", "--from", str(earlier), "--seed", "1", "--out", out)
    assert both.exit_code == 2
    assert "--seed makes a book from the referee key: leave it out with --from" in both.output
    neither = invoke("deals", "--out", out)
    assert neither.exit_code == 2
    assert "give --count (how many deals to write), or --from RUN_FOLDER" in neither.output
    for bad in ("0", "first-flip", "-3"):
        refused = invoke("deals", "--from", str(earlier), "--at", bad, "--out", out)
        assert refused.exit_code == 2
        assert "is neither last-flip nor a number of plies (1 or more)" in refused.output
    empty = tmp_path / "empty"
    empty.mkdir()
    missing = invoke("deals", "--from", str(empty), "--out", out)
    assert missing.exit_code == 1
    assert "holds no game records" in missing.output
    late = invoke("deals", "--from", str(earlier), "--at", "100000", "--out", out)
    assert late.exit_code == 1
    assert late.output == (
        "Error: no record goes on past ply 100000 (4 ended by then, 0 withheld): nothing to write\n"
    )
    assert not Path(out).exists()


def test_an_opening_longer_than_an_entry_holds_is_refused(
    earlier: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(referee.records_book, "MAX_OPENING_PLIES", 3)
    out = tmp_path / "b.json"
    refused = invoke("deals", "--from", str(earlier), "--at", "5", "--out", str(out))
    assert refused.exit_code == 1
    assert refused.output == (
        "Error: record g0001 cut at ply 5 gives an opening of 5 plies; a book entry holds at "
        "most 3: cut earlier\n"
    )
    assert not out.exists()


TUNE_PARAMS = "[safe_factor]\nvalue = 1.2\nmin = 1.0\nmax = 2.0\nc_end = 0.05\nr_end = 0.5\n"
"""One parameter, as ``banqi tune --write-params`` writes each."""


def first_told(transcript: Path) -> list[str]:
    """The plies the engine of seat ``plus`` was told before its first genmove."""
    text = transcript.read_text(encoding="utf-8")
    before = text[: text.index("genmove")].splitlines()
    found = (re.search(r"\[plus\] > 1[01] (?:move|flip) (.+)$", line) for line in before)
    return [ply[1] for ply in found if ply]


def test_a_tuning_run_plays_the_books_openings_in_turn(tmp_path: Path) -> None:
    params = tmp_path / "params.toml"
    params.write_text(TUNE_PARAMS)
    openings = [["a8(K)", "d1(p)"], ["d1(p)", "a8(K)", "d8(M)"]]
    book = tmp_path / "b.json"
    book.write_text(json.dumps({"deals": [{"layout": LAYOUT, "opening": o} for o in openings]}))
    out = tmp_path / "run"
    args = ["tune", str(params), "--iterations", "3", "--rules", "casual", "--move-time", "0.02"]
    args += ["--sandbox", "off", "--seed", "5", "--log-traffic", "--deals", str(book)]
    done = invoke(*args, "--out", str(out))
    assert done.exit_code == 0, done.output
    told = {path.name: first_told(path) for path in sorted((out / "traffic").glob("i*-1.dctp.log"))}
    assert told == {
        "i000001-1.dctp.log": ["a8 K", "d1 p"],
        "i000002-1.dctp.log": ["d1 p", "a8 K", "d8 M"],
        "i000003-1.dctp.log": ["a8 K", "d1 p"],
    }
    other = tmp_path / "other.json"
    other.write_text(json.dumps({"deals": [{"layout": LAYOUT}]}))
    resumed = invoke(*args[:-1], str(other), "--out", str(out))
    assert resumed.exit_code == 1
    assert "is a different book" in resumed.output
    illegal = tmp_path / "illegal.json"
    illegal.write_text(json.dumps({"deals": [{"layout": LAYOUT, "opening": ["a8(K)", "a8-a6"]}]}))
    refused = invoke(*args[:-1], str(illegal), "--out", str(tmp_path / "new"))
    assert refused.exit_code == 1
    assert "deals[0].opening: ply 2 (a8-a6): illegal move a8-a6" in refused.output
    assert not (tmp_path / "new").exists()
