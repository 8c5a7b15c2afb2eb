"""DCTP, the text protocol between a game platform and an engine: messages, the
engine-side loop, and the driver side (a process, and the session a driver speaks).

- ``messages``: command ids and names, command and reply lines, ``genmove`` answers.
- ``command_parser``: a command line parsed as an engine reads it, every argument checked.
- ``echo``: the echo of a ply that a driver tells both engines: ``move``, ``flip`` or
  ``reveal_move``.
- ``engine_loop``: the engine side: ``DctpEngine`` answers one command a line and tracks
  the game from echoes; ``run_engine`` is the loop over text streams.
- ``line_protocol``: an engine process's pipes: bounded lines, replies matched to
  commands, stderr kept as a tail, every way the pipes break classified.
- ``client``: ``EngineClient``, the driver side for one engine process (asyncio).
- ``session``: ``EngineSession``, the one home of what a driver says to an engine: the
  start of a game with its rules, ``name``/``version``, ``genmove`` as a typed
  ``MoveAnswer``, a ply told, the end.
- ``rules_told``: what an engine must be told of a rule set.
- ``cpu``: the CPU time of an engine's whole process group, from ``/proc``.
- ``resource_watch``: ``ResourceWatch``, the limits an engine process runs under, as its
  client asks them.
- ``connection``: ``EngineConnection``, what a driver needs of an engine, a process or not.
- ``in_process``: ``InProcessEngine``, the engine loop answered inside this process.
- ``errors``: ``ProtocolError`` and ``EngineError`` (an engine that cannot start, ends,
  times out, answers wrongly or reaches a limit), and the syntax errors of commands and
  replies.
"""
