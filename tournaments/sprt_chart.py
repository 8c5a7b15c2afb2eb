"""``sprt.html``: one self-contained page (plain SVG written here, no script, nothing
fetched) that shows an SPRT as fishtest shows a test: the log-likelihood ratio after each
pair against its two bounds, and the Elo estimate in the test's model with its 95% margin
against the two hypotheses, over the games counted (its range leaves out the first quarter
of the points, whose estimates swing widely, and clips them).

The LLR is one path (``id="llr"``) with a point per pair counted; the Elo estimate one path
(``id="elo"``) with a point per pair at which it is defined (a new subpath after a gap),
its margin a filled path (``id="elo-margin"``). Each chart marks its last point with a dot.
:func:`estimate_text` writes an estimate as the page and the progress lines show it. Given
the run's :class:`~tournaments.report_about.ReportAbout`, the page ends with it, as the
reports show it (:func:`tournaments.report_page.about_section`).
"""

import math
from collections.abc import Sequence
from html import escape
from typing import Final

from .elo import without_spread
from .report_about import ReportAbout
from .report_page import about_section
from .sprt import SprtPoint, SprtStatus, Verdict

WIDTH: Final = 760
HEIGHT: Final = 280
LEFT, RIGHT, TOP, BOTTOM = 64, 16, 12, 40
"""Room around the plot area, for the tick labels."""

STYLE: Final = """
body { font: 15px/1.4 system-ui, sans-serif; margin: 2em auto; max-width: 800px; color: #222; }
h1 { font-size: 1.4em; } h2 { font-size: 1.1em; margin-top: 1.6em; }
table { border-collapse: collapse; } td, th { padding: 2px 14px 2px 0; text-align: left; }
th { font-weight: normal; color: #666; }
.verdict { font-size: 1.15em; font-weight: bold; }
.H1 { color: #1a7f37; } .H0 { color: #b42318; } .open { color: #666; }
svg text { font: 12px system-ui, sans-serif; fill: #444; }
.grid { stroke: #e8e8e8; } .frame { fill: none; stroke: #999; }
.lower { stroke: #b42318; stroke-dasharray: 6 4; }
.upper { stroke: #1a7f37; stroke-dasharray: 6 4; }
.zero { stroke: #999; } .hypothesis { stroke: #7a5af8; stroke-dasharray: 6 4; }
.line { fill: none; stroke: #175cd3; stroke-width: 1.8; stroke-linejoin: round; }
.dot { fill: #175cd3; } .band { fill: #175cd3; fill-opacity: 0.15; stroke: none; }
"""


class _Plot:
    """The data range of one chart and its map to pixels."""

    def __init__(self, games: int, low: float, high: float) -> None:
        self.games = max(games, 2)
        self.low, self.high = low, high

    def x(self, games: float) -> float:
        return LEFT + games / self.games * (WIDTH - LEFT - RIGHT)

    def y(self, value: float) -> float:
        share = (value - self.low) / (self.high - self.low)
        return HEIGHT - BOTTOM - share * (HEIGHT - TOP - BOTTOM)

    def hline(self, value: float, kind: str, label: str = "", below: bool = False) -> str:
        """A horizontal line across the plot at ``value``, labelled at its right end, above
        the line or ``below`` it."""
        y = self.y(value)
        right = WIDTH - RIGHT
        text_y = y + 14 if below else y - 4
        return (
            f'<line class="{kind}" x1="{LEFT}" y1="{y:.1f}" x2="{right}" y2="{y:.1f}"/>'
            f'<text x="{right - 4}" y="{text_y:.1f}" text-anchor="end">{escape(label)}</text>'
        )

    def path_data(self, points: Sequence[tuple[float, float]]) -> str:
        """``M x,y L x,y ...`` through the (games, value) points."""
        return " ".join(
            f"{'L' if i else 'M'}{self.x(games):.1f},{self.y(value):.1f}"
            for i, (games, value) in enumerate(points)
        )

    def line(self, name: str, runs: Sequence[Sequence[tuple[float, float]]]) -> str:
        """A path through each run of points, and a dot at the last point."""
        data = " ".join(self.path_data(run) for run in runs if run)
        dot = ""
        if runs and runs[-1]:
            games, value = runs[-1][-1]
            dot = f'<circle class="dot" cx="{self.x(games):.1f}" cy="{self.y(value):.1f}" r="3"/>'
        return f'<path id="{name}" class="line" d="{data}"/>{dot}'

    def svg(self, name: str, body: Sequence[str], y_label: str) -> str:
        """The chart: grid and tick labels, then ``body`` clipped to the plot area."""
        width, height = WIDTH - LEFT - RIGHT, HEIGHT - TOP - BOTTOM
        parts = [
            f'<svg id="{name}" xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" '
            f'height="{HEIGHT}" viewBox="0 0 {WIDTH} {HEIGHT}">',
            f'<clipPath id="{name}-area"><rect x="{LEFT}" y="{TOP}" width="{width}" '
            f'height="{height}"/></clipPath>',
        ]
        for value in _ticks(self.low, self.high):
            y = self.y(value)
            parts.append(
                f'<line class="grid" x1="{LEFT}" y1="{y:.1f}" x2="{WIDTH - RIGHT}" y2="{y:.1f}"/>'
                f'<text x="{LEFT - 6}" y="{y + 4:.1f}" text-anchor="end">{value:g}</text>'
            )
        for games in (tick for tick in _ticks(0, self.games) if tick == int(tick)):
            x, bottom = self.x(games), HEIGHT - BOTTOM
            parts.append(
                f'<line class="grid" x1="{x:.1f}" y1="{TOP}" x2="{x:.1f}" y2="{bottom}"/>'
                f'<text x="{x:.1f}" y="{bottom + 16}" text-anchor="middle">{games:g}</text>'
            )
        parts += [
            f'<rect class="frame" x="{LEFT}" y="{TOP}" width="{width}" height="{height}"/>',
            f'<text x="{LEFT + width / 2:.1f}" y="{HEIGHT - 6}" text-anchor="middle">games</text>',
            f'<text transform="translate(14 {TOP + height / 2:.1f}) rotate(-90)" '
            f'text-anchor="middle">{escape(y_label)}</text>',
            f'<g clip-path="url(#{name}-area)">',
            *body,
            "</g>",
            "</svg>",
        ]
        return "\n".join(parts)


def chart_html(status: SprtStatus, about: ReportAbout | None = None) -> str:
    """The whole page for a test as counted so far, and the run's ``about`` block, if
    given."""
    unit = status.test.model.unit
    title = f"SPRT: {status.new} vs {status.base}"
    return "\n".join(
        [
            "<!DOCTYPE html>",
            '<html lang="en">',
            "<head>",
            '<meta charset="utf-8">',
            f"<title>{escape(title)}</title>",
            f"<style>{STYLE}</style>",
            "</head>",
            "<body>",
            f"<h1>{escape(title)}</h1>",
            _verdict(status),
            _summary(status),
            "<h2>Log-likelihood ratio after each pair</h2>",
            _llr_chart(status),
            f"<h2>{unit} of {escape(status.new)} against {escape(status.base)}, with its 95% "
            "margin</h2>",
            _elo_chart(status),
            *([] if about is None else [about_section(about)]),
            "</body>",
            "</html>",
            "",
        ]
    )


def _verdict(status: SprtStatus) -> str:
    verdict = status.verdict
    if verdict is Verdict.H1 or verdict is Verdict.H0:
        return f'<p class="verdict {verdict.value}">{verdict.value} accepted</p>'
    words = "running" if verdict is None else f"inconclusive after {status.games} games"
    return f'<p class="verdict open">{words}</p>'


def _summary(status: SprtStatus) -> str:
    test = status.test
    unit = test.model.unit
    void = f", {status.void} void" if status.void else ""
    rows = [
        (
            "Hypotheses",
            f"H0: {unit} = {test.elo0:g}, H1: {unit} = {test.elo1:g} ({test.model.value} Elo)",
        ),
        ("Error rates", f"alpha {test.alpha:g}, beta {test.beta:g}"),
        ("LLR", f"{status.llr:.2f} (bounds {status.lower_bound:.2f}, {status.upper_bound:.2f})"),
        ("Games", f"{status.games} of at most {status.max_games}, {status.pairs} pairs"),
        ("W-D-L", f"{status.wins}-{status.draws}-{status.losses}{void}"),
        ("Pairs LL, LD, DD+WL, WD, WW", ", ".join(map(str, status.pentanomial))),
        ("Elo", estimate_text(status.elo, status.elo_error, status.pentanomial)),
        ("nElo", estimate_text(status.nelo, status.nelo_error, status.pentanomial)),
    ]
    cells = (f"<tr><th>{escape(name)}</th><td>{escape(value)}</td></tr>" for name, value in rows)
    return "<table>\n" + "\n".join(cells) + "\n</table>"


def estimate_text(elo: float | None, error: float | None, counts: Sequence[int]) -> str:
    """An Elo estimate of pair ``counts`` as the reports write it, ``+12.3 ± 4.5``: ``+inf``
    or ``-inf`` when every pair was won or lost, ``n/a`` for what pairs without spread cannot
    support, a margin ``inf`` when its 95% interval reaches a score of 0% or 100%."""
    pairs = sum(counts)
    if elo is None:
        if pairs and counts[-1] == pairs:
            return "+inf"
        return "-inf" if pairs and counts[0] == pairs else "n/a"
    if error is None:
        return f"{elo:+.1f} ± " + ("n/a" if without_spread(counts) else "inf")
    return f"{elo:+.1f} ± {error:.1f}"


def _llr_chart(status: SprtStatus) -> str:
    values = [point.llr for point in status.history]
    plot = _Plot(
        status.games,
        *_padded(min([*values, status.lower_bound]), max([*values, status.upper_bound])),
    )
    body = [
        plot.hline(status.upper_bound, "upper", f"H1 at {status.upper_bound:.2f}"),
        plot.hline(status.lower_bound, "lower", f"H0 at {status.lower_bound:.2f}", below=True),
        plot.hline(0.0, "zero"),
        plot.line("llr", [[(point.games, point.llr) for point in status.history]]),
    ]
    return plot.svg("llr-chart", body, "LLR")


def _elo_chart(status: SprtStatus) -> str:
    test = status.test
    runs = _runs(status.history)
    later = status.history[len(status.history) // 4 :]
    values = [test.elo0, test.elo1, *(p.elo for p in later if p.elo is not None)]
    last = next((p for p in reversed(status.history) if p.elo is not None), None)
    if last is not None and last.elo is not None and last.elo_error is not None:
        values += [last.elo - last.elo_error, last.elo + last.elo_error]
    plot = _Plot(status.games, *_padded(min(values), max(values)))
    body = [
        _band(plot, status.history),
        plot.hline(test.elo1, "hypothesis", f"H1 {test.elo1:g}"),
        plot.hline(test.elo0, "hypothesis", f"H0 {test.elo0:g}", below=True),
        plot.line("elo", runs),
    ]
    return plot.svg("elo-chart", body, test.model.unit)


def _runs(history: Sequence[SprtPoint]) -> list[list[tuple[float, float]]]:
    """The (games, Elo) points, split where the Elo is undefined."""
    runs: list[list[tuple[float, float]]] = [[]]
    for point in history:
        if point.elo is None:
            runs.append([])
        else:
            runs[-1].append((point.games, point.elo))
    return [run for run in runs if run]


def _band(plot: _Plot, history: Sequence[SprtPoint]) -> str:
    """The 95% margin: a closed shape over each run of points that have one."""
    shapes = []
    run: list[tuple[float, float, float]] = []
    for point in [*history, None]:
        if point is not None and point.elo is not None and point.elo_error is not None:
            run.append((point.games, point.elo, point.elo_error))
        elif run:
            upper = [(games, elo + error) for games, elo, error in run]
            lower = [(games, elo - error) for games, elo, error in reversed(run)]
            shapes.append(plot.path_data(upper + lower) + " Z")
            run = []
    return f'<path id="elo-margin" class="band" d="{" ".join(shapes)}"/>'


def _padded(low: float, high: float) -> tuple[float, float]:
    """The range with 8% of room above and below (one unit each way if it is empty)."""
    room = (high - low) * 0.08 or 1.0
    return low - room, high + room


def _ticks(low: float, high: float) -> list[float]:
    """Round values (1, 2 or 5 times a power of ten apart) from ``low`` to ``high``, about 5."""
    rough = (high - low) / 5
    power = 10 ** math.floor(math.log10(rough))
    step = next(m * power for m in (1, 2, 5, 10) if m * power >= rough)
    first = math.ceil(low / step)
    return [k * step + 0.0 for k in range(first, math.floor(high / step) + 1)]
