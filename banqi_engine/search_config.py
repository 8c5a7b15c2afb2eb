"""The search's feature switches, one frozen value, so a benchmark can turn one off.

Every feature is on by default; ``without`` gives a copy with some turned off, and
``FEATURES`` names the boolean switches (for benchmarks that try each in turn).
"""

from dataclasses import dataclass, fields, replace
from typing import Final


@dataclass(frozen=True, slots=True)
class SearchConfig:
    """Which search features are on, and the few numbers that shape them."""

    pvs: bool = True
    """Principal variation search: moves after the first are tried with a null window."""
    lmr: bool = True
    """Late-move reductions for quiet moves late in the order."""
    null_move: bool = True
    """Null-move pruning while face-down pieces remain (conservative reduction)."""
    flip_ordering: bool = True
    """Below the root, flips ordered by a cheap expected value and capped at ``max_flips``."""
    threat_extension: bool = True
    """One more ply when the side to move's most valuable piece can be captured (bounded)."""
    star2: bool = True
    """Star2 probing at chance nodes before the Star1 search of each outcome."""
    aspiration: bool = True
    """Aspiration windows around the last iteration's score at the root."""
    endgame_tables: bool = True
    """Exact values from endgame tables where every piece is face up and few are left."""
    transposition: bool = True
    """The transposition table (off only to check the other features against plain search)."""
    flip_min_depth: int = 2
    """Below the root, flips are searched only with at least this much depth left."""
    max_flips: int = 4
    """With ``flip_ordering``, at most this many flips are searched at a node below the root."""

    def without(self, *names: str) -> "SearchConfig":
        """A copy with the named boolean features turned off."""
        for name in names:
            if name not in FEATURES:
                raise ValueError(f"unknown search feature {name!r}; known: {', '.join(FEATURES)}")
        return replace(self, **dict.fromkeys(names, False))


FEATURES: Final = tuple(
    f.name for f in fields(SearchConfig) if f.type in (bool, "bool") and f.name != "transposition"
)
"""The features a benchmark may switch off one at a time (not the table itself)."""

DEFAULT_CONFIG: Final = SearchConfig()
PLAIN_CONFIG: Final = SearchConfig().without(*FEATURES)
"""Every feature off: the plain Star1 alpha-beta the features are measured against."""
