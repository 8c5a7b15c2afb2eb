"""The browser board: play an engine or a friend, watch runs live, replay records.

An ASGI app (Starlette) and a static page (plain HTML, CSS and JavaScript). The browser
never holds a secret: the server judges every action with the project's rules and
reveals a piece only when it is flipped.
"""
