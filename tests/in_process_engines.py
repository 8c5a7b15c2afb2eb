"""The project's engine loop played in-process: the referee's engine factory for logic tests.

An engine spec's command is read with ``banqi-engine``'s own options (``--level``,
``--seed``, ``--rules``), and a ``DctpEngine`` with that player answers in this
process, so a test plays real games through the referee with no subprocess.
"""

import sys
from pathlib import Path

from banqi_cli.engine import engine_command
from banqi_engine.players import make_player
from protocol.engine_loop import DctpEngine
from referee.engine_spec import EngineSpec
from referee.engine_start import EngineFactory, in_process_engines

ENGINE = str(Path(sys.executable).with_name("banqi-engine"))


def engine_spec(name: str, *options: str) -> EngineSpec:
    """A spec of our engine with these ``banqi-engine`` options."""
    return EngineSpec(name=name, command=(ENGINE, *options))


def engine_loop(spec: EngineSpec) -> DctpEngine:
    """The engine loop ``spec``'s command would run, built from its ``banqi-engine`` options."""
    context = engine_command.make_context("banqi-engine", list(spec.command[1:]))
    rules = context.params["rules"]
    player = make_player(context.params["level"], context.params["seed"], rules)
    return DctpEngine(rules, player)


def in_process() -> EngineFactory:
    """The referee's engine factory that plays ``engine_loop(spec)`` in this process."""
    return in_process_engines(engine_loop)
