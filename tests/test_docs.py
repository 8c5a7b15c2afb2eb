"""The documentation: the site builds strictly (no broken link or anchor), the README stays
short and its links lead somewhere, each package's docstring lists its modules, and every
position the pages show can be pasted into ``banqi perft``."""

import ast
import re
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from banqi_cli.main import cli
from banqi_engine.speed_bench import BENCH_POSITIONS

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"
DOCS = ROOT / "docs"
README_MAX_LINES = 260
PACKAGES = (
    "banqi",
    "banqi_common",
    "banqi_engine",
    "protocol",
    "referee",
    "tournaments",
    "banqi_cli",
    "banqi_gui",
)
FOLDERS = {"banqi_gui": ("static",)}  # folders a package's docstring lists beside its modules
# A Markdown link or image: [text](target) or ![alt](target), the target up to a space or ")".
LINK = re.compile(r"!?\[[^\]]*\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)")
POSITION = re.compile(r"[-A-Za-z]{4}(?:/[-A-Za-z]{4}){7}[^`\"|]*")
RULE_SETS = ("hong-kong-forum", "hong-kong", "taiwan-sliding-cannon", "casual")


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The site, built once with ``mkdocs build --strict`` into a temporary folder."""
    out = tmp_path_factory.mktemp("site")
    done = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(out)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    log = done.stdout + done.stderr
    assert done.returncode == 0, log
    assert "WARNING" not in log, log
    return out


def test_the_site_builds_strictly_with_every_page(site: Path) -> None:
    pages = {p.stem for p in DOCS.glob("*.md")}
    assert {"index", "api", "architecture", "figures", "gui"} <= pages
    for page in pages - {"index"}:
        assert (site / page / "index.html").is_file(), page
    assert (site / "gui-replay.png").is_file()
    for viewport in ("390x844", "768x1024", "1280x800", "1920x1080"):
        assert (site / "images" / f"board-{viewport}.png").is_file(), viewport


def test_the_architecture_page_shows_each_package_docstring(site: Path) -> None:
    page = (site / "architecture" / "index.html").read_text(encoding="utf-8")
    for package in PACKAGES:
        assert f'id="{package}"' in page, package
    assert "game_runner" in page


def test_the_readme_is_short() -> None:
    lines = README.read_text(encoding="utf-8").splitlines()
    assert len(lines) < README_MAX_LINES, f"README.md has {len(lines)} lines"


def readme_links() -> list[str]:
    text = README.read_text(encoding="utf-8")
    return [m.group(1) for m in LINK.finditer(text)]


def relative(target: str) -> bool:
    return not re.match(r"[a-z][a-z0-9+.-]*:", target) and not target.startswith("#")


def test_every_relative_link_in_the_readme_points_to_a_file() -> None:
    targets = [t for t in readme_links() if relative(t)]
    assert targets, "the README links into the documentation"
    for target in targets:
        path = target.split("#", 1)[0]
        assert (ROOT / path).exists(), f"README.md links to {target}: no such file"


def test_every_anchor_the_readme_links_to_exists(site: Path) -> None:
    for target in readme_links():
        if not relative(target) or "#" not in target:
            continue
        path, anchor = target.split("#", 1)
        page = Path(path).relative_to("docs").with_suffix("")
        html = (site / page / "index.html").read_text(encoding="utf-8")
        assert f'id="{anchor}"' in html, f"README.md links to {target}: no such anchor"


def listed_modules(package: str) -> set[str]:
    source = (ROOT / package / "__init__.py").read_text(encoding="utf-8")
    docstring = ast.get_docstring(ast.parse(source)) or ""
    return set(re.findall(r"^- ``([\w/]+)``", docstring, re.M))


@pytest.mark.parametrize("package", PACKAGES)
def test_each_package_docstring_lists_its_modules(package: str) -> None:
    """The module map is the packages' docstrings: one line per module, none missing."""
    modules = {p.stem for p in (ROOT / package).glob("*.py")} - {"__init__"}
    folders = {f"{name}/" for name in FOLDERS.get(package, ())}
    assert listed_modules(package) == modules | folders


def doc_positions() -> list[tuple[str, str]]:
    """Every position string in the pages, with the rule set named on its line."""
    found = []
    for page in sorted(DOCS.glob("*.md")):
        for line in page.read_text(encoding="utf-8").splitlines():
            for match in POSITION.finditer(line):
                rules = next((r for r in RULE_SETS if r in line), "olympiad")
                found.append((match.group().strip(), rules))
    return found


def test_the_pages_show_every_benchmark_position() -> None:
    bench = {(entry.position, entry.rules) for entry in BENCH_POSITIONS}
    assert bench <= set(doc_positions())


@pytest.mark.parametrize(("position", "rules"), sorted(set(doc_positions())))
def test_every_position_in_the_pages_runs_in_perft(position: str, rules: str) -> None:
    result = CliRunner().invoke(cli, ["perft", position, "1", "--rules", rules])
    assert result.exit_code == 0, result.output
    assert int(result.output.splitlines()[-1]) > 0
