"""The referee: one game between two seats (DCTP engines, or people), judged, timed and
recorded.

It alone knows the hidden layout, judges every ply with ``banqi_engine``'s rules,
keeps both clocks, and writes each game's records the moment the game ends.

A game:

- ``game_setup``: ``GameSetup``, what decides one game before it starts, and ``GameFacts``,
  the part of it that every view of the game repeats.
- ``game_loop``: ``GameLoop``, the one loop that plays a game over two seats: judging,
  colours from the first flip, clocks, the end, the record.
- ``seats``: the seats it plays over: an engine (a DCTP session), a person (actions from
  outside, take-backs), a built-in player in this process.
- ``game_runner``: one referee game between two DCTP engines (the loop over engine seats),
  with its live view and transcript.
- ``game_faults``: a fault of one engine (it loses) or of both (the game is void), and the
  one mapping from an engine error to its reason.
- ``reasons``: every reason code that ends a game: board end or fault, and its words.
- ``timecontrol``: the time control and the chess clock of one game.
- ``live``: the public live view of a game being played, and its file.
- ``live_writer``: a game's live view written off the event loop, the newest view first.

The engines:

- ``engine_spec``: how to start one engine: a command line, a working directory, an environment.
- ``engine_env``: an engine's environment: a few of the referee's variables, those it is
  given by name, its own; nothing else.
- ``engine_start``: the engine factory: processes, sandboxed or not, by default.
- ``engine_check``: each engine started and handshaken before a run's first game.
- ``engine_checklist``: ``banqi check``'s checks: an engine driven through every command
  and the hard cases, then a whole game, each check passed or failed with the lines.
- ``sandbox``: what a sandboxed engine sees, as a ``bwrap`` or ``unshare`` command.
- ``sandbox_view``: ``EngineView``, one sandboxed engine's world: what it sees, its room,
  its network.
- ``sandbox_launch``: inside ``unshare``: the new root, then the engine run unprivileged.
- ``engine_limits``: ``EngineLimits`` (memory, processes, room, CPU time) and the
  resource limits that enforce some of them.
- ``cgroups``: a control group per engine, where one can be made: memory and processes.
- ``engine_watch``: ``SandboxWatch``, which limit an engine reached, and how a limited
  engine is started.

Deals and records:

- ``deals``: the referee key, and hidden layouts from a private deal secret.
- ``deal_book``: deal books: made, written, read and checked.
- ``book_openings``: a book entry's opening: checked under a run's rules, cut from a record.
- ``records_book``: a deal book cut from earlier runs' records (``banqi deals --from``).
- ``record``: the JSON game record, a validated, versioned model, and its one builder.
- ``text_record``: the platform's text record, written and read back (ours or the
  NTU platform's).
- ``platform_record``: what the NTU platform's own text records add: its reason words,
  the trailer of ply times and replies.
- ``transcript``: the DCTP transcript of one game, bounded whatever the engines write.
- ``withheld``: a record with its deal held back, and the same record completed.
- ``held``: what a withheld record leaves out (transcript, detail), sealed beside it.
- ``deal_records``: a run's records withheld until their deal is complete.
- ``macs``: the MACs on a run's records and state files, their keys derived from the
  referee key.
- ``storage``: where a run's files go (``games/<game_id>.json``, ``.txt``, ``.dctp.log``,
  ``.held``).
- ``replay``: a record replayed, every ply checked against the rules.
- ``record_checks``: a record's fields checked against its plies: result, loser,
  players, clocks.
- ``record_input``: a record file read for replay, bounded.
- ``shape_board``: plies checked without their pieces, for withheld records.
"""
