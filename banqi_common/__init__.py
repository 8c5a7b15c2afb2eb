"""What every part of banqi shares: the error root, atomic writes, Ctrl-C handling, the version.

- ``errors``: :class:`~banqi_common.errors.BanqiError`, the root of every error the package
  raises, and :class:`~banqi_common.errors.InputError` (a file, config or run folder that
  cannot be used).
- ``atomic``: files written whole or not at all.
- ``interrupt``: an event loop that Ctrl-C stops cleanly.
- ``version``: the installed package's version, read from its metadata.
"""
