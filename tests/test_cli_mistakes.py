"""A newcomer's mistakes, each answered with what was wrong and what to give instead."""

from pathlib import Path

from click.testing import CliRunner

from banqi_cli.main import cli

OPENING = "XXXX/XXXX/XXXX/XXXX/XXXX/XXXX/XXXX/XXXX - 12222251222225"


def run(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(cli, list(args))
    assert result.exception is None or isinstance(result.exception, SystemExit)
    return result.exit_code, result.output


def test_a_json_record_that_is_not_json_is_reported_as_json(tmp_path: Path) -> None:
    (tmp_path / "g.json").write_text("not json\n")
    code, output = run("replay", str(tmp_path / "g.json"))
    assert code == 2
    assert "is not a valid banqi-record/1 record" in output and "Invalid JSON" in output
    assert "text record" not in output


def test_a_folder_given_to_replay_names_a_record_in_it(tmp_path: Path) -> None:
    (tmp_path / "run" / "games").mkdir(parents=True)
    (tmp_path / "run" / "games" / "g0001.json").write_text("{}")
    (tmp_path / "run" / "games" / "g0002.json").write_text("{}")
    code, output = run("replay", str(tmp_path / "run"))
    assert code == 2
    assert "is a folder, not a record file: give one, e.g." in output
    assert "g0001.json (and 1 more)" in output
    code, output = run("replay", str(tmp_path / "run" / "games" / "none"))
    assert code == 2 and "does not exist" in output


def test_a_negative_depth_is_out_of_range_not_an_unknown_option() -> None:
    code, output = run("perft", OPENING, "-1")
    assert code == 2
    assert "-1 is not in the range 0<=x<=20" in output


def test_a_folder_given_as_an_engine_is_said_to_be_a_folder(tmp_path: Path) -> None:
    (tmp_path / "bot").mkdir()
    (tmp_path / "bot.py").write_text("print('hi')\n")
    for engine, words in (
        (tmp_path / "bot", "it is a folder, not a program"),
        (tmp_path / "bot.py", "or give 'python3 bot.py'"),
    ):
        code, output = run("match", str(engine), "banqi-engine", "--out", str(tmp_path / "m"))
        assert code == 1
        assert words in output
