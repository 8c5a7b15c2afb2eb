"""The engine session, the one home of what a driver says to an engine: the start of a game
with its rules, the courtesy questions, genmove's typed answer, a ply told, the end."""

import asyncio
from collections.abc import Callable

import pytest

from banqi_engine.moves import flip_move, step_move
from banqi_engine.pieces import BLACK, RED, UNDECIDED
from banqi_engine.rules import PRESETS
from protocol.errors import EngineTimeoutError
from protocol.messages import COMMAND_NAMES, Command, CommandId, Reply
from protocol.session import (
    CommandRefusedError,
    EngineSession,
    RulesNotTakenError,
)

Answer = Callable[[Command], Reply | None]
"""What a scripted engine answers to a command; None: it stays silent."""


class Scripted:
    """An engine connection that answers by a script and notes every command it is sent."""

    name, pid, isolation = "scripted", None, "in-process"

    def __init__(self, answer: Answer) -> None:
        self.answer = answer
        self.sent: list[str] = []
        self.quit_called = self.killed = False

    async def request(self, command: Command, timeout: float | None) -> Reply:
        self.sent.append(command.line())
        reply = self.answer(command)
        if reply is None:
            await asyncio.sleep(timeout or 0)
            raise EngineTimeoutError(self.name, command.line(), timeout or 0)
        return reply

    async def quit(self) -> int | None:
        self.quit_called = True
        return 0

    async def kill(self) -> None:
        self.killed = True


def platform_only(command: Command) -> Reply | None:
    """An engine written for the platform: it answers the platform's commands, no others."""
    if command.id in (CommandId.RULE_SET, CommandId.NAME, CommandId.VERSION):
        return None
    if command.id is CommandId.LIST_COMMANDS:
        return Reply(int(command.id), True, "reset_board genmove")
    return Reply(int(command.id), True, "")


def test_the_start_of_a_game_is_the_platforms_under_its_own_rules() -> None:
    engine = Scripted(platform_only)
    told = asyncio.run(EngineSession(engine).start_game(PRESETS["olympiad"], 900_000, 5.0))
    assert told is None  # nothing differs from the platform's rules: nothing told
    assert engine.sent == ["7 reset_board", "15 time_settings 900000", "14 ready"]


def test_draw_limits_go_by_the_platforms_commands_and_other_rules_by_rule_set() -> None:
    casual = PRESETS["casual"]  # only the no-progress limit differs
    engine = Scripted(platform_only)
    assert asyncio.run(EngineSession(engine).start_game(casual, 60_000, 5.0)) is True
    assert "9 num_moves_to_draw 20" in engine.sent and engine.sent[-1] == "14 ready"

    def takes_rule_set(command: Command) -> Reply | None:
        if command.id is CommandId.LIST_COMMANDS:
            return Reply(4, True, COMMAND_NAMES[CommandId.RULE_SET])
        return Reply(int(command.id), True, "")

    engine = Scripted(takes_rule_set)
    assert asyncio.run(EngineSession(engine).start_game(PRESETS["hong-kong"], 60_000, 5.0))
    assert any(line.startswith("19 rule_set ") for line in engine.sent)


def test_rules_an_engine_must_be_told_and_does_not_take_are_refused_with_the_cause() -> None:
    forum = PRESETS["hong-kong-forum"]
    with pytest.raises(RulesNotTakenError) as refused:
        asyncio.run(EngineSession(Scripted(platform_only)).start_game(forum, 60_000, 5.0))
    assert refused.value.cause == "its list_commands does not list rule_set"
    assert "reveal_move" in str(refused.value)

    def refuses(command: Command) -> Reply | None:
        if command.id is CommandId.LIST_COMMANDS:
            return Reply(4, True, "rule_set")
        if command.id is CommandId.RULE_SET:
            return Reply(19, False, "no such rules")
        return Reply(int(command.id), True, "")

    with pytest.raises(RulesNotTakenError) as refused:
        asyncio.run(EngineSession(Scripted(refuses)).start_game(forum, 60_000, 5.0))
    assert refused.value.cause == "it refused them: no such rules"


def test_a_strict_start_refuses_a_question_mark_that_a_game_forgives() -> None:
    def refuses_ready(command: Command) -> Reply | None:
        return Reply(int(command.id), command.id is not CommandId.READY, "not now")

    olympiad = PRESETS["olympiad"]
    asyncio.run(EngineSession(Scripted(refuses_ready)).start_game(olympiad, 1000, 5.0))
    with pytest.raises(CommandRefusedError, match="refused '14 ready': not now"):
        asyncio.run(
            EngineSession(Scripted(refuses_ready)).start_game(olympiad, 1000, 5.0, strict=True)
        )


def test_silence_to_name_and_version_costs_a_short_wait_not_the_game() -> None:
    identity = asyncio.run(EngineSession(Scripted(platform_only)).identify(0.05))
    assert (identity.name, identity.version) == (None, None)

    def says(command: Command) -> Reply | None:
        return Reply(int(command.id), True, "x" * 500 if command.id is CommandId.NAME else "1.0")

    identity = asyncio.run(EngineSession(Scripted(says)).identify(1.0))
    assert identity.name == "x" * 200 and identity.version == "1.0"


@pytest.mark.parametrize(
    ("payload", "ok", "move", "resigned", "unreadable"),
    [
        ("b6 b6", True, flip_move(21), False, None),
        ("a2 a3", True, step_move(4, 8), False, None),
        ("a0 a0", True, None, True, None),
        ("hello world", True, None, False, "'hello' is not a square"),
        ("d7-d7", True, None, False, "expected two squares"),
        ("no move", False, None, False, "genmove failed: ?12 no move"),
    ],
)
def test_genmove_answers_are_typed(
    payload: str, ok: bool, move: int | None, resigned: bool, unreadable: str | None
) -> None:
    engine = Scripted(lambda command: Reply(int(command.id), ok, payload))
    answer = asyncio.run(EngineSession(engine).genmove(UNDECIDED, 5.0))
    assert engine.sent == ["12 genmove unknown"]
    assert (answer.move, answer.resigned) == (move, resigned)
    if unreadable is None:
        assert answer.unreadable is None
    else:
        assert answer.unreadable is not None and unreadable in answer.unreadable
    assert answer.payload == payload and answer.seconds >= 0


def test_a_move_limit_is_told_for_the_colour_to_move_or_both_before_colours() -> None:
    engine = Scripted(platform_only)
    session = EngineSession(engine)
    for side in (UNDECIDED, BLACK, RED):
        asyncio.run(session.tell_move_limit(side, 600, 5.0))
    assert engine.sent == [
        "16 time_left red 600",
        "16 time_left black 600",
        "16 time_left black 600",
        "16 time_left red 600",
    ]


def test_a_ply_is_its_echo_then_the_movers_clock_and_the_end_forgives_silence() -> None:
    engine = Scripted(
        lambda command: (
            None if command.id is CommandId.GAME_OVER else Reply(int(command.id), True, "")
        )
    )
    session = EngineSession(engine)
    echo, clock = Command.move(4, 8), Command.time_left("red", 5000)
    asyncio.run(session.tell_ply(echo, clock, 5.0))
    asyncio.run(session.end_game("end"))
    assert engine.sent == ["10 move a2 a3", "16 time_left red 5000", "13 game_over end"]
    assert engine.quit_called and not engine.killed
