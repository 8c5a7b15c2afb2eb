"""``report.html``: one self-contained page with the standings, the crosstable and the rating
chart."""

import re
from html.parser import HTMLParser

from test_standings import RESULTS

from tournaments.report_page import report_page
from tournaments.report_tables import report_tables
from tournaments.results import ScoredGame
from tournaments.standings import compute_standings

NAMES = ["C", "B", "A"]
"""The engines of ``RESULTS``: each has rated games."""


class Page(HTMLParser):
    """The tables (rows of cell texts) and the chart's bars of a page, and every tag."""

    def __init__(self, text: str) -> None:
        super().__init__()
        self.tables: list[list[list[str]]] = []
        self.bars: list[dict[str, str | None]] = []
        self.tags: set[str] = set()
        self.attributes: list[tuple[str, str | None]] = []
        self.cell: list[str] | None = None
        self.feed(text)

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.add(tag)
        self.attributes += attrs
        if tag == "table":
            self.tables.append([])
        elif tag == "tr":
            self.tables[-1].append([])
        elif tag in ("td", "th"):
            self.cell = []
        elif tag == "rect":
            self.bars.append(dict(attrs))

    def handle_endtag(self, tag: str) -> None:
        if tag in ("td", "th") and self.cell is not None:
            self.tables[-1][-1].append("".join(self.cell))
            self.cell = None

    def handle_data(self, data: str) -> None:
        if self.cell is not None:
            self.cell.append(data)


def test_the_page_holds_the_tables_and_a_bar_per_engine() -> None:
    standings = compute_standings(RESULTS, NAMES)
    text = report_page(standings)
    page = Page(text)

    expected = report_tables(standings)
    standings_table, crosstable, pairs = page.tables
    assert standings_table == [expected[0].headers, *expected[0].rows]
    assert crosstable == [expected[1].headers, *expected[1].rows]
    assert pairs == [expected[2].headers, *expected[2].rows]
    assert [row[1] for row in standings_table[1:]] == [row.name for row in standings.rows]

    assert len(page.bars) == len(standings.rows) == 3
    assert all("bar" in (bar["class"] or "") for bar in page.bars)
    chart = text[text.index("<svg") : text.index("</svg>")]
    for row in standings.rows:
        assert row.elo is not None and row.elo_error is not None
        assert f"<title>{row.name}: {row.elo:+.1f} ± {row.elo_error:.1f}</title>" in chart
    widths = [float(bar["width"] or 0) for bar in page.bars]
    elos = [abs(row.elo or 0) for row in standings.rows]
    assert widths.index(max(widths)) == elos.index(max(elos))


def test_the_page_needs_nothing_from_elsewhere() -> None:
    text = report_page(compute_standings(RESULTS, NAMES))
    page = Page(text)
    assert page.tags.isdisjoint({"script", "link", "img", "iframe", "object", "embed"})
    assert not [name for name, _ in page.attributes if name in ("src", "href")]
    assert "url(" not in text and "@import" not in text and "://" not in text
    assert text.startswith("<!DOCTYPE html>") and "<svg" in text and "<style>" in text


def test_names_are_escaped_and_an_engine_without_rated_games_has_no_bar() -> None:
    results = [ScoredGame(first="<b>&", second="x", winner=0, pair=1)]
    text = report_page(compute_standings(results, ["<b>&", "x", "idle"]))
    assert "<b>&" not in text and "&lt;b&gt;&amp;" in text
    assert len(Page(text).bars) == 2
    assert "no rated games" in text


def test_a_gauntlets_lines_close_the_page() -> None:
    text = report_page(compute_standings(RESULTS, NAMES), ["A vs B: 1 game"])
    assert re.search(r"<h2>Gauntlet</h2>\s*<ul>\s*<li>A vs B: 1 game</li>\s*</ul>", text)


def test_a_page_without_engines() -> None:
    page = Page(report_page(compute_standings([], [])))
    assert page.bars == [] and page.tables == []
