"""Exceptions raised by the rules package."""

from banqi_common.errors import BanqiError


class RulesInputError(BanqiError, ValueError):
    """Base class: bad input to the rules (a position, a move, a rule set)."""


class PositionError(RulesInputError):
    """A position string (or board field) that cannot describe a legal state."""


class MoveError(RulesInputError):
    """A move string that does not parse, or a move that is illegal where it is played."""


class RulesError(RulesInputError):
    """An unknown rule-set name or a rule-set file with bad fields."""
