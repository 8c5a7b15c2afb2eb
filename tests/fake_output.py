"""The output half of every fake engine script of the tests (pasted into their templates)."""

from typing import Final

FAKE_OUTPUT: Final = r"""
def out(data):
    sys.stdout.buffer.write(data)
    sys.stdout.buffer.flush()


def reply(i, payload=""):
    out((f"={i} {payload}" if payload else f"={i}").encode() + b"\n")
"""
"""``out(data)`` writes raw bytes to stdout; ``reply(i, payload)`` the DCTP reply ``=i payload``."""
