"""What every part of banqi shares: the error root, atomic writes and their errors, reading a
model's file, Ctrl-C handling, listening sockets, the version.

- ``errors``: ``BanqiError``, the root of every error the package raises, and
  ``InputError`` (a file, config or run folder that cannot be used).
- ``atomic``: files written whole or not at all.
- ``write_errors``: ``WriteError``, a file that cannot be written, in one wording.
- ``model_files``: a JSON file read into a pydantic model, its first problem in words.
- ``interrupt``: an event loop that Ctrl-C stops cleanly.
- ``short_text``: text cut to fit one line.
- ``closing``: ``Closing``, an object closed on leaving its ``with`` block.
- ``sockets``: a listening TCP socket for the package's servers.
- ``bounded_json``: JSON (and TOML) from outside, its nesting, values and strings bounded
  before it is parsed; NaN and infinities refused.
- ``version``: the installed package's version, read from its metadata.
"""
