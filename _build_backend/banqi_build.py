"""The build backend: setuptools' own, asking for mypy and pydantic as build
requirements when ``BANQI_COMPILE=1`` (see ``setup.py``), and refusing that for an
editable install.

An editable compiled install would leave the extensions in the source folder, where
they would shadow every later edit of the modules (and the tests would run them).
"""

import os

from setuptools import build_meta as _setuptools
from setuptools.build_meta import *  # noqa: F403 (the hooks not redefined here)

ConfigSettings = dict[str, str | list[str] | None] | None

COMPILE_REQUIRES = ["mypy>=1.8", "pydantic>=2.5"]
"""mypyc type-checks what it compiles: the engine's modules import pydantic, and the
project's mypy settings load its plugin."""


def _compile_requested() -> bool:
    return os.environ.get("BANQI_COMPILE", "").strip() == "1"


def _refuse_compiled_editable() -> None:
    if _compile_requested():
        raise SystemExit(
            "Error: BANQI_COMPILE=1 is for a normal install (pip install .), not an editable "
            "one: the compiled modules would shadow edits of the source"
        )


def get_requires_for_build_wheel(config_settings: ConfigSettings = None) -> list[str]:
    if not _compile_requested():
        return _setuptools.get_requires_for_build_wheel(config_settings)
    # setuptools' hook runs setup.py, which would need mypyc, not installed yet: ask it
    # with BANQI_COMPILE unset (this hook's process ends after it), then add mypy's.
    del os.environ["BANQI_COMPILE"]
    return _setuptools.get_requires_for_build_wheel(config_settings) + COMPILE_REQUIRES


def get_requires_for_build_editable(config_settings: ConfigSettings = None) -> list[str]:
    _refuse_compiled_editable()
    return _setuptools.get_requires_for_build_editable(config_settings)


def build_editable(
    wheel_directory: str,
    config_settings: ConfigSettings = None,
    metadata_directory: str | None = None,
) -> str:
    _refuse_compiled_editable()
    return _setuptools.build_editable(wheel_directory, config_settings, metadata_directory)
