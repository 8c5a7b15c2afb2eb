"""Text cut to fit one line: the one rule for shortening what an engine said."""

ELLIPSIS = "…"


def one_line(text: str) -> str:
    """``text`` with its line breaks and runs of blanks made single spaces."""
    return " ".join(text.split())


def shortened(text: str, width: int) -> str:
    """``text`` on one line, at most ``width`` characters: when it is longer, a cut (``…``)
    keeps its start (two fifths) and its end (the rest: a traceback's last line, what an
    engine printed before it lost on time)."""
    flat = one_line(text)
    if len(flat) <= width:
        return flat
    keep = max(width - len(ELLIPSIS), 2)
    head = keep * 2 // 5
    return flat[:head].rstrip() + ELLIPSIS + flat[len(flat) - (keep - head) :].lstrip()
