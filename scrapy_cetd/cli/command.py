"""The ``scrapy-cetd`` command: its top parser, which hands each subcommand to its module, and
:func:`main`, which turns the errors of a run into one line on stderr and an exit status."""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence

from scrapy_cetd import __version__
from scrapy_cetd.cli import corpus, evaluate, extract, prune
from scrapy_cetd.cli.errors import PROG, CommandError, UsageError

DESCRIPTION = (
    "The scrapy-cetd command: extract main content from files, score algorithms on datasets, "
    "prune record pages (TPS), extract a corpus from WARC archives."
)


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit status."""
    args = parser().parse_args(argv)
    try:
        status: int = args.run(args)
    except CommandError as error:
        print(f"{PROG}: error: {error}", file=sys.stderr)
        return 2 if isinstance(error, UsageError) else 1
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        # The reader went away (``scrapy-cetd extract page.html | head``): nothing more can be
        # written, and Python's flush of stdout at exit must not fail again.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 1
    return status


def parser() -> argparse.ArgumentParser:
    """The command's parser: ``--version``, and each subcommand with its arguments."""
    top = argparse.ArgumentParser(prog=PROG, description=DESCRIPTION)
    top.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    commands = top.add_subparsers(required=True, metavar="COMMAND")
    for command in (extract, evaluate, prune, corpus):
        command.add_parser(commands)
    return top
