"""Position strings and move strings: round trips, and every malformed input refused."""

import pytest

from banqi_engine.errors import MoveError, PositionError
from banqi_engine.notation import Ply, format_flip, format_move, parse_ply
from banqi_engine.pieces import BLACK, EMPTY, HIDDEN, RED, UNDECIDED
from banqi_engine.position import parse_position

OPENING = "XXXX/XXXX/XXXX/XXXX/XXXX/XXXX/XXXX/XXXX - 12222251222225"
FULL = [
    "XXXX/XXXX/XXXX/XXXX/XXXX/XXXX/XXXX/XXXX - 12222251222225 0 0",
    "XpXn/XpG-/Xn-X/XXX-/XX-P/-XK-/NXXX/C--C b 01220021111012 3 21",
    "nM--/----/kg--/---c/prgp/-X--/-r--/Xm-m b 00001000000001 17 140",
    "N-PX/----/XK--/--R-/X--X/n-XX/XkXX/G-XC r 00010110120013 0 9",
    "-M-P/GX-c/P---/-X--/-X-N/n-X-/-gXM/RX-- b 01000100001111 1000 123456",
    "KGGM/MRRN/NCCP/PPPP/kggm/mrrn/nccp/pppp r 00000000000000 0 0",
    "----/----/----/----/----/----/----/---c b 00000000000000 0 0",
]


@pytest.mark.parametrize("text", FULL)
def test_round_trip(text: str) -> None:
    pos = parse_position(text)
    assert pos.to_string() == text
    assert parse_position(pos.to_string()).hash == pos.hash


def test_defaults_of_the_counters() -> None:
    assert parse_position(OPENING).to_string() == OPENING + " 0 0"
    assert parse_position(OPENING + " 7").to_string() == OPENING + " 7 0"


def test_squares_are_read_rank_eight_first_files_a_to_d() -> None:
    pos = parse_position("K---/----/----/----/----/----/----/X--p b 00000000000001 0 0")
    assert pos.board[28] == 0
    assert pos.board[0] == HIDDEN
    assert pos.board[3] == 7 + 6
    assert pos.board[1] == EMPTY
    assert pos.side == BLACK
    assert pos.pool == [0] * 13 + [1]
    assert parse_position(OPENING).side == UNDECIDED
    assert parse_position("----/----/----/----/----/----/----/---c r 00000000000000").side == RED


def board_of(ranks: list[str]) -> str:
    return "/".join(ranks)


EMPTY_BOARD = ["----"] * 8


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("XXXX/XXXX/XXXX/XXXX/XXXX/XXXX/XXXX - 12222251222225", ["board", "8 ranks"]),
        ("XXXX/XXXX/XXXX/XXXX/XXXX/XXXX/XXXX/XXXX/XXXX - 12222251222225", ["board", "8 ranks"]),
        ("XXXX/XXXX/XXXX/XXXX/XXX/XXXX/XXXX/XXXX - 12222251222225", ["board", "rank 4", "3"]),
        ("XXXX/XXXXX/XXXX/XXXX/XXXX/XXXX/XXXX/XXXX - 12222251222225", ["board", "rank 7", "5"]),
        ("XXXX/XXXX/XXXX/XXXX/XXXX/XXXX/XXXX/XXXZ - 12222251222225", ["board", "'Z'", "d1"]),
        ("XXXX/XXXX/XXXX/XXXX/XXXX/XXXX/XXXX/XXX. - 12222251222225", ["board", "'.'"]),
        ("XXXX/XXXX/XXXX/XXXX/XXXX/XXXX/XXXX/XXXX w 12222251222225", ["side", "'w'"]),
        ("XXXX/XXXX/XXXX/XXXX/XXXX/XXXX/XXXX/XXXX rb 12222251222225", ["side"]),
        ("XXXX/XXXX/XXXX/XXXX/XXXX/XXXX/XXXX/XXXX R 12222251222225", ["side"]),
        ("XXXX/XXXX/XXXX/XXXX/XXXX/XXXX/XXXX/XXXX - 1222225122222", ["pool", "14 digits"]),
        ("XXXX/XXXX/XXXX/XXXX/XXXX/XXXX/XXXX/XXXX - 122222512222250", ["pool", "14 digits"]),
        ("XXXX/XXXX/XXXX/XXXX/XXXX/XXXX/XXXX/XXXX - 1222225122222x", ["pool", "14 digits"]),
        ("XXXX/XXXX/XXXX/XXXX/XXXX/XXXX/XXXX/XXXX - 1222225122222²", ["pool", "14 digits"]),
        ("XXXX/XXXX/XXXX/XXXX/XXXX/XXXX/XXXX/XXXX - 12222251222224", ["pool", "31", "32"]),
        ("XXXX/XXXX/XXXX/XXXX/XXXX/XXXX/XXXX/XXX- - 12222251222225", ["pool", "32", "31"]),
        ("XXXX/XXXX/XXXX/XXXX/XXXX/XXXX/XXXX/XXXX - 22222251222224", ["pool", "'K'"]),
        ("XXXX/XXXX/XXXX/XXXX/XXXX/XXXX/XXXX/XXXX - 12222261222224", ["pool", "'P'"]),
        (board_of(["K---", "K---", *EMPTY_BOARD[2:]]) + " r 00000000000000", ["pool", "'K'"]),
        (board_of(["ppp-", "ppp-", *EMPTY_BOARD[2:]]) + " b 00000000000000", ["pool", "'p'"]),
        (board_of(["c---", *EMPTY_BOARD[1:7], "XX--"]) + " b 00000000000020", ["pool", "'c'"]),
        (board_of(["K---", *EMPTY_BOARD[1:]]) + " - 00000000000000", ["side", "'-'"]),
        ("XXXX/XXXX/XXXX/XXXX/XXXX/XXXX/XXXX/XXXX - 12222251222225 -1", ["no-progress"]),
        ("XXXX/XXXX/XXXX/XXXX/XXXX/XXXX/XXXX/XXXX - 12222251222225 x 0", ["no-progress"]),
        ("XXXX/XXXX/XXXX/XXXX/XXXX/XXXX/XXXX/XXXX - 12222251222225 1.5 0", ["no-progress"]),
        ("XXXX/XXXX/XXXX/XXXX/XXXX/XXXX/XXXX/XXXX - 12222251222225 ² 0", ["no-progress"]),
        ("XXXX/XXXX/XXXX/XXXX/XXXX/XXXX/XXXX/XXXX - 12222251222225 0 -3", ["ply"]),
        ("XXXX/XXXX/XXXX/XXXX/XXXX/XXXX/XXXX/XXXX - 12222251222225 0 ten", ["ply"]),
        ("XXXX/XXXX/XXXX/XXXX/XXXX/XXXX/XXXX/XXXX -", ["fields", "got 2"]),
        ("XXXX/XXXX/XXXX/XXXX/XXXX/XXXX/XXXX/XXXX - 12222251222225 0 0 0", ["fields", "got 6"]),
        ("", ["fields", "got 0"]),
    ],
)
def test_malformed_positions_are_refused_naming_the_field(text: str, words: list[str]) -> None:
    with pytest.raises(PositionError) as caught:
        parse_position(text)
    message = str(caught.value)
    for word in words:
        assert word in message, f"{word!r} not in {message!r}"


def test_a_full_face_up_set_plus_one_face_down_piece_is_refused() -> None:
    full = "KGGM/MRRN/NCCP/PPPP/kggm/mrrn/nccp/ppp"
    assert parse_position(f"{full}X r 00000000000001").pool[13] == 1
    with pytest.raises(PositionError, match=r"pool.*'K'"):
        parse_position(f"{full}X r 10000000000000")


# -- move strings --------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "move", "piece"),
    [
        ("a2-a3", 4 << 5 | 8, None),
        ("d8-c8", 31 << 5 | 30, None),
        ("a1-b1", 0 << 5 | 1, None),
        ("b6(K)", 21 * 33, 0),
        ("b6(p)", 21 * 33, 13),
        ("d1(c)", 3 * 33, 12),
        ("b6", 21 * 33, None),
        ("a1", 0, None),
        (" c3-c4 ", 10 << 5 | 14, None),
    ],
)
def test_parse_ply(text: str, move: int, piece: int | None) -> None:
    ply = parse_ply(text)
    assert ply == Ply(move, piece)
    assert str(ply) == text.strip()
    assert ply.is_flip == (move >> 5 == move & 31)


def test_format_move_and_flip() -> None:
    assert format_move(4 << 5 | 8) == "a2-a3"
    assert format_move(21 * 33) == "b6"
    assert format_flip(21, 0) == "b6(K)"
    assert format_flip(31, 7) == "d8(k)"


@pytest.mark.parametrize(
    "text",
    [
        "",
        "a2-a2",
        "a9-a8",
        "e2-e3",
        "a0-a1",
        "a2a3",
        "a2-",
        "-a3",
        "a2-a3-a4",
        "A2-A3",
        "b6(Z)",
        "b6()",
        "b6(KK)",
        "b6(K",
        "b6K)",
        "b66",
        "b",
        "x(K)",
        "b6(X)",
    ],
)
def test_bad_move_strings_are_refused(text: str) -> None:
    with pytest.raises(MoveError) as caught:
        parse_ply(text)
    assert "bad" in str(caught.value)
