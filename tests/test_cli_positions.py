"""Position strings on the command line: one may start with ``-`` (an empty square), and
every position the README shows can be pasted into ``banqi perft`` as it is."""

import re
from pathlib import Path

import pytest
from click.testing import CliRunner

from banqi_cli.main import cli
from banqi_engine.speed_bench import BENCH_POSITIONS

README = Path(__file__).resolve().parent.parent / "README.md"
DASHED = "-M-P/GX-c/P---/-X--/-X-N/n-X-/-gXM/RX-- b 01000100001111"
TWO_DASHES = "--X-/XXXX/XXXX/XXXX/XXXX/XXXX/XXXX/XXXX - 12222231222224"
OPENING = "XXXX/XXXX/XXXX/XXXX/XXXX/XXXX/XXXX/XXXX - 12222251222225"


def perft(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(cli, ["perft", *args])
    return result.exit_code, result.output


@pytest.mark.parametrize(
    "args",
    [
        [DASHED, "2", "--rules", "taiwan-sliding-cannon"],
        ["--rules", "taiwan-sliding-cannon", DASHED, "2"],
        ["--rules=taiwan-sliding-cannon", "--divide", DASHED, "2"],
        ["--rules", "taiwan-sliding-cannon", "--", DASHED, "2"],
    ],
)
def test_a_position_may_start_with_a_dash_anywhere_on_the_line(args: list[str]) -> None:
    code, output = perft(*args)
    assert code == 0, output
    assert output.splitlines()[-1] == "1864"


def test_a_position_may_start_with_two_dashes() -> None:
    code, output = perft(TWO_DASHES, "1")
    assert code == 0, output
    assert output.splitlines()[-1] == str(29 * 14)


def test_a_bad_position_starting_with_a_dash_is_a_bad_position() -> None:
    code, output = perft("-M-P/GX-c b 01000100001111", "1")
    assert code == 1
    assert output.startswith("Error: bad POSITION: board: expected 8 ranks")


def test_options_are_still_options() -> None:
    code, output = perft(OPENING, "1", "--dvide")
    assert code == 2
    assert "No such option: --dvide" in output or "No such option '--dvide'" in output
    code, output = perft(OPENING, "-1")  # a negative depth is out of range, not an option
    assert code == 2
    assert "Invalid value for 'DEPTH': -1 is not in the range" in output


def readme_positions() -> list[tuple[str, str]]:
    """Every position string in the README, with the rule set named on its line."""
    text = README.read_text(encoding="utf-8")
    found = []
    for line in text.splitlines():
        for match in re.finditer(r"[-A-Za-z]{4}(?:/[-A-Za-z]{4}){7}[^`\"|]*", line):
            rules = next(
                (r for r in ("hong-kong", "taiwan-sliding-cannon", "casual") if r in line),
                "olympiad",
            )
            found.append((match.group().strip(), rules))
    return found


def test_the_readme_shows_only_whole_positions() -> None:
    positions = readme_positions()
    assert len(positions) >= 14
    bench = {(entry.position, entry.rules) for entry in BENCH_POSITIONS}
    assert bench <= set(positions)
    for position, _ in positions:
        assert len(position.split()) >= 3, position


@pytest.mark.parametrize(("position", "rules"), sorted(set(readme_positions())))
def test_every_readme_position_runs_in_perft(position: str, rules: str) -> None:
    code, output = perft(position, "1", "--rules", rules)
    assert code == 0, output
    assert int(output.splitlines()[-1]) > 0
