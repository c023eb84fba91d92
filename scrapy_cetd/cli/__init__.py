"""The ``scrapy-cetd`` command line, a module per command.

* :mod:`~scrapy_cetd.cli.command` is the top parser and :func:`main`;
* :mod:`~scrapy_cetd.cli.extract`, :mod:`~scrapy_cetd.cli.evaluate`,
  :mod:`~scrapy_cetd.cli.prune` and :mod:`~scrapy_cetd.cli.corpus` each hold one command's
  arguments and what runs it;
* :mod:`~scrapy_cetd.cli.options` holds the options more than one command takes (``-a``,
  ``-O``, the limits), :mod:`~scrapy_cetd.cli.files` reads pages and checks that paths can be
  written, and :mod:`~scrapy_cetd.cli.errors` the errors a run reports as one line.

``main`` is the console script's entry point (``scrapy_cetd.cli:main``); ``python -m
scrapy_cetd.cli`` runs it too.
"""

from scrapy_cetd.cli.command import main
from scrapy_cetd.cli.errors import PROG, CommandError, UsageError

__all__ = ["PROG", "CommandError", "UsageError", "main"]
