"""The ``rule_set`` extension: our engine plays the rules it is told, and the referee tells
every engine what it can take, saying in the record when an engine was not told."""

import asyncio
import io
from pathlib import Path

import pytest
from in_process_engines import engine_spec, in_process
from referee_fakes import Fake, play, rule_set_fake, survivors, write_fake

from banqi_engine.players import make_player
from banqi_engine.rules import PRESETS, RuleSet
from banqi_engine.search_player import SearchPlayer
from protocol.engine_loop import DctpEngine
from protocol.messages import Reply, rule_set_payload
from referee.game_runner import play_game
from referee.game_setup import GameSetup
from referee.reasons import Reason
from referee.storage import traffic_path
from referee.timecontrol import TimeControl

OLYMPIAD = PRESETS["olympiad"]
HK = "hong-kong"
HONG_KONG = PRESETS[HK]
CANNON_NEXT_TO_PAWN = "----/----/----/----/----/----/----/Cp-- r 00000000000000"
"""A red cannon beside a black pawn: a step capture in Hong Kong rules only."""
JUMP_CAPTURE = "----/----/----/----/----/----/----/C-Pp r 00000000000000"
"""A red cannon that takes the black pawn over a screen: Olympiad rules only."""


def new_engine(level: int) -> DctpEngine:
    return DctpEngine(OLYMPIAD, make_player(level, 0, OLYMPIAD), board_stream=io.StringIO())


def ask(engine: DctpEngine, line: str) -> Reply:
    reply = engine.handle_line(line)
    assert reply is not None, line
    return reply


def tell(rules: RuleSet) -> str:
    return "19 rule_set " + rule_set_payload(rules)


@pytest.mark.parametrize("level", [1, 3])
def test_rule_set_switches_move_generation_search_and_draw_limits(level: int) -> None:
    engine = new_engine(level)
    assert ask(engine, "18 init_board " + CANNON_NEXT_TO_PAWN).ok
    assert not ask(engine, "10 move a1 b1").ok  # no step capture for an Olympiad cannon
    assert ask(engine, tell(HONG_KONG)).line() == "=19"
    assert engine.rules == engine.game.rules == HONG_KONG
    assert engine.game.position.to_string().startswith(CANNON_NEXT_TO_PAWN)
    assert ask(engine, "16 time_left red 3000").ok
    assert ask(engine, "12 genmove red").line() == "=12 a1 b1"  # the only capture wins
    if isinstance(engine.player, SearchPlayer):
        assert engine.player.searcher.rules == HONG_KONG
    assert ask(engine, "10 move a1 b1").ok
    assert ask(engine, "7 reset_board").ok
    assert engine.game.rules == HONG_KONG  # for the next games too


def test_rule_set_mid_game_is_refused_when_a_ply_played_is_illegal_under_it() -> None:
    engine = new_engine(1)
    assert ask(engine, "18 init_board " + JUMP_CAPTURE).ok
    assert ask(engine, "10 move a1 d1").ok
    before = engine.game.position.to_string()
    reply = ask(engine, tell(HONG_KONG))
    assert not reply.ok
    assert "ply 1 of this game is illegal under those rules" in reply.payload
    assert (engine.rules, engine.game.position.to_string()) == (OLYMPIAD, before)
    assert ask(engine, tell(PRESETS["casual"])).ok  # same captures: the game replays
    assert engine.game.rules == PRESETS["casual"]
    assert engine.game.position.to_string() == before


def test_a_bad_rule_set_is_refused_and_changes_nothing() -> None:
    engine = new_engine(1)
    reply = ask(engine, '19 rule_set {"cannon_move":"fly"}')
    assert (reply.ok, reply.id) == (False, 19)
    assert "cannon_move" in reply.payload
    assert engine.rules == OLYMPIAD


def play_in_process(rules: RuleSet, level: int, game: int, time: float = 60) -> Reason:
    specs = (
        engine_spec("a", "--level", str(level), "--seed", str(game)),
        engine_spec("b", "--level", str(level), "--seed", str(game + 50)),
    )
    setup = GameSetup(
        game_id=f"g{game}",
        players=specs,
        first=game % 2,
        deal=str(game),
        seed=game,
        rules=rules,
        time_control=TimeControl(time=time),
        stall_timeout=5.0,
    )
    played = asyncio.run(play_game(setup, f"{game + 1:064x}", start_engine=in_process()))
    told = None if rules == OLYMPIAD else True
    assert [p.rules_told for p in played.record.players] == [told, told]
    return played.record.reason


@pytest.mark.parametrize("rules", PRESETS.values(), ids=PRESETS.keys())
@pytest.mark.parametrize("level", [0, 1])
def test_every_preset_plays_to_its_end_on_the_board(rules: RuleSet, level: int) -> None:
    """Engines started with Olympiad rules play each preset once told it (before the
    extension, a Hong Kong game ended ``illegal-move`` every time)."""
    reason = play_in_process(rules, level, level)
    assert reason.is_board_end, reason


def test_the_full_search_plays_the_sliding_cannon_rules() -> None:
    reason = play_in_process(PRESETS["taiwan-sliding-cannon"], 3, 0, time=1.0)
    assert reason.is_board_end, reason


REFUSES_DRAW_LIMITS = """
plain_answer = answer


def answer(i, words):
    if i in (8, 9):
        out(f"?{i} unknown\\n".encode())
    else:
        plain_answer(i, words)
"""


def sent(out: Path, game_id: str, name: str) -> list[str]:
    """The commands (without their ids' replies) the referee sent to ``name``."""
    log = traffic_path(out, game_id).read_text(encoding="utf-8").splitlines()
    return [line.split("> ", 1)[1] for line in log if f"[{name}] > " in line]


def rule_commands(commands: list[str]) -> list[str]:
    return [c.split()[1] for c in commands if c.split()[0] in ("4", "8", "9", "19")]


def test_the_referee_tells_each_engine_what_it_can_take(tmp_path: Path, fakes: list[Fake]) -> None:
    knows = write_fake(tmp_path / "e", "knows", rule_set_fake(accepts=True), True, HK)
    plain = write_fake(tmp_path / "e", "plain", legal=True, rules=HK)
    fakes += [knows, plain]
    out = tmp_path / "run"
    [record] = play(out, (knows.spec(), plain.spec()), rules=HK, log_traffic=True)

    assert record.reason.is_board_end, record.detail
    assert [p.rules_told for p in record.players] == [True, False]
    to_knows, to_plain = sent(out, record.game_id, "knows"), sent(out, record.game_id, "plain")
    assert rule_commands(to_knows) == ["list_commands", "rule_set"]
    assert f"19 rule_set {rule_set_payload(HONG_KONG)}" in to_knows
    assert rule_commands(to_plain) == ["list_commands", "num_moves_to_draw"]
    assert "9 num_moves_to_draw 80" in to_plain
    for commands in (to_knows, to_plain):
        assert commands.index("7 reset_board") < commands.index("14 ready")
        ready = commands.index("14 ready")
        assert rule_commands(commands[:ready]) == rule_commands(commands)
    assert survivors([*knows.pids(), *plain.pids()]) == []


def test_a_refused_rule_set_falls_back_and_draw_only_rules_use_the_platform_commands(
    tmp_path: Path, fakes: list[Fake]
) -> None:
    refuses = write_fake(tmp_path / "e", "refuses", rule_set_fake(accepts=False), True)
    deaf = write_fake(tmp_path / "e", "deaf", REFUSES_DRAW_LIMITS, legal=True)
    fakes += [refuses, deaf]
    out = tmp_path / "hk"
    [hong_kong] = play(out, (refuses.spec(), deaf.spec()), rules="hong-kong", log_traffic=True)
    assert [p.rules_told for p in hong_kong.players] == [False, False]
    assert rule_commands(sent(out, hong_kong.game_id, "refuses")) == [
        "list_commands",
        "rule_set",
        "num_moves_to_draw",
    ]

    out = tmp_path / "casual"
    [casual] = play(out, (refuses.spec(), deaf.spec()), rules="casual", log_traffic=True)
    assert casual.reason.is_board_end, casual.detail
    assert [p.rules_told for p in casual.players] == [True, False]
    for name in ("refuses", "deaf"):
        assert rule_commands(sent(out, casual.game_id, name)) == ["num_moves_to_draw"]

    out = tmp_path / "olympiad"
    [olympiad] = play(out, (refuses.spec(), deaf.spec()), rules="olympiad", log_traffic=True)
    assert [p.rules_told for p in olympiad.players] == [None, None]
    assert rule_commands(sent(out, olympiad.game_id, "refuses")) == []
    assert survivors([*refuses.pids(), *deaf.pids()]) == []
