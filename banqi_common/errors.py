"""The error root of the whole package, and the error of input that cannot be used."""


class BanqiError(Exception):
    """The root of every error banqi raises on purpose: bad input to the rules
    (``banqi_engine.errors.RulesInputError``), input that cannot be used (:class:`InputError`)
    and an engine or a DCTP line that misbehaves (``protocol.errors.ProtocolError``)."""


class InputError(BanqiError):
    """A record, key file, engine command, config or run folder that cannot be used.

    The message says what was wrong and where. Bad input to the rules themselves (a
    position, a move, a rule set) is ``banqi_engine.errors.RulesInputError`` instead.
    """
