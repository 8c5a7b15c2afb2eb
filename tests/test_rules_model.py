"""Rule sets as data: the presets, resolving names and files, and refusing bad fields."""

import json
from pathlib import Path

import pytest
from pydantic import ValidationError

from banqi_engine.errors import RulesError
from banqi_engine.pieces import CANNON, GUARD, KING, PAWN, Kind
from banqi_engine.rules import (
    DEFAULT_RULES,
    PRESETS,
    RuleSet,
    load_rules_file,
    resolve_rules,
    rules_from_data,
    step_capture_masks,
)

SPEC_TABLE = {
    "olympiad": ("KGMRNCP", "jump", "step", False, 180),
    "hong-kong": ("KRNCGMP", "step", "step", False, 80),
    "taiwan-sliding-cannon": ("KGMRNCP", "jump", "slide", False, 80),
    "casual": ("KGMRNCP", "jump", "step", False, 20),
    "hong-kong-forum": ("KRNCGMP", "step", "step", True, 100),
}
"""The spec's table, and the Hong Kong forum rules (moving onto face-down pieces)."""


def fields(rules: RuleSet) -> tuple[str, str, str, bool, int]:
    return (
        rules.capture_order,
        rules.cannon_capture,
        rules.cannon_move,
        rules.move_onto_face_down,
        rules.no_progress_limit,
    )


@pytest.mark.parametrize("name", SPEC_TABLE)
def test_presets_have_the_values_of_the_spec_table(name: str) -> None:
    rules = PRESETS[name]
    assert fields(rules) == SPEC_TABLE[name]
    assert rules.repetition_count == 3
    assert rules.name == name
    assert resolve_rules(name) == rules


def test_exactly_the_presets_and_olympiad_is_the_default() -> None:
    assert set(PRESETS) == set(SPEC_TABLE)
    assert DEFAULT_RULES == "olympiad"
    assert fields(RuleSet()) == SPEC_TABLE["olympiad"]


def test_rule_sets_are_frozen() -> None:
    with pytest.raises(ValidationError, match="frozen"):
        PRESETS["olympiad"].no_progress_limit = 3  # type: ignore[misc]


def test_resolve_a_toml_file(tmp_path: Path) -> None:
    path = tmp_path / "house.toml"
    path.write_text(
        'name = "house"\n'
        'capture_order = "KRNCGMP"\n'
        'cannon_capture = "jump"\n'
        'cannon_move = "slide"\n'
        "no_progress_limit = 60\n"
        "repetition_count = 4\n",
        encoding="utf-8",
    )
    rules = resolve_rules(str(path))
    assert fields(rules) == ("KRNCGMP", "jump", "slide", False, 60)
    assert (rules.name, rules.repetition_count) == ("house", 4)
    assert load_rules_file(path) == rules


def test_resolve_a_json_file(tmp_path: Path) -> None:
    path = tmp_path / "house.json"
    path.write_text(json.dumps({"cannon_capture": "step", "no_progress_limit": 50}))
    rules = resolve_rules(str(path))
    assert fields(rules) == ("KGMRNCP", "step", "step", False, 50)
    assert rules.repetition_count == 3


def test_preset_in_a_file_with_an_override(tmp_path: Path) -> None:
    path = tmp_path / "longer.toml"
    path.write_text('preset = "olympiad"\nno_progress_limit = 240\n', encoding="utf-8")
    rules = resolve_rules(str(path))
    assert fields(rules) == ("KGMRNCP", "jump", "step", False, 240)
    assert rules.name != "olympiad"

    path = tmp_path / "hk-jumping.json"
    path.write_text(json.dumps({"preset": "hong-kong", "cannon_capture": "jump"}))
    rules = resolve_rules(str(path))
    assert fields(rules) == ("KRNCGMP", "jump", "step", False, 80)


def test_preset_without_overrides_keeps_every_value(tmp_path: Path) -> None:
    path = tmp_path / "casual.toml"
    path.write_text('preset = "casual"\n', encoding="utf-8")
    assert fields(resolve_rules(str(path))) == SPEC_TABLE["casual"]


def test_unknown_name_lists_the_allowed_names() -> None:
    with pytest.raises(RulesError) as caught:
        resolve_rules("olympic")
    message = str(caught.value)
    assert "'olympic'" in message
    for name in SPEC_TABLE:
        assert name in message


def test_unknown_preset_in_a_file(tmp_path: Path) -> None:
    path = tmp_path / "bad.toml"
    path.write_text('preset = "macau"\n', encoding="utf-8")
    with pytest.raises(RulesError, match="macau"):
        resolve_rules(str(path))


@pytest.mark.parametrize(
    ("data", "field"),
    [
        ({"capture_order": "KGMRNCC"}, "capture_order"),
        ({"capture_order": "KGMRNC"}, "capture_order"),
        ({"capture_order": "KGMRNCPX"}, "capture_order"),
        ({"cannon_capture": "fly"}, "cannon_capture"),
        ({"cannon_move": "leap"}, "cannon_move"),
        ({"no_progress_limit": 0}, "no_progress_limit"),
        ({"no_progress_limit": "many"}, "no_progress_limit"),
        ({"repetition_count": 1}, "repetition_count"),
        ({"cannon_jumps": True}, "cannon_jumps"),
        ({"name": ""}, "name"),
    ],
)
def test_bad_fields_are_refused_naming_the_field(data: dict[str, object], field: str) -> None:
    with pytest.raises(RulesError) as caught:
        rules_from_data(data, "test data")
    message = str(caught.value)
    assert field in message
    assert "test data" in message


@pytest.mark.parametrize("suffix", [".toml", ".json"])
def test_bad_fields_in_files_name_the_field_and_the_file(tmp_path: Path, suffix: str) -> None:
    path = tmp_path / f"bad{suffix}"
    if suffix == ".toml":
        path.write_text('cannon_capture = "fly"\n', encoding="utf-8")
    else:
        path.write_text(json.dumps({"cannon_capture": "fly"}))
    with pytest.raises(RulesError) as caught:
        resolve_rules(str(path))
    assert "cannon_capture" in str(caught.value)
    assert str(path) in str(caught.value)


def test_unknown_field_message_lists_the_allowed_fields() -> None:
    with pytest.raises(RulesError) as caught:
        rules_from_data({"preset": "olympiad", "cannon_jumps": True})
    message = str(caught.value)
    for name in ("capture_order", "cannon_capture", "cannon_move", "no_progress_limit"):
        assert name in message


@pytest.mark.parametrize(
    ("name", "content"),
    [
        ("broken.toml", "cannon_capture = \n"),
        ("broken.json", "{not json"),
        ("list.json", "[1, 2]"),
    ],
)
def test_unreadable_files_are_refused(tmp_path: Path, name: str, content: str) -> None:
    path = tmp_path / name
    path.write_text(content, encoding="utf-8")
    with pytest.raises(RulesError, match=name):
        resolve_rules(str(path))


def test_missing_file_is_refused(tmp_path: Path) -> None:
    with pytest.raises(RulesError, match="does not exist"):
        resolve_rules(str(tmp_path / "missing.toml"))


def takes(rules: RuleSet, attacker: Kind, target: Kind) -> bool:
    return bool(step_capture_masks(rules)[attacker] >> target & 1)


def test_capture_order_drives_step_captures() -> None:
    reversed_order = rules_from_data({"capture_order": "PCNRMGK", "cannon_capture": "step"})
    assert takes(reversed_order, PAWN, KING)
    assert takes(reversed_order, PAWN, GUARD)
    assert not takes(reversed_order, KING, GUARD)
    assert not takes(reversed_order, KING, PAWN)
    assert takes(PRESETS["olympiad"], GUARD, CANNON)
    assert not takes(PRESETS["hong-kong"], GUARD, CANNON)
    assert not takes(PRESETS["olympiad"], CANNON, PAWN)
    assert takes(PRESETS["hong-kong"], CANNON, PAWN)
