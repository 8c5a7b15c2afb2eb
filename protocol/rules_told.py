"""What an engine must be told of a rule set: how it differs from the platform's own."""

from typing import Final

from banqi_engine.rules import PRESETS, RuleSet

from .messages import Command

OLYMPIAD: Final = PRESETS["olympiad"]
"""The platform's own rule set: it need not be told to an engine."""
DRAW_LIMITS: Final = frozenset({"no_progress_limit", "repetition_count"})
"""The rule-set fields the platform's own commands (``num_moves_to_draw``,
``num_repetition``) can tell."""


def differing_fields(rules: RuleSet) -> set[str]:
    """The fields, other than the name, in which ``rules`` differ from the platform's."""
    return {
        field
        for field in RuleSet.model_fields
        if field != "name" and getattr(rules, field) != getattr(OLYMPIAD, field)
    }


def draw_limit_commands(rules: RuleSet) -> list[Command]:
    """The draw-limit commands that tell an engine how ``rules`` differ from the platform's."""
    commands = []
    if rules.repetition_count != OLYMPIAD.repetition_count:
        commands.append(Command.num_repetition(rules.repetition_count))
    if rules.no_progress_limit != OLYMPIAD.no_progress_limit:
        commands.append(Command.num_moves_to_draw(rules.no_progress_limit))
    return commands


def must_be_told(rules: RuleSet) -> bool:
    """Whether an engine cannot play ``rules`` without being told them: moves onto
    face-down pieces are echoed with ``reveal_move``, which only an engine that took the
    rule set knows. (An engine not told other rules still follows every echo.)"""
    return rules.move_onto_face_down


def untold_words(rules: RuleSet) -> str:
    """Why an engine that did not take ``rules`` (which ``must_be_told``) cannot play them."""
    return (
        f"it did not take the rule set {rules.name!r} (the rule_set command, id 19: not "
        "listed, refused or unanswered), which allows moving onto face-down pieces; such "
        "moves are echoed with reveal_move (id 20), which only an engine that took the rule "
        "set knows"
    )
