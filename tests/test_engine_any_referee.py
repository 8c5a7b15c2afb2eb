"""Our engine under a referee that judges by other draw rules: the referee decides when the
game ends, so the engine keeps tracking echoes and answering genmove past its own draws.

The NTU 2019 platform played on past a threefold repetition the engine had counted at
ply 140, and the engine answered ``?10`` and ``?12`` from then on.
"""

import io
from itertools import cycle, islice

import pytest

from banqi_engine.game import BoardEnd, Game
from banqi_engine.players import make_player
from banqi_engine.position import parse_position
from banqi_engine.rules import MAX_NO_PROGRESS_LIMIT, PRESETS
from banqi_engine.search_player import SearchPlayer, search_rules
from banqi_engine.squares import square_name
from protocol.engine_loop import DctpEngine
from protocol.messages import parse_genmove_payload

OLYMPIAD = PRESETS["olympiad"]
KINGS_APART = "---k/----/----/----/----/----/----/K--- r 00000000000000"
SHUFFLE = ["10 move a1 a2", "10 move d8 d7", "10 move a2 a1", "10 move d7 d8"]
"""Both kings step out and back: the start position comes back every four plies."""
WALK = ["a1-b1", "d8-c8", "b1-c1", "c8-b8", "c1-d1", "b8-a8", "d1-d2", "a8-a7", "d2-d3", "a7-a6"]
"""Then both kings walk to squares they have not stood on: no position repeats."""
TRANSCRIPT = [*islice(cycle(SHUFFLE), 176), *(f"10 move {m[:2]} {m[3:]}" for m in WALK)]
"""186 quiet plies: a threefold repetition at ply 8, the 180-ply limit at ply 180."""


def answer(engine: DctpEngine, line: str) -> str:
    reply = engine.handle_line(line)
    assert reply is not None, line
    assert reply.ok, (line, reply)
    return reply.payload


@pytest.mark.parametrize("level", [0, 1, 3])
def test_play_goes_on_past_a_threefold_repetition_and_the_no_progress_limit(level: int) -> None:
    engine = DctpEngine(OLYMPIAD, make_player(level, 5, OLYMPIAD), board_stream=io.StringIO())
    answer(engine, "7 reset_board")
    answer(engine, "15 time_settings 300")  # a hundredth of a second a move for the search
    answer(engine, "18 init_board " + KINGS_APART)
    ends = []
    for ply, echo in enumerate(TRANSCRIPT, start=1):
        side = "red" if ply % 2 else "black"
        if level < 3 or ply % 20 in (1, 2) or ply > 176:
            move = parse_genmove_payload(answer(engine, f"12 genmove {side}")).move
            assert move in engine.game.legal_moves(), ply
        answer(engine, echo)
        answer(engine, f"16 time_left {side} 300")
        if engine.game.outcome is not None and engine.game.outcome.reason not in ends:
            ends.append(engine.game.outcome.reason)
    assert engine.game.position.no_progress == len(engine.game.plies) == 186
    assert ends == [BoardEnd.THREEFOLD_REPETITION, BoardEnd.NO_PROGRESS]


def test_an_illegal_echo_is_still_refused_past_the_engine_s_own_draw() -> None:
    engine = DctpEngine(OLYMPIAD, make_player(1, 0, OLYMPIAD))
    answer(engine, f"18 init_board {KINGS_APART} 179 300")
    answer(engine, "10 move a1 a2")
    assert engine.game.outcome is not None
    reply = engine.handle_line("10 move d8 b8")
    assert reply is not None and not reply.ok and reply.id == 10
    assert "k cannot go from d8 to b8" in reply.payload
    assert engine.game.position.board_field() == "---k/----/----/----/----/----/K---/----"


HANGING_ROOK = "---P/----/----/----/----/k---/R---/---- r 00000000000000 200 300"
"""Past the Olympiad no-progress limit: the red rook beside the black king must step away."""


def test_past_its_own_no_progress_limit_the_search_still_plays_for_material() -> None:
    game = Game(OLYMPIAD, parse_position(HANGING_ROOK), play_past_end=True)
    assert game.outcome is not None and game.outcome.reason is BoardEnd.NO_PROGRESS
    assert search_rules(game).no_progress_limit == MAX_NO_PROGRESS_LIMIT
    rook_moves = {"a2 a1", "a2 b2"}
    for seed in range(8):
        player = SearchPlayer(OLYMPIAD, seed, max_depth=3)
        move = player.choose(game, None)
        assert player.searcher.rules.no_progress_limit == MAX_NO_PROGRESS_LIMIT
        assert f"{square_name(move >> 5)} {square_name(move & 31)}" in rook_moves, seed
