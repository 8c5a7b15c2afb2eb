"""Position strings refuse what no game can reach: a side to move before the first flip,
an empty board, more pieces of a kind than a set has, counts longer than any game; each
a one-line error naming the field, from ``banqi perft`` too."""

import pytest
from click.testing import CliRunner

from banqi_cli.main import cli
from banqi_engine.errors import PositionError
from banqi_engine.position import OPENING, longest_game, parse_position
from banqi_engine.rules import MAX_NO_PROGRESS_LIMIT, PRESETS

EMPTY = "/".join(["----"] * 8)
KINGS = "K---/----/----/----/----/----/----/---k"
HIDDEN = "/".join(["XXXX"] * 8)


def refused(text: str, field: str, **rules: str) -> str:
    rule_set = PRESETS[rules["rules"]] if rules else None
    with pytest.raises(PositionError) as caught:
        parse_position(text, rule_set)
    message = str(caught.value)
    assert message.startswith(f"{field}: ")
    assert "\n" not in message
    return message


@pytest.mark.parametrize("side", ["r", "b"])
def test_no_side_moves_before_the_first_flip(side: str) -> None:
    message = refused(f"{HIDDEN} {side} 12222251222225", "side")
    assert "no piece is face up" in message
    assert parse_position(OPENING).side == parse_position(f"{HIDDEN} - 12222251222225").side


@pytest.mark.parametrize("side", ["r", "b", "-"])
def test_an_empty_board_is_refused(side: str) -> None:
    assert "every square is empty" in refused(f"{EMPTY} {side} 00000000000000", "board")


def test_more_pieces_of_a_kind_than_a_set_has_are_refused() -> None:
    board = "KK--/----/----/----/----/----/----/---k"
    assert "more than a set has (1)" in refused(f"{board} r 00000000000000", "pool")
    assert "more than a set has" in refused(
        "XK--/----/----/----/----/----/----/---k r 10000000000000", "pool"
    )


def test_no_progress_is_bounded_by_the_rule_set() -> None:
    limit = PRESETS["casual"].no_progress_limit
    assert parse_position(f"{KINGS} r 00000000000000 {limit}", PRESETS["casual"])
    message = refused(f"{KINGS} r 00000000000000 {limit + 1}", "no-progress plies", rules="casual")
    assert f"more than {limit}" in message
    assert parse_position(f"{KINGS} r 00000000000000 {limit + 1}")  # within any rule set's


def test_a_huge_count_is_refused_and_quoted_short() -> None:
    huge = "9" * 200
    message = refused(f"{KINGS} r 00000000000000 {huge}", "no-progress plies")
    assert f"more than {MAX_NO_PROGRESS_LIMIT}" in message
    assert len(message) < 200


def test_the_ply_number_is_bounded_by_the_longest_game() -> None:
    most = longest_game(PRESETS["olympiad"].no_progress_limit)
    assert parse_position(f"{KINGS} r 00000000000000 0 {most}", PRESETS["olympiad"])
    message = refused(f"{KINGS} r 00000000000000 0 {most + 1}", "ply number", rules="olympiad")
    assert f"more than {most}" in message


def test_the_longest_game_counts_every_stretch_without_progress() -> None:
    # 32 flips and 31 captures, each after a full stretch without progress, and one after
    assert longest_game(10) == 64 * 10 + 63


@pytest.mark.parametrize(
    ("position", "words"),
    [
        (f"{HIDDEN} r 12222251222225", "side: 'r' to move but no piece is face up"),
        (f"{EMPTY} - 00000000000000", "board: every square is empty"),
        (f"{KINGS} r 00000000000000 99999999999999999999", "no-progress plies: 999"),
    ],
)
def test_perft_refuses_them_in_one_line(position: str, words: str) -> None:
    result = CliRunner().invoke(cli, ["perft", "--", position, "1"])
    assert result.exit_code != 0
    [line] = result.output.strip().splitlines()
    assert line.startswith("Error: bad POSITION: ")
    assert words in line
