"""The command line: a thin click layer over functions of the other packages.

Nothing imports this package; it imports them all.

- ``entry``: the ``banqi`` executable; it imports nothing heavy before it can catch Ctrl-C.
- ``main``: the ``banqi`` command group.
- ``options``: options and argument types shared by several commands.
- ``engine``: ``banqi engine`` and the ``banqi-engine`` executable.
- ``referee_commands``: ``banqi match`` and ``banqi replay``.
- ``tournament_command``: ``banqi tournament``.
- ``sprt_command``: ``banqi sprt``.
- ``tune_command``: ``banqi tune``.
- ``deals_command``: ``banqi deals``.
- ``gui_command``: ``banqi gui`` (the ``gui`` extra).
- ``perft_commands``: ``banqi perft``, and the ``banqi bench`` group (perft and search).
- ``bench_strength``: ``banqi bench strength``, the ladder of levels.
- ``bench_endgame``: ``banqi bench endgame``, endgame table builds.
- ``bench_referee``: ``banqi bench referee``, the referee's cost per ply.
"""
