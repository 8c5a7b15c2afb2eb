"""The ``banqi`` executable: it imports nothing heavy before it can catch Ctrl-C."""

import sys


def main() -> None:
    """Load and run the ``banqi`` command group; Ctrl-C while it loads ends it with one
    line and status 130, as Ctrl-C in a command does."""
    try:
        from .main import cli
    except KeyboardInterrupt:
        sys.stderr.write("interrupted\n")
        raise SystemExit(130) from None
    cli.main(prog_name="banqi")
