"""``python -m scrapy_cetd.cli``: the ``scrapy-cetd`` command, without its console script."""

import sys

from scrapy_cetd.cli.command import main

sys.exit(main())
