"""Counts in words: the one home of "1 game", "2 games"."""


def counted(count: int, noun: str, plural: str | None = None) -> str:
    """``1 game``, ``2 games`` (``plural``: when it is not ``noun`` + ``s``)."""
    return f"{count} {noun if count == 1 else (plural or noun + 's')}"
