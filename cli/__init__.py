"""The command line leads script against: ``python -m corpus COMMAND`` (see docs/cli.md)."""

from cli.commands import main

__all__ = ["main"]
