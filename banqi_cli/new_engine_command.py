"""``banqi new-engine DIR --lang python|cpp``: a starter bot to make one's own."""

import stat
from importlib import resources
from pathlib import Path
from typing import Final

import click

from . import output

STARTERS: Final = {"python": "bot.py", "cpp": "bot.cpp"}
"""Each language's starter, a file of ``banqi_cli/starters/<lang>/``."""

README: Final = """# {name}

A DCTP bot for Chinese Dark Chess, from `banqi new-engine --lang {lang}`. It plays
legal moves (the biggest capture, else at random); make it yours in `choose_move`.

{build_words}`banqi check` drives it through every command and the hard cases, then a whole
game against our engine; `banqi match` plays four games against our engine:

```sh
{build}banqi check {run}
banqi match {run} banqi-engine --games 4 --time 10
```

The protocol, command by command, with a whole game's transcript: the page "Writing an
engine" of banqi's manual (`docs/bot-authors.md` in its sources).
"""

BUILD: Final = {"python": "", "cpp": "g++ -O2 -std=c++17 -o bot bot.cpp\n"}
BUILD_WORDS: Final = {"python": "", "cpp": "Build it with g++ (any C++17 compiler).\n"}
RUN: Final = {"python": "./bot.py", "cpp": "./bot"}


def starter_text(lang: str) -> str:
    """The source of a language's starter bot."""
    return (resources.files("banqi_cli") / "starters" / lang / STARTERS[lang]).read_text()


def write_starter(folder: Path, lang: str) -> list[Path]:
    """Write the starter of ``lang`` and its README into ``folder`` (made if need be); the
    files written. Refuses, writing nothing, if either file is there already."""
    source = folder / STARTERS[lang]
    readme = folder / "README.md"
    there = [path for path in (source, readme) if path.exists() or path.is_symlink()]
    if there:
        raise click.ClickException(
            f"{there[0]} exists already: give a new folder, or one without "
            f"{STARTERS[lang]} and README.md"
        )
    if folder.exists() and not folder.is_dir():
        raise click.ClickException(f"{folder} is a file, not a folder")
    try:
        folder.mkdir(parents=True, exist_ok=True)
        source.write_text(starter_text(lang))
        if lang == "python":
            source.chmod(source.stat().st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)
        text = README.format(
            name=folder.resolve().name,
            lang=lang,
            build=BUILD[lang],
            build_words=BUILD_WORDS[lang],
            run=RUN[lang],
        )
        readme.write_text(text)
    except OSError as error:
        raise click.ClickException(f"cannot write the starter into {folder}: {error}") from None
    return [source, readme]


@click.command(name="new-engine")
@click.argument("folder", metavar="DIR", type=click.Path(path_type=Path))
@click.option(
    "--lang",
    type=click.Choice(sorted(STARTERS)),
    default="python",
    show_default=True,
    help="The starter's language.",
)
def new_engine_command(folder: Path, lang: str) -> None:
    """Write a small, complete DCTP bot into DIR: the command loop (ids, replies flushed,
    the move and flip echoes, the clock) and legal moves by the Olympiad rules, with a
    README of the commands that check it and play it."""
    for path in write_starter(folder, lang):
        output.say(f"wrote {path}")
    steps = [f"cd {folder}"]
    if lang == "cpp":
        steps.append(BUILD[lang].strip())
    steps += [
        f"banqi check {RUN[lang]}",
        f"banqi match {RUN[lang]} banqi-engine --games 4 --time 10",
    ]
    output.say("next: " + " && ".join(steps))
