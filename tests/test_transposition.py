"""The transposition table's buckets: deep entries of this search survive shallow ones,
an earlier search's give way, and every entry stored is found again until replaced."""

from hypothesis import given
from hypothesis import strategies as st

from banqi_engine.transposition import TranspositionTable

EXACT, LOWER, UPPER = 0, 1, 2
"""The entry flags (module constants of the pure build; the compiled one keeps them in C)."""

BITS = 4
"""A small table (16 slots, 8 buckets), so that keys collide."""


def same_bucket(key: int, nth: int) -> int:
    """Another key of ``key``'s bucket (the ``nth`` one above it)."""
    return key + nth * (1 << BITS)


def test_a_deep_entry_survives_shallow_stores_in_its_bucket() -> None:
    table = TranspositionTable(BITS)
    table.store(3, 9, EXACT, 1.5, 40)
    for nth in range(1, 6):
        table.store(same_bucket(3, nth), 2, LOWER, 0.0, nth)
    slot = table.find(3)
    assert slot >= 0
    assert (table.depth(slot), table.flag(slot), table.score(slot), table.move(slot)) == (
        9,
        EXACT,
        1.5,
        40,
    )
    # The second slot held each shallow entry in turn: only the last is still there.
    assert table.find(same_bucket(3, 5)) >= 0
    assert table.find(same_bucket(3, 4)) == -1


def test_an_entry_as_deep_replaces_the_first_slots() -> None:
    table = TranspositionTable(BITS)
    table.store(5, 6, EXACT, 1.0, 1)
    table.store(same_bucket(5, 1), 6, UPPER, -2.0, 2)
    assert table.find(5) == -1
    slot = table.find(same_bucket(5, 1))
    assert table.depth(slot) == 6
    assert table.score(slot) == -2.0


def test_an_earlier_searchs_entry_gives_way_to_a_shallow_one() -> None:
    table = TranspositionTable(BITS)
    table.store(7, 12, EXACT, 3.0, 5)
    table.store(same_bucket(7, 1), 1, LOWER, 0.5, 6)
    table.store(same_bucket(7, 2), 1, LOWER, 0.5, 7)
    assert table.find(7) >= 0  # this search: the deep entry stays first
    table.new_search()
    table.store(same_bucket(7, 3), 1, LOWER, 0.5, 8)
    assert table.find(7) == -1  # the next search: it was replaced
    assert table.find(same_bucket(7, 3)) >= 0
    assert table.find(same_bucket(7, 2)) >= 0


def test_a_key_stored_again_replaces_its_own_entry() -> None:
    table = TranspositionTable(BITS)
    table.store(9, 10, LOWER, 1.0, 3)
    table.store(9, 2, UPPER, -1.0, 4)
    slot = table.find(9)
    assert (table.depth(slot), table.flag(slot), table.move(slot)) == (2, UPPER, 4)


def test_generations_wrap_without_losing_entries() -> None:
    table = TranspositionTable(BITS)
    for _ in range(300):
        table.new_search()
    table.store(11, 63, EXACT, 0.25, -1)
    slot = table.find(11)
    assert (table.depth(slot), table.move(slot), table.score(slot)) == (63, -1, 0.25)


@given(
    st.lists(
        st.tuples(
            st.integers(0, (1 << 62) - 1),
            st.integers(1, 200),
            st.sampled_from([EXACT, LOWER, UPPER]),
            st.integers(-1, 1023),
        ),
        max_size=60,
    )
)
def test_the_last_store_of_a_key_is_found_whole(
    stores: list[tuple[int, int, int, int]],
) -> None:
    table = TranspositionTable(BITS)
    for index, (key, depth, flag, move) in enumerate(stores):
        table.store(key, depth, flag, float(index), move)
        slot = table.find(key)
        assert slot >= 0
        assert (table.depth(slot), table.flag(slot), table.score(slot), table.move(slot)) == (
            depth,
            flag,
            float(index),
            move,
        )


def test_an_old_entry_gives_way_in_every_generation() -> None:
    """Generations past 127 too (a packed entry is wider than 32 bits)."""
    table = TranspositionTable(BITS)
    for generation in range(1, 256):
        table.new_search()
        table.store(13, 40, EXACT, 0.0, 1)  # deep, this search's
        table.store(same_bucket(13, 1), 1, LOWER, 0.0, 2)  # shallow: the second slot
        assert table.find(13) >= 0, generation
        table.new_search()
        table.store(same_bucket(13, 2), 1, LOWER, 0.0, 3)  # the deep one is old now
        assert table.find(13) == -1, generation
        assert table.find(same_bucket(13, 2)) >= 0, generation
