"""The MAC on a record (``referee.macs``): over content that a write and a read leave as it
was, whatever the record holds; keyed by its game (seed and id) under a key derived from
the referee key; broken by any change."""

import hmac
from datetime import UTC, datetime, timedelta, timezone

from hypothesis import given
from hypothesis import strategies as st
from referee_fakes import TEST_KEY, TEST_MACS

from banqi_engine.layout import format_layout
from banqi_engine.rules import PRESETS
from referee.deals import DealBookRef, deal_secret, layout_from_secret
from referee.macs import MAC_LABEL, MacKeys, canonical, mac_matches, signed
from referee.reasons import Reason
from referee.record import GameRecord, PlayerInfo, PlyRecord, WorkerInfo
from referee.sandbox import Isolation
from referee.timecontrol import TimeControl
from referee.withheld import withhold

TEXT = st.text(st.characters(exclude_categories=["Cs"]), max_size=12)
"""Any text a record may hold (JSON has no lone surrogates)."""
MOVES = st.sampled_from(["a2-a3", "b6(K)", "c3-c5", "d8(p)", "a1-b1"])
HEX = st.text("0123456789abcdef", min_size=64, max_size=64)
SECONDS = st.floats(min_value=0.001, max_value=3600, allow_nan=False)


@st.composite
def moments(draw: st.DrawFn) -> datetime:
    """A time as records hold it: aware (any offset) or naive, to the microsecond."""
    moment = draw(st.datetimes(min_value=datetime(1990, 1, 1), max_value=datetime(2200, 1, 1)))
    offset = draw(st.none() | st.integers(-14 * 60, 14 * 60))
    if offset is None:
        return moment
    return moment.replace(tzinfo=UTC if offset == 0 else timezone(timedelta(minutes=offset)))


def players() -> st.SearchStrategy[PlayerInfo]:
    return st.builds(
        PlayerInfo,
        name=TEXT,
        command=st.lists(TEXT, max_size=3),
        engine_name=st.none() | TEXT,
        version=st.none() | TEXT,
        colour=st.sampled_from([None, "red", "black"]),
        isolation=st.none() | st.sampled_from(Isolation),
        rules_told=st.sampled_from([None, True, False]),
        time_control=st.none() | st.builds(TimeControl, time=SECONDS, increment=SECONDS),
    )


@st.composite
def records(draw: st.DrawFn) -> GameRecord:
    """A record of any content the model takes, complete or withheld."""
    seed = draw(st.integers(0, 2**48))
    secret = deal_secret(TEST_KEY, seed, "0")
    book = draw(st.none() | st.builds(DealBookRef, sha256=HEX, entry=st.integers(0, 999)))
    void = draw(st.booleans())
    plies = st.builds(
        PlyRecord,
        player=st.integers(0, 1),
        move=MOVES,
        ms=st.integers(0, 10**7),
        clocks_ms=st.tuples(st.integers(0, 10**8), st.integers(0, 10**8)),
    )
    record = GameRecord(
        game_id=draw(TEXT.filter(bool)),
        rules=draw(st.sampled_from(list(PRESETS.values()))),
        time_control=draw(st.builds(TimeControl, time=SECONDS, move_time=st.none() | SECONDS)),
        players=(draw(players()), draw(players())),
        first=draw(st.integers(0, 1)),
        seed=seed,
        deal=draw(TEXT),
        deal_book=book,
        deal_secret=None if book is not None and draw(st.booleans()) else secret,
        layout=format_layout(layout_from_secret(secret)),
        started_at=draw(moments()),
        finished_at=draw(moments()),
        plies=draw(st.lists(plies, max_size=6)),
        winner=None if void else draw(st.sampled_from([None, 0, 1])),
        reason=draw(st.sampled_from(Reason)),
        result=draw(TEXT),
        detail=draw(TEXT),
        stopped_answering=draw(st.booleans()),
        end_ply=draw(st.integers(0, 500)),
        void=void,
        worker=draw(st.none() | st.builds(WorkerInfo, address=TEXT, cpu=TEXT)),
    )
    return withhold(record) if draw(st.booleans()) else record


@given(records())
def test_a_records_content_and_mac_survive_its_file(record: GameRecord) -> None:
    key = TEST_MACS.game(record.seed, record.game_id)
    written = signed(record, key)
    read = GameRecord.model_validate_json(written.model_dump_json(indent=2))  # write_record's
    assert canonical(read) == canonical(record)
    assert read.mac == written.mac and mac_matches(read, read.mac, key)
    again = GameRecord.model_validate_json(read.model_dump_json())
    assert canonical(again) == canonical(record) and mac_matches(again, again.mac, key)


@given(records(), TEXT)
def test_any_change_to_a_record_breaks_its_mac(record: GameRecord, result: str) -> None:
    key = TEST_MACS.game(record.seed, record.game_id)
    written = signed(record, key)
    for change in (
        {"result": record.result + "!"},
        {"winner": 1 if record.winner == 0 else 0, "void": False},
        {"plies": record.plies[:-1]} if record.plies else {"end_ply": record.end_ply + 1},
    ):
        changed = GameRecord.model_validate({**written.model_dump(), **change})
        assert changed.mac == written.mac
        assert not mac_matches(changed, changed.mac, key), change


@given(records())
def test_a_records_mac_is_its_games_alone(record: GameRecord) -> None:
    written = signed(record, TEST_MACS.game(record.seed, record.game_id))
    assert not mac_matches(written, written.mac, TEST_MACS.game(record.seed, record.game_id + "x"))
    assert not mac_matches(written, written.mac, TEST_MACS.game(record.seed + 1, record.game_id))
    other_key = MacKeys(bytes(reversed(TEST_KEY)))
    assert not mac_matches(written, written.mac, other_key.game(record.seed, record.game_id))
    assert not mac_matches(written.model_copy(update={"mac": None}), None, b"any key")


def test_the_mac_keys_are_derived_from_the_referee_key_never_it() -> None:
    mac_key = hmac.digest(TEST_KEY, MAC_LABEL, "sha256")
    game = TEST_MACS.game(7, "g0001")
    assert game == hmac.digest(mac_key, b"game/7/g0001", "sha256")
    assert TEST_MACS.file("match.json") == hmac.digest(mac_key, b"file/match.json", "sha256")
    keys = {TEST_KEY, mac_key, game, TEST_MACS.game(8, "g0001"), TEST_MACS.game(7, "g0002")}
    assert len(keys) == 5
