"""DCTP, the text protocol between a game platform and an engine: messages, the
engine-side loop, and the driver-side client.

- ``messages``: command ids and names, command and reply lines, ``genmove`` answers.
- ``echo``: the echo of a ply that a driver tells both engines: ``move``, ``flip`` or
  ``reveal_move``.
- ``engine_loop``: the engine side: ``DctpEngine`` answers one command a line and tracks
  the game from echoes; ``run_engine`` is the loop over text streams.
- ``line_protocol``: an engine process's pipes: bounded lines, replies matched to
  commands, stderr kept as a tail, every way the pipes break classified.
- ``client``: ``EngineClient``, the driver side for one engine process (asyncio).
- ``connection``: ``EngineConnection``, what a driver needs of an engine, a process or not.
- ``in_process``: ``InProcessEngine``, the engine loop answered inside this process.
- ``errors``: ``ProtocolError`` and ``EngineError`` (an engine that cannot start, ends,
  times out or answers wrongly), and the syntax errors of commands and replies.
"""
