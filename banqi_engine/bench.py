"""Perft speed on fixed positions (the figures in the README come from here)."""

import time
from collections.abc import Iterator
from dataclasses import dataclass

from .perft import perft
from .position import parse_position
from .rules import PRESETS

BENCH_POSITIONS = (
    ("olympiad", "XXXX/XXXX/XXXX/XXXX/XXXX/XXXX/XXXX/XXXX - 12222251222225", 3),
    ("olympiad", "XpXn/XpG-/Xn-X/XXX-/XX-P/-XK-/NXXX/C--C b 01220021111012", 3),
    ("olympiad", "nM--/----/kg--/---c/prgp/-X--/-r--/Xm-m b 00001000000001", 5),
    ("hong-kong", "N-PX/----/XK--/--R-/X--X/n-XX/XkXX/G-XC b 00010110120013", 3),
    ("taiwan-sliding-cannon", "-M-P/GX-c/P---/-X--/-X-N/n-X-/-gXM/RX-- b 01000100001111", 4),
)


@dataclass(frozen=True)
class BenchRow:
    """One position's measurement."""

    rules: str
    position: str
    depth: int
    leaves: int
    seconds: float


def bench_perft(min_seconds: float) -> Iterator[BenchRow]:
    """Run perft on each bench position, repeating until ``min_seconds`` of CPU time
    have passed (CPU time, so other load on the machine does not change the figure)."""
    for rules_name, text, depth in BENCH_POSITIONS:
        pos = parse_position(text)
        rules = PRESETS[rules_name]
        leaves = 0
        start = time.process_time()
        while True:
            leaves += perft(pos, rules, depth)
            elapsed = time.process_time() - start
            if elapsed >= min_seconds:
                break
        yield BenchRow(rules_name, text, depth, leaves, elapsed)
