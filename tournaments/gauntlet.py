"""A gauntlet's own report lines: each gauntlet engine's head-to-head figures against each
opponent, from the gauntlet engine's side.

The standings' head-to-head table gives each pair from the higher-ranked engine's side;
these lines turn a pair round where needed. Turned figures are computed again from the
turned counts, so they are exactly what :func:`tournaments.standings.head_to_head` gives
for the same games from that side.
"""

from collections.abc import Sequence

from .elo import pentanomial_elo, wdl_elo
from .results import PairStats, Standings


def gauntlet_pairs(standings: Standings, gauntlet: Sequence[str]) -> list[PairStats]:
    """Each gauntlet engine (in the order given) against each other engine that is not a
    gauntlet engine (in table order), from the gauntlet engine's side; an opponent not met
    yet gets a line of no games."""
    met = {(pair.first, pair.second): pair for pair in standings.pairs}
    lines = []
    for name in gauntlet:
        for row in standings.rows:
            if row.name in gauntlet:
                continue
            if (name, row.name) in met:
                lines.append(met[name, row.name])
            elif (row.name, name) in met:
                lines.append(turned(met[row.name, name]))
            else:
                lines.append(_stats(name, row.name, (0, 0, 0), 0, (0, 0, 0, 0, 0)))
    return lines


def turned(stats: PairStats) -> PairStats:
    """The same head-to-head figures from the other engine's side."""
    penta = stats.pentanomial
    return _stats(
        stats.second,
        stats.first,
        (stats.losses, stats.draws, stats.wins),
        stats.void,
        (penta[4], penta[3], penta[2], penta[1], penta[0]),
    )


def _stats(
    first: str,
    second: str,
    wdl: tuple[int, int, int],
    void: int,
    penta: tuple[int, int, int, int, int],
) -> PairStats:
    """Head-to-head figures of ``first`` from its W-D-L, void games and pair counts."""
    trinomial = wdl_elo(*wdl)
    pentanomial = pentanomial_elo(penta)
    return PairStats(
        first=first,
        second=second,
        games=sum(wdl) + void,
        wins=wdl[0],
        draws=wdl[1],
        losses=wdl[2],
        void=void,
        elo=trinomial.elo,
        elo_error=trinomial.elo_error,
        los=trinomial.los,
        pairs=sum(penta),
        pentanomial=penta,
        penta_elo=pentanomial.elo,
        penta_elo_error=pentanomial.elo_error,
        penta_los=pentanomial.los,
    )
