"""``banqi gui``: it prints an address with a token, serves the page, stops cleanly on Ctrl-C,
and says what to install when the GUI's packages are missing."""

import http.client
import json
import signal
import socket
import subprocess
import sys
from pathlib import Path
from urllib.parse import urlsplit

import pytest

pytest.importorskip("starlette", reason="the GUI tests need: pip install -e '.[test]'")

BANQI = (sys.executable, "-c", "from banqi_cli.entry import main; main()")


def start(tmp_path: Path, *options: str) -> tuple[subprocess.Popen[str], str]:
    """``banqi gui`` with these options, and the address it printed."""
    process = subprocess.Popen(
        [*BANQI, "gui", "--no-browser", "--sandbox", "off", "--runs", str(tmp_path), *options],
        cwd=tmp_path,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert process.stdout is not None
    line = process.stdout.readline()
    assert line.startswith("banqi gui: http://127.0.0.1:"), line
    return process, line.split(": ", 1)[1].strip()


def stop(process: subprocess.Popen[str]) -> tuple[int, str]:
    process.send_signal(signal.SIGINT)
    _, err = process.communicate(timeout=15)
    return process.returncode, err


def test_it_serves_the_page_with_its_token_and_stops_on_ctrl_c(tmp_path: Path) -> None:
    run = tmp_path / "t1"
    (run / "games").mkdir(parents=True)
    process, url = start(tmp_path, "--watch", str(run))
    try:
        parts = urlsplit(url)
        assert parts.fragment == "watch/t1"
        token = parts.query.removeprefix("token=")
        connection = http.client.HTTPConnection(parts.netloc, timeout=10)
        connection.request("GET", f"/?{parts.query}")
        opened = connection.getresponse()
        opened.read()
        assert opened.status == 303 and "banqi_token" in (opened.getheader("set-cookie") or "")
        connection.request("GET", "/api/runs", headers={"X-Banqi-Token": token})
        runs = json.loads(connection.getresponse().read())["runs"]
        assert [r["id"] for r in runs] == ["t1"]
        connection.request("GET", "/api/runs")
        refused = connection.getresponse()
        refused.read()
        assert refused.status == 401
    finally:
        status, err = stop(process)
    assert status == 130 and "Traceback" not in err


def test_a_port_in_use_is_a_clear_error(tmp_path: Path) -> None:
    with socket.create_server(("127.0.0.1", 0)) as taken:
        port = str(taken.getsockname()[1])
        done = subprocess.run(
            [*BANQI, "gui", "--no-browser", "--sandbox", "off", "--port", port],
            cwd=tmp_path,
            capture_output=True,
            text=True,
            timeout=30,
        )
    assert done.returncode == 1
    assert done.stderr.startswith(f"Error: cannot listen on 127.0.0.1:{port}")


def test_without_the_gui_extra_it_says_what_to_install(tmp_path: Path) -> None:
    code = (
        "import sys; sys.modules['starlette'] = None\n"
        "from banqi_cli.entry import main; sys.argv = ['banqi', 'gui', '--no-browser']; main()"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True, timeout=30
    )
    assert done.returncode == 1 and "Traceback" not in done.stderr
    assert "pip install 'banqi[gui]'" in done.stderr


@pytest.mark.parametrize(
    ("options", "status", "words"),
    [
        (["--watch", "nosuch"], 2, "nosuch does not exist"),
        (["--watch", "."], 2, ". is not a run folder"),
        (["--engine", "./nosuch"], 1, "engine 'nosuch' (./nosuch) cannot start"),
    ],
)
def test_what_cannot_be_used_is_refused_before_it_serves(
    tmp_path: Path, options: list[str], status: int, words: str
) -> None:
    done = subprocess.run(
        [*BANQI, "gui", "--no-browser", "--sandbox", "off", *options],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == status, done.stderr
    assert words in done.stderr
    assert "banqi gui: http" not in done.stdout and "Traceback" not in done.stderr
