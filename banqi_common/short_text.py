"""Text cut to fit one line: the one rule for shortening what an engine said."""

ELLIPSIS = "…"


def _shown(char: str) -> str:
    """A character as a terminal may be given it: a control character (an escape sequence's
    start, a bell) as its Python escape, ``\\x1b``."""
    return char if char.isprintable() else repr(char)[1:-1]


def one_line(text: str) -> str:
    """``text`` with its line breaks and runs of blanks made single spaces, and any other
    control character escaped (what an engine said cannot move a terminal's cursor)."""
    return "".join(map(_shown, " ".join(text.split())))


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


def end_kept(text: str, width: int) -> str:
    """``text`` on one line, at most ``width`` characters: when it is longer, its start is
    cut (``…``) and its end kept whole (the last lines of a crashed engine's stderr)."""
    flat = one_line(text)
    if len(flat) <= width:
        return flat
    return ELLIPSIS + flat[len(flat) - max(width - len(ELLIPSIS), 1) :].lstrip()
