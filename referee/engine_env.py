"""An engine's environment: a few of the referee's variables, those its spec passes by
name, its spec's own, and nothing else.

The referee's environment may hold anything (cloud credentials, API tokens, the referee
key's path): an engine gets only ``BASE_VARIABLES`` and the locale's ``LC_*`` of it,
``HOME`` pointing at its room, the variables its spec names in ``pass_env``, and its
spec's ``env`` over them all. The sandbox's own process (bubblewrap, or the ``unshare``
launcher) is started with the same environment, so nothing more shows in its ``/proc``.
"""

import os
from pathlib import Path
from typing import Final

from .engine_spec import EngineSpec

BASE_VARIABLES: Final = ("PATH", "LANG", "LANGUAGE", "TZ", "PYTHONPATH")
"""The referee's variables every engine gets as they are (with every ``LC_*``): where
programs are, the language, the time zone, and where a Python engine finds the modules
the referee's own Python finds (our built-in engines among them)."""


def engine_environment(spec: EngineSpec, home: Path | None = None) -> dict[str, str]:
    """The whole environment ``spec``'s engine starts with, ``HOME`` being ``home`` (by
    default the folder it runs in: its ``cwd``, else the referee's) unless the spec sets
    it; a name of ``pass_env`` that the referee's environment does not hold is left out,
    as ``docker run -e NAME`` leaves it out."""
    referee = os.environ
    env = {k: v for k, v in referee.items() if k in BASE_VARIABLES or k.startswith("LC_")}
    env.update({name: referee[name] for name in spec.pass_env if name in referee})
    env["HOME"] = str(home or (spec.cwd or Path.cwd()).resolve())
    env.update(spec.env)
    return env
