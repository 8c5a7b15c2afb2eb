from banqi_engine.perft import perft
from banqi_engine.position import OPENING, parse_position
from banqi_engine.rules import PRESETS


def test_opening_perft_two_plies() -> None:
    assert perft(parse_position(OPENING), PRESETS["olympiad"], 2) == 192448
