"""The version of the installed ``banqi`` distribution, written once: in ``pyproject.toml``."""

from importlib.metadata import PackageNotFoundError, version

try:
    VERSION: str = version("banqi")
except PackageNotFoundError:  # the source tree run without being installed
    VERSION = "0+unknown"
