"""What the coordinator takes from a cluster worker (``tournaments.cluster.received``): the
record of the game it sent, with that game's players, MAC'd with that game's key; any
other answer is refused, whatever else is right about it."""

import json
from datetime import UTC, datetime
from pathlib import Path

import pytest
from referee_fakes import TEST_KEY, TEST_MACS

from banqi_engine.rules import PRESETS
from referee.engine_spec import EngineSpec
from referee.game_setup import GameSetup, deal_secret_of
from referee.macs import signed
from referee.reasons import Reason
from referee.record import GameEnd, GameRecord, WorkerInfo, build_record, player_info
from tournaments.cluster import ClusterError, received
from tournaments.match_config import MatchConfig, match_setups

SPECS = (EngineSpec(name="a", command=("a",)), EngineSpec(name="b", command=("b",)))
CONFIG = MatchConfig(engines=SPECS, games=2, rules=PRESETS["casual"], seed=4, out=Path("m"))
SETUPS = list(match_setups(CONFIG))


def worker_record(setup: GameSetup) -> GameRecord:
    """The record a worker makes of ``setup``'s game (a resignation at once)."""
    now = datetime.now(UTC)
    players = (player_info(setup.players[0]), player_info(setup.players[1]))
    end = GameEnd(winner=1, reason=Reason.RESIGN, result="a resigned")
    record = build_record(
        setup, deal_secret_of(setup, TEST_KEY), players, [], end, started_at=now, finished_at=now
    )
    return record.model_copy(update={"worker": WorkerInfo(address="tcp://w:1", cpu="cpu")})


def answer(record: GameRecord) -> str:
    """A worker's answer, as ``play_on_worker`` returns it."""
    return json.dumps({"record": record.model_dump_json(), "transcript": None})


def key_of(setup: GameSetup) -> bytes:
    return TEST_MACS.game(setup.seed, setup.game_id)


def test_the_record_of_the_game_sent_with_its_mac_is_taken() -> None:
    sent = SETUPS[0]
    record = signed(worker_record(sent), key_of(sent))
    game = received(answer(record), sent, key_of(sent))
    assert game.record == record and game.transcript is None


def test_a_record_of_another_game_is_refused_even_with_the_sent_games_mac() -> None:
    sent, other = SETUPS
    record = signed(worker_record(other), key_of(sent))  # a worker that played the wrong game
    with pytest.raises(ClusterError) as error:
        received(answer(record), sent, key_of(sent))
    assert str(error.value) == "a worker returned a record that is not game g0001's"


def test_a_record_with_other_players_is_refused() -> None:
    sent = SETUPS[0]
    record = worker_record(sent)
    swapped = record.model_copy(update={"players": (record.players[1], record.players[0])})
    with pytest.raises(ClusterError, match="is not game g0001's"):
        received(answer(signed(swapped, key_of(sent))), sent, key_of(sent))


@pytest.mark.parametrize("mac", ["missing", "another game's key", "changed after"])
def test_a_record_without_its_games_valid_mac_is_refused(mac: str) -> None:
    sent, other = SETUPS
    record = worker_record(sent)
    if mac == "another game's key":
        record = signed(record, key_of(other))
    elif mac == "changed after":
        record = signed(record, key_of(sent)).model_copy(update={"winner": 0})
    with pytest.raises(ClusterError) as error:
        received(answer(record), sent, key_of(sent))
    assert str(error.value) == "a worker returned a record of game g0001 without its valid MAC"
