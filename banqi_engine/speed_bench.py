"""Speed benchmarks of perft and of the search on one fixed list of positions."""

import random
import time
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Final, NamedTuple

from .perft import perft
from .pieces import UNDECIDED
from .position import parse_position
from .rules import PRESETS
from .search import Searcher, SearchResult


class BenchPosition(NamedTuple):
    """One bench position: the rule-set preset it is played under, and its perft depth."""

    rules: str
    position: str
    perft_depth: int


BENCH_POSITIONS: Final = (
    BenchPosition("olympiad", "XXXX/XXXX/XXXX/XXXX/XXXX/XXXX/XXXX/XXXX - 12222251222225", 3),
    BenchPosition("olympiad", "XXXX/XXXX/XXXX/XXXX/XXXX/XXPX/XXXX/XXXX b 12222241222225", 3),
    BenchPosition("olympiad", "XpXn/XpG-/Xn-X/XXX-/XX-P/-XK-/NXXX/C--C b 01220021111012", 3),
    BenchPosition("olympiad", "nM--/----/kg--/---c/prgp/-X--/-r--/Xm-m b 00001000000001", 5),
    BenchPosition("hong-kong", "N-PX/----/XK--/--R-/X--X/n-XX/XkXX/G-XC b 00010110120013", 3),
    BenchPosition(
        "taiwan-sliding-cannon", "-M-P/GX-c/P---/-X--/-X-N/n-X-/-gXM/RX-- b 01000100001111", 4
    ),
)
"""The positions of ``banqi bench perft`` (all) and ``banqi bench search`` (those
whose colours are decided: the search needs a side to move)."""


@dataclass(frozen=True)
class BenchRow:
    """One position's perft measurement."""

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


def bench_search(
    seconds: float | None, nodes: int | None = None, seed: int = 0
) -> Iterator[tuple[BenchPosition, SearchResult]]:
    """Search each bench position with a side to move for ``seconds``, or to ``nodes``
    nodes with no clock (then the result depends on nothing but the engine's code), each
    with a fresh searcher."""
    for entry in BENCH_POSITIONS:
        pos = parse_position(entry.position)
        if pos.side == UNDECIDED:
            continue
        searcher = Searcher(PRESETS[entry.rules])
        yield entry, searcher.search(pos, random.Random(seed), seconds=seconds, max_nodes=nodes)
