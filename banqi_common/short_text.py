"""Text cut to fit one line: the one rule for shortening what an engine said."""

ELLIPSIS = "…"


def one_line(text: str) -> str:
    """``text`` with its line breaks and runs of blanks made single spaces."""
    return " ".join(text.split())


def shortened(text: str, width: int) -> str:
    """``text`` on one line, at most ``width`` characters: its middle is cut (``…``) when it
    is longer, so that both how it starts and how it ends (a traceback's last line) stay."""
    flat = one_line(text)
    if len(flat) <= width:
        return flat
    keep = max(width - len(ELLIPSIS), 2)
    head = (keep + 1) // 2
    return flat[:head].rstrip() + ELLIPSIS + flat[len(flat) - (keep - head) :].lstrip()
