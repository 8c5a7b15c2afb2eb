"""Exceptions raised by the rules package."""


class BanqiError(ValueError):
    """Base class: bad input to the rules (a position, a move, a rule set)."""


class PositionError(BanqiError):
    """A position string (or board field) that cannot describe a legal state."""


class MoveError(BanqiError):
    """A move string that does not parse, or a move that is illegal where it is played."""


class RulesError(BanqiError):
    """An unknown rule-set name or a rule-set file with bad fields."""
