"""``banqi sprt`` as a user runs it, with real ``banqi-engine`` processes: its lines, files
and verdict, resuming (also after SIGKILL), Ctrl-C, and the settings it refuses."""

import re
import shlex
import signal
import subprocess
from pathlib import Path

import pytest
from click.testing import CliRunner
from processes import script, wait_for

from banqi_cli.main import cli
from banqi_cli.sprt_lines import pair_line, verdict_line
from referee.record import GameRecord, read_record
from referee.storage import GAMES_DIR
from tournaments.from_records import head_to_head_from_records
from tournaments.sprt import SprtStatus, SprtTest, Verdict
from tournaments.sprt_run import CHART_FILE, SPRT, STATUS_FILE

PAIR_LINE = re.compile(
    r"pair (\d+) \((\d+) games\): W-D-L (\d+)-(\d+)-(\d+), pairs \[([\d, ]+)\], "
    r"Elo (\S+(?: ± \S+)?), nElo (\S+(?: ± \S+)?), LLR (-?\d+\.\d\d) \(-2\.94, 2\.94\)"
)


ENGINE = shlex.quote(script("banqi-engine"))


def sprt_args(out: Path, *more: str, max_games: int | None = 6) -> list[str]:
    """Level 1 against level 0 under the casual rules (short games), 2 at once."""
    limit = [] if max_games is None else ["--max-games", str(max_games)]
    return [
        "sprt",
        f"new={ENGINE} --level 1",
        f"base={ENGINE} --level 0",
        *("--rules", "casual", *limit, "--concurrency", "2", "--seed", "3"),
        *("--out", str(out), *more),
    ]


def records_in(out: Path) -> dict[str, GameRecord]:
    return {p.stem: read_record(p) for p in sorted((out / GAMES_DIR).glob("*.json"))}


def pair_numbers(output: str) -> list[int]:
    return [int(found.group(1)) for found in PAIR_LINE.finditer(output)]


def check_status(out: Path, pairs: int) -> SprtStatus:
    """``sprt.json`` says what the records of its first ``pairs`` pairs say, pair by pair."""
    status = SprtStatus.model_validate_json((out / STATUS_FILE).read_text())
    records = records_in(out)
    counted = [records[f"g{index:06d}"] for index in range(1, 2 * pairs + 1)]
    stats = head_to_head_from_records(counted, "new", "base")
    assert (status.games, status.pairs) == (2 * pairs, pairs)
    assert (status.wins, status.draws, status.losses) == (stats.wins, stats.draws, stats.losses)
    assert status.pentanomial == stats.pentanomial
    assert status.llr == SprtTest().llr(stats.pentanomial)
    assert (status.elo, status.elo_error) == (stats.penta_elo, stats.penta_elo_error)
    assert [point.games for point in status.history] == list(range(2, 2 * pairs + 1, 2))
    assert status.history[-1].llr == status.llr
    html = (out / CHART_FILE).read_text()
    llr_path = re.search(r'<path id="llr" [^>]*d="([^"]*)"', html)
    assert llr_path is not None
    assert len(re.findall(r"[ML]\d", llr_path.group(1))) == pairs
    return status


def test_a_line_per_pair_the_files_the_verdict_and_the_same_command_again(
    tmp_path: Path,
) -> None:
    out = tmp_path / "run"
    first = CliRunner().invoke(cli, sprt_args(out))
    assert first.exit_code == 0, first.output
    lines = first.output.splitlines()
    assert lines[0].startswith(
        "sprt: new vs base, H0 nElo = 0 against H1 nElo = 5 (normalized Elo), alpha 0.05, "
        "beta 0.05, LLR bounds (-2.94, 2.94); at most 6 games, rules casual"
    )
    status = check_status(out, 3)
    records = records_in(out)
    assert pair_numbers(first.output) == [1, 2, 3]
    for found in PAIR_LINE.finditer(first.output):
        pair = int(found.group(1))
        stats = head_to_head_from_records(
            [records[f"g{index:06d}"] for index in range(1, 2 * pair + 1)], "new", "base"
        )
        assert int(found.group(2)) == 2 * pair
        assert tuple(map(int, found.group(3, 4, 5))) == (stats.wins, stats.draws, stats.losses)
        assert [int(n) for n in found.group(6).split(", ")] == list(stats.pentanomial)
        assert found.group(9) == f"{SprtTest().llr(stats.pentanomial):.2f}"
        if stats.penta_elo is not None:
            assert found.group(7).startswith(f"{stats.penta_elo:+.1f} ± ")
    assert lines[-2] == f"sprt.json and sprt.html in {out}"
    assert lines[-1] == (
        f"inconclusive: neither bound reached after 6 games (LLR {status.llr:.2f}, bounds "
        "-2.94 and 2.94); a larger --max-games goes on"
    )

    again = CliRunner().invoke(cli, sprt_args(out))
    assert again.exit_code == 0, again.output
    assert "finished with 3 pairs counted" in again.output
    assert pair_numbers(again.output) == [3]
    assert again.output.splitlines()[-1] == lines[-1]
    assert records_in(out) == records

    longer = CliRunner().invoke(cli, sprt_args(out, max_games=8))
    assert longer.exit_code == 0, longer.output
    assert "resuming with 3 pairs counted" in longer.output
    assert pair_numbers(longer.output) == [4]
    assert "inconclusive: neither bound reached after 8 games" in longer.output
    check_status(out, 4)
    saved = SPRT.read(out)
    assert saved is not None and saved.config.max_games == 8

    for change, words in [
        (["--max-games", "6"], "--max-games may grow but not shrink (now 6)"),
        (["--elo1", "10"], "test.elo1: was 5.0, now 10.0"),
        (["--model", "logistic"], "test.model: was 'normalized', now 'logistic'"),
        (["--time", "60"], "time_control.time: was 900.0, now 60.0"),
    ]:
        refused = CliRunner().invoke(cli, sprt_args(out, *change, max_games=None))
        assert refused.exit_code == 1, refused.output
        assert words in refused.output
        assert "Traceback" not in refused.output


def children(pid: int) -> list[int]:
    found = []
    for entry in Path("/proc").iterdir():
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        if entry.name.isdigit() and int(stat[stat.rindex(")") + 2 :].split()[1]) == pid:
            found.append(int(entry.name))
    return found


def test_killed_with_sigkill_then_run_again_loses_and_doubles_no_pair(tmp_path: Path) -> None:
    out = tmp_path / "run"
    command = [script("banqi"), *sprt_args(out, max_games=10)]
    with (tmp_path / "first.log").open("w") as log:
        first = subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT, text=True)
    try:
        wait_for(
            "three records while games are being played",
            lambda: len(list((out / GAMES_DIR).glob("*.json"))) >= 3 and bool(children(first.pid)),
        )
    finally:
        first.send_signal(signal.SIGKILL)
        first.wait(timeout=10)
    assert len(records_in(out)) < 10

    second = subprocess.run(command, capture_output=True, text=True, timeout=120)
    assert second.returncode == 0, second.stdout + second.stderr
    resumed = re.search(r"resuming with (\d+) pairs? counted", second.stdout)
    assert resumed is not None, second.stdout
    before = int(resumed.group(1))
    printed_first = pair_numbers((tmp_path / "first.log").read_text())
    assert printed_first == list(range(1, len(printed_first) + 1))
    assert len(printed_first) <= before
    assert pair_numbers(second.stdout) == list(range(before + 1, 6))
    assert second.stdout.splitlines()[-1].startswith(
        "inconclusive: neither bound reached after 10 games"
    )
    records = records_in(out)
    assert list(records) == [f"g{index:06d}" for index in range(1, 11)]
    assert not [game_id for game_id, record in records.items() if record.withheld]
    status = check_status(out, 5)
    assert sum(status.pentanomial) == 5
    assert [p for p in [*out.glob(".*"), *(out / GAMES_DIR).glob(".*")] if p.suffix == ".tmp"] == []


def default_sigint() -> None:
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def test_ctrl_c_stops_with_one_line_and_status_130(tmp_path: Path) -> None:
    out = tmp_path / "run"
    process = subprocess.Popen(
        [script("banqi"), *sprt_args(out, max_games=20)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=default_sigint,
    )
    try:
        wait_for(
            "a record while games are being played",
            lambda: any((out / GAMES_DIR).glob("*.json")) and bool(children(process.pid)),
        )
        process.send_signal(signal.SIGINT)
        stdout, stderr = process.communicate(timeout=20)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    assert process.returncode == 130
    assert "Traceback" not in stdout + stderr
    complaints = [line for line in stderr.splitlines() if not line.startswith("sandbox: ")]
    assert len(complaints) == 1, stderr
    assert re.fullmatch(
        rf"interrupted: (\d+) pairs? counted \(\d+ games\), LLR -?\d+\.\d\d; records in "
        rf"{re.escape(str(out))}; run the same command to resume",
        complaints[0],
    )
    assert "accepted" not in stdout and "inconclusive" not in stdout


@pytest.mark.parametrize(
    ("change", "status", "words"),
    [
        (["--max-games", "7"], 2, "7 is odd: games come in pairs"),
        (["--elo0", "5"], 1, "Error: elo0 (5) must be less than elo1 (5)"),
        (["--alpha", "1"], 2, "'--alpha'"),
        (["--elo1", "201"], 2, "'--elo1'"),
        (["--alpha", "0.5", "--beta", "0.5"], 1, "Error: alpha + beta (0.5 + 0.5) must be below 1"),
    ],
)
def test_bad_options_fail_with_one_error(
    tmp_path: Path, change: list[str], status: int, words: str
) -> None:
    result = CliRunner().invoke(cli, [*sprt_args(tmp_path / "run"), *change])
    assert result.exit_code == status, result.output
    assert words in result.output
    assert not (tmp_path / "run").exists()


def test_the_help_names_the_elo_model() -> None:
    result = CliRunner().invoke(cli, ["sprt", "--help"])
    assert result.exit_code == 0
    assert "normalized" in result.output and "fastchess" in result.output
    assert "[default: 5.0;" in result.output


def status_of(test: SprtTest, llr: float, verdict: Verdict | None) -> SprtStatus:
    """A test after 11 pairs, 2 games of them void, with these figures."""
    return SprtStatus(
        new="new",
        base="base",
        test=test,
        lower_bound=test.lower_bound,
        upper_bound=test.upper_bound,
        max_games=40,
        games=22,
        pairs=11,
        wins=12,
        draws=5,
        losses=3,
        void=2,
        pentanomial=(0, 1, 2, 3, 4),
        llr=llr,
        elo=120.04,
        elo_error=80.0,
        nelo=150.0,
        nelo_error=None,
        verdict=verdict,
        history=[],
    )


@pytest.mark.parametrize(
    ("elo0", "elo1", "llr", "verdict", "words"),
    [
        (0, 5, 3.0, Verdict.H1, "H1 accepted: new is stronger than base (LLR 3.00 >= 2.94"),
        (2, 5, 3.0, Verdict.H1, "H1 accepted: new is more than 2 nElo stronger than base"),
        (-5, 0, 3.0, Verdict.H1, "H1 accepted: new is less than 5 nElo weaker than base"),
        (0, 5, -3.0, Verdict.H0, "H0 accepted: new is less than 5 nElo stronger than base"),
        (-5, 0, -3.0, Verdict.H0, "H0 accepted: new is not stronger than base (LLR -3.00 <="),
        (-9, -5, -3.0, Verdict.H0, "H0 accepted: new is more than 5 nElo weaker than base"),
        (0, 5, 1.0, Verdict.INCONCLUSIVE, "inconclusive: neither bound reached after 22 games"),
    ],
)
def test_the_verdict_says_what_was_accepted(
    elo0: float, elo1: float, llr: float, verdict: Verdict, words: str
) -> None:
    assert verdict_line(status_of(SprtTest(elo0=elo0, elo1=elo1), llr, verdict)).startswith(words)


def test_a_pair_line_counts_void_games_and_writes_estimates_as_the_reports_do() -> None:
    assert pair_line(status_of(SprtTest(), 0.5, None)) == (
        "pair 11 (22 games (2 void)): W-D-L 12-5-3, pairs [0, 1, 2, 3, 4], Elo +120.0 ± 80.0, "
        "nElo +150.0 ± inf, LLR 0.50 (-2.94, 2.94)"
    )
