"""A listening TCP socket, for the servers of the package (the board, the arena)."""

import socket


def listen(host: str, port: int) -> socket.socket:
    """A listening socket on ``host``:``port`` (0: a free port); OSError if it cannot be.

    It is made with protocol ``IPPROTO_TCP`` (not 0), so that asyncio turns Nagle's
    algorithm off on each connection: otherwise every answer waits ~40 ms for an ACK.
    """
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((host, port))
        sock.listen()
    except OSError:
        sock.close()
        raise
    return sock
