"""The optional compiled build: with ``BANQI_COMPILE=1`` at install time, mypyc compiles
the engine's hot modules to C extensions (``BANQI_COMPILE=1 pip install .``).

Without it (the default everywhere, the tests too) nothing is compiled and nothing more
than setuptools is needed to build: the engine runs as pure Python. With it, the build
needs mypy and pydantic (``_build_backend`` asks for them), a C compiler and Python's
headers; the installed package has no new runtime dependency. The pure-Python modules
stay installed beside the extensions, which Python imports first.
"""

import os

from setuptools import setup

COMPILED_MODULES = (
    "squares",
    "pieces",
    "moves",
    "position",
    "movegen_tables",
    "movegen",
    "two_ply_count",
    "perft",
    "transposition",
    "evaluation",
    "evaluation_tactics",
    "search_flips",
    "search",
    "endgame_bits",
    "endgame_build",
    "endgame",
)
"""The modules of ``banqi_engine`` that perft and the search run in, compiled together."""


def _compile_requested() -> bool:
    value = os.environ.get("BANQI_COMPILE", "").strip()
    if value not in ("", "0", "1"):
        raise SystemExit(f"Error: BANQI_COMPILE must be 1 (compile with mypyc) or 0, got {value!r}")
    return value == "1"


def _ext_modules() -> list[object]:
    if not _compile_requested():
        return []
    try:
        from mypyc.build import mypycify
    except ImportError:
        raise SystemExit(
            "Error: BANQI_COMPILE=1 needs mypy at build time: build with pip's build isolation "
            "(the default), or install mypy and pydantic first"
        ) from None
    return list(
        mypycify(
            [f"banqi_engine/{name}.py" for name in COMPILED_MODULES],
            opt_level="3",
            group_name="banqi_engine",
        )
    )


setup(ext_modules=_ext_modules())
