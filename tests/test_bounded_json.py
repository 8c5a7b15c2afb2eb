"""JSON from outside, bounded before it is parsed: nesting, values, string length, NaN."""

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from banqi_common.bounded_json import JsonShapeError, Shape, bounded_json, check_shape
from banqi_engine.errors import RulesError
from banqi_engine.rules import rules_from_text

SMALL = Shape(depth=4, values=10, string=20)

json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=10),
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=5), inner, max_size=4)
    ),
    max_leaves=20,
)


@given(json_values)
def test_what_fits_the_default_shape_parses_as_json_does(value: object) -> None:
    text = json.dumps(value)
    assert bounded_json(text) == json.loads(text)


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("[" * 5 + "]" * 5, "nested deeper than 4 levels"),
        ("[" + ",".join(["1"] * 11) + "]", "more than 10 values"),
        ('{"a": "' + "x" * 21 + '"}', "a string longer than 20 characters"),
        ('{"time": NaN}', "NaN is not a number JSON allows"),
        ('{"time": -Infinity}', "-Infinity is not a number JSON allows"),
        ('{"time": 1e999}', "1e999 is too large to be a number"),
        ('{"time": ', "is not JSON"),
    ],
)
def test_what_does_not_fit_is_refused_in_words(text: str, words: str) -> None:
    with pytest.raises(JsonShapeError, match=words):
        bounded_json(text, SMALL)


def test_brackets_and_commas_inside_strings_do_not_count() -> None:
    check_shape('["[[[[[,,,,,,,,,:::", "\\"[[[["]', SMALL)


def test_a_deeply_nested_rule_set_file_is_refused_not_a_recursion_error() -> None:
    for text, is_json in (("[" * 20000, False), ('{"a":' * 20000, True)):
        with pytest.raises(RulesError, match="nested deeper than 4 levels"):
            rules_from_text(text, is_json, "the rule-set file")
