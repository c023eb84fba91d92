"""A small extension: the crawl's stats as a JSON file, for scripts that run ``scrapy crawl``."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from scrapy import signals
from scrapy.crawler import Crawler
from scrapy.exceptions import NotConfigured


class StatsToJson:
    """Writes ``crawler.stats`` to ``STATS_JSON_PATH`` when the spider closes."""

    def __init__(self, crawler: Crawler, path: str) -> None:
        self.crawler = crawler
        self.path = Path(path)

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> StatsToJson:
        path = crawler.settings.get("STATS_JSON_PATH")
        if not path:
            raise NotConfigured
        extension = cls(crawler, path)
        crawler.signals.connect(extension.spider_closed, signal=signals.spider_closed)
        return extension

    def spider_closed(self, reason: str) -> None:
        stats: dict[str, Any] = dict(self.crawler.stats.get_stats())
        stats["finish_reason"] = reason
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self.path.write_text(json.dumps(stats, default=str, indent=1, sort_keys=True))
