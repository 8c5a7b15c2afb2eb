"""Every ``python`` block of ``docs/api.md`` runs as it is: a broken example fails here.

Each block runs as a script of its own, in a fresh folder, with this environment's
``banqi-engine`` first on the PATH and a time limit.
"""

import functools
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

PAGE = Path(__file__).resolve().parent.parent / "docs" / "api.md"
BLOCK = re.compile(r"^```python\n(.*?)^```$", re.DOTALL | re.MULTILINE)
LIMIT = 60.0
"""Seconds one example may take (each takes a few)."""


def examples() -> list[str]:
    """The code of every ``python`` block of the page, in order."""
    return BLOCK.findall(PAGE.read_text(encoding="utf-8"))


def test_the_page_has_its_examples() -> None:
    codes = examples()
    assert len(codes) >= 6
    assert any("banqi.Engine.popen" in code and ".play(" in code for code in codes)
    assert any("banqi.play_game(" in code for code in codes)
    assert any("banqi.run_match(" in code for code in codes)


run_script = functools.partial(
    subprocess.run, capture_output=True, text=True, timeout=LIMIT, check=False
)
"""A script run to its end, its output kept."""


@pytest.mark.parametrize("number", range(len(examples())))
def test_an_example_runs(number: int, tmp_path: Path) -> None:
    script = tmp_path / f"example_{number}.py"
    script.write_text(examples()[number], encoding="utf-8")
    env = dict(os.environ)
    env["PATH"] = os.pathsep.join([str(Path(sys.executable).parent), env.get("PATH", "")])
    env["BANQI_REFEREE_KEY"] = str(tmp_path / "referee.key")  # the key a match example makes
    done = run_script([sys.executable, str(script)], cwd=tmp_path, env=env)
    assert done.returncode == 0, f"example {number} failed:\n{done.stdout}\n{done.stderr}"
    assert done.stdout.strip(), f"example {number} printed nothing"
