"""The error of a file, config or run folder that cannot be used (not a rules error)."""


class InputError(Exception):
    """A record, key file, engine command, config or run folder that cannot be used.

    The message says what was wrong and where. Bad input to the rules themselves (a
    position, a move, a rule set) is ``banqi_engine.errors.BanqiError`` instead.
    """
