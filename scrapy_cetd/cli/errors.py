"""What the command reports as one line on stderr, and the program's name that starts it."""

from __future__ import annotations

PROG = "scrapy-cetd"


class CommandError(Exception):
    """A failure to report as one line on stderr, with exit status 1."""


class UsageError(CommandError):
    """A command line that cannot run (an unknown algorithm, an option of the wrong type):
    reported as one line on stderr, with exit status 2 as argparse gives."""
