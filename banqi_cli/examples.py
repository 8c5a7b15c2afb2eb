"""The examples at the end of every command's ``--help``: one home, checked by a test
against each command's own options."""

from typing import Final

import click

EXAMPLES: Final[dict[str, tuple[str, ...]]] = {
    "engine": (
        "banqi-engine                        # as GUIs start it: level 3, Olympiad rules",
        "banqi-engine --level 1 --log e.log  # then type DCTP: 1 name, 12 genmove unknown",
        "banqi-engine --rules hong-kong --param mobility_weight=0.2",
    ),
    "new-engine": (
        "banqi new-engine my_bot               # Python: my_bot/bot.py and its README.md",
        "banqi new-engine my_bot --lang cpp    # C++: my_bot/bot.cpp, built with g++",
    ),
    "check": (
        "banqi check ./my_bot                  # a program by path",
        'banqi check "python3 bot.py"          # an interpreter and its script',
        'banqi check "mine=./bot --depth 4" --time 30 --json',
    ),
    "match": (
        "banqi match ./my_bot banqi-engine --games 10          # 10 s a side by default",
        'banqi match "new=./bot-v2" "old=./bot-v1" --games 100 --time 60 --concurrency 2',
        "banqi match ./my_bot banqi-engine --first-to 5 --games 20 --log-traffic",
    ),
    "tournament": (
        "banqi tournament                      # the demo: our engine's four levels",
        'banqi tournament ./alpha ./beta "gamma=banqi-engine --level 2" --rounds 4 --time 30',
        "banqi tournament gauntlet.toml --out runs/g1 --rounds 3",
    ),
    "sprt": (
        'banqi sprt "new=./engine-v2" "base=./engine-v1" --time 10 --concurrency 2',
        "banqi sprt ./engine-v2 ./engine-v1 --elo0 0 --elo1 10 --max-games 4000",
    ),
    "tune": (
        "banqi tune --write-params params.toml   # a start: every parameter of our engine",
        "banqi tune params.toml --iterations 500 --time 2 --concurrency 2",
    ),
    "serve": (
        "banqi serve arena.toml --add-entrant alice   # prints alice's token once",
        "banqi serve arena.toml --port 8765",
    ),
    "connect": ("banqi connect ws://arena.example:8765/arena --token TOKEN -- ./my_engine",),
    "gui": (
        "banqi gui                             # play our engine in the browser",
        "banqi gui --engine mine=./my_bot      # offer your engine too",
        "banqi gui --watch banqi-runs/tournament",
    ),
    "replay": (
        "banqi replay banqi-runs/tournament/games/r1-1-2-1.json",
        "banqi replay game.txt --rules casual  # a platform text record",
    ),
    "reasons": ("banqi reasons                         # every code that can end a game",),
    "phases": ("banqi phases banqi-runs/match-a-vs-b --json",),
    "deals": (
        "banqi deals --count 100 --out book.json --seed 1",
        "banqi deals --from banqi-runs/match-a-vs-b --at last-flip --out endgames.json",
    ),
    "perft": (
        'banqi perft "XXXX/XXXX/XXXX/XXXX/XXXX/XXXX/XXXX/XXXX - 12222251222225" 3',
        'banqi perft "nM--/----/kg--/---c/prgp/-X--/-r--/Xm-m b 00001000000001" 2 --divide',
    ),
    "bench": ("banqi bench search --seconds 1", "banqi bench strength --games 20"),
    "bench perft": ("banqi bench perft --seconds 2",),
    "bench search": ("banqi bench search --seconds 1      # nodes a second and depth",),
    "bench strength": ("banqi bench strength --games 40 --seconds 0.1",),
    "bench endgame": ("banqi bench endgame --material KPvG --material KCvGP",),
    "bench face-up": ("banqi bench face-up runs/j10 --engine banqi-engine --stride 8",),
    "bench referee": ("banqi bench referee --games 20 --concurrency 2",),
    "bench arena": (
        "banqi bench arena --seconds 60         # 64 relays, 32 games at once",
        "banqi bench arena --spectators 200 --flood --slow-readers --relay-storm --json a.json",
    ),
}
"""Each command's examples, by its name under ``banqi`` (``bench search`` for a
subcommand), each line as typed with an optional ``# comment``."""


def epilog(name: str) -> str:
    """The ``Examples:`` block of command ``name`` (``\\b`` keeps click from rewrapping)."""
    lines = "\n".join(f"  {line}" for line in EXAMPLES[name])
    return f"Examples:\n\n\b\n{lines}"


def add_examples(group: click.Group, prefix: str = "") -> None:
    """Give every command of ``group`` (and of its subgroups) its examples."""
    for name, command in group.commands.items():
        full = f"{prefix}{name}"
        command.epilog = epilog(full)
        if isinstance(command, click.Group):
            add_examples(command, f"{full} ")
