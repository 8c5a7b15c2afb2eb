"""The command line: a thin click layer over functions of the other packages.

Nothing imports this package; it imports them all.

- ``entry``: the ``banqi`` executable; it imports nothing heavy before it can catch Ctrl-C.
- ``main``: the ``banqi`` command group.
- ``output``: everything the run commands print: lines, notes, errors, the exit after
  Ctrl-C.
- ``live_line``: the live line of the games in progress, redrawn in place on a terminal.
- ``fault_words``: an engine's fault on a game's line, and the faults by kind in a summary.
- ``words``: counts in words (``1 game``, ``2 games``).
- ``examples``: the examples at the end of every command's ``--help``.
- ``param_types``: argument and option types (a rule set, a finite float, a position, ...).
- ``game_options``: ``--rules`` and the clock options.
- ``run_options``: a run's seed, traffic log, sandbox, key, deal book and cluster options.
- ``engine_args``: engines given as ``[NAME=]COMMAND``.
- ``engine``: ``banqi engine`` and the ``banqi-engine`` executable.
- ``match_command``: ``banqi match``.
- ``match_lines``: the lines ``banqi match`` prints.
- ``check_command``: ``banqi check``, the checklist of an engine before any match.
- ``new_engine_command``: ``banqi new-engine``, a starter bot (``starters/``: Python, C++).
- ``referee_commands``: ``banqi replay`` and ``banqi reasons``.
- ``tournament_command``: ``banqi tournament``.
- ``tournament_lines``: the lines ``banqi tournament`` prints.
- ``sprt_command``: ``banqi sprt``.
- ``sprt_lines``: the lines ``banqi sprt`` prints.
- ``tune_command``: ``banqi tune``.
- ``tune_lines``: the lines ``banqi tune`` prints.
- ``deals_command``: ``banqi deals``.
- ``phases_command``: ``banqi phases``, where the material goes, from run folders.
- ``phases_lines``: the lines ``banqi phases`` prints.
- ``gui_command``: ``banqi gui`` (the ``gui`` extra).
- ``serve_command``: ``banqi serve``, the arena's server (the ``arena`` extra).
- ``connect_command``: ``banqi connect``, a participant's relay (the ``arena`` extra).
- ``perft_commands``: ``banqi perft``, and the ``banqi bench`` group (perft and search).
- ``bench_strength``: ``banqi bench strength``, the ladder of levels.
- ``bench_endgame``: ``banqi bench endgame``, endgame table builds.
- ``bench_face_up``: ``banqi bench face-up``, the face-up moves of a run searched again.
- ``bench_referee``: ``banqi bench referee``, the referee's cost per ply.
- ``bench_arena``: ``banqi bench arena``, an event of remote entrants under load (the
  ``arena`` extra).
"""
