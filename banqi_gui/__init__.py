"""The browser board: play an engine or a friend, watch runs live, replay records.

An ASGI app (Starlette) and a static page (plain HTML, CSS and JavaScript). The browser
never holds a secret: the server judges every action with the project's rules and
reveals a piece only when it is flipped.

- ``app``: the routes, the JSON API and the token.
- ``server``: the socket, uvicorn and the browser opened.
- ``play_settings``: a new game's settings (``PlaySettings``), the engines offered.
- ``play_session``: one game: the referee's game loop over a person's seat and an engine's, and
  what is the browser's own: undo and hints.
- ``play_view``: what the page is sent of a game: no face-down piece, ever.
- ``sessions``: the play sessions a server holds.
- ``board_view``: a position as the page sees it: squares, legal actions, captured pieces.
- ``watch``: run folders as the watch page sees them: live games, finished games, standings.
- ``match_line``: a match's head-to-head line, as ``banqi match`` prints it.
- ``replay_view``: a record ply by ply, the ending, the layout.
- ``event_feed``: an arena's event as its spectators (behind the delay, nothing hidden) and
  its organiser see it, built from its run folder.
- ``event_results``: the finished games' part of the event's views, rebuilt when the records
  change.
- ``json_pieces``: compact JSON, and JSON put together from pieces already encoded.
- ``http_body``: an answer's bytes and their gzip form, compressed once for every client.
- ``event_routes``: the event's pages on ``banqi serve``'s port.
- ``spectator_delay``: how far behind the games spectators are kept.
- ``web_common``: the security headers, JSON errors and token checks every page shares.
- ``static/``: the pages (the board's, the event's, the organiser's) and their modules.
"""
