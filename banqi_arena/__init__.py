"""The arena: tournaments whose remote entrants play from their own machines
(``banqi serve``, ``banqi connect``; ``pip install 'banqi[arena]'``).

- ``wire``: the frames on the WebSocket, bounded and validated.
- ``tokens``: entrants' tokens, shown once and kept as hashes.
- ``hub``: the server's connections: authentication, limits, pings, routing.
- ``remote_engine``: a relayed engine as the referee's engine client sees a process.
- ``remote_seat``: a remote entrant's seat: reconnection within its clock, lag credit.
- ``arena_place``: the server up while a tournament plays its games, and what the event's
  pages are told of its connections.
- ``server_app``: the Starlette WebSocket route and the event's pages, served by uvicorn.
- ``relay``: the participant's side, relaying an engine on its machine.
- ``bench_event``: ``banqi bench arena``'s events: the real server, a swarm of relays,
  spectators, and what it cost.
- ``bench_swarm``: the bench's remote entrants, relays in one process.
- ``bench_spectators``: the bench's spectators, in a process of their own.
- ``bench_figures``: the bench's figures (its ``--json``).
"""
