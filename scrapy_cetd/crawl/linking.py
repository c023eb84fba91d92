"""Which response each item came from: the bounded, weak table behind the item pipeline.

Scrapy hands an item pipeline the item alone. The spider middleware
(:class:`~scrapy_cetd.crawl.middleware.CETDSpiderMiddleware`) sees each item next to the response
whose callback produced it and records the pair here; the pipeline takes the pair out again.
Nothing is added to the item or to ``Request.meta``, so items and requests stay picklable
(scrapy-redis, disk queues) and exports stay clean.

The table keeps the response only through a weak reference, so it never extends the life of a
response or of its parsed DOM: a response is kept alive by Scrapy itself until every item of
its callback has been through the pipelines, which is exactly as long as the link is needed.
The item is held strongly, which pins its ``id()`` (the key; dicts cannot be weakly
referenced) until Scrapy has decided its fate. Entries leave the table when the pipeline
takes them, or on the ``item_scraped``, ``item_dropped`` and ``item_error`` signals (an
item dropped before the pipeline, or a crawl without the pipeline), and the table is bounded
(``CETD_LINK_TABLE_SIZE``; the oldest entries go first) as a last guard.
"""

from __future__ import annotations

import logging
import weakref
from collections import OrderedDict
from typing import TYPE_CHECKING, Any

from scrapy import signals

from scrapy_cetd.crawl.settings import read_settings

if TYPE_CHECKING:
    from scrapy.crawler import Crawler
    from scrapy.http import Response

logger = logging.getLogger(__name__)

_TABLES: weakref.WeakKeyDictionary[Crawler, ItemResponseLinks] = weakref.WeakKeyDictionary()


class ItemResponseLinks:
    """Item → response links of one crawler (see the module docstring).

    Use :meth:`for_crawler` to get the crawler's table; the constructor is for tests.
    """

    def __init__(self, max_size: int, crawler: Crawler | None = None) -> None:
        if max_size <= 0:
            raise ValueError(f"max_size must be positive, got {max_size}")
        self.max_size = max_size
        self._entries: OrderedDict[int, tuple[Any, weakref.ref[Response]]] = OrderedDict()
        self._told_evicted = False
        # A weak reference: the table is a value of a WeakKeyDictionary keyed by the crawler.
        self._crawler = weakref.ref(crawler) if crawler is not None else None

    @classmethod
    def for_crawler(cls, crawler: Crawler) -> ItemResponseLinks:
        """The table shared by the spider middleware and the pipeline of ``crawler``.

        Created on first use, sized by ``CETD_LINK_TABLE_SIZE``, and connected to the signals
        that end an item's journey, so entries of items that never reach the pipeline go too.
        """
        table = _TABLES.get(crawler)
        if table is None:
            table = cls(read_settings(crawler.settings).link_table_size, crawler)
            _TABLES[crawler] = table
            for signal in (signals.item_scraped, signals.item_dropped, signals.item_error):
                crawler.signals.connect(table.forget, signal=signal)
            crawler.signals.connect(table._spider_closed, signal=signals.spider_closed)
        return table

    def __len__(self) -> int:
        return len(self._entries)

    def link(self, item: Any, response: Response) -> None:
        """Record that ``item`` came from ``response`` (the newest link of an item wins)."""
        key = id(item)
        self._entries.pop(key, None)
        self._entries[key] = (item, weakref.ref(response))
        while len(self._entries) > self.max_size:
            self._entries.popitem(last=False)
            self._inc_stat("cetd/link_evicted_count")
            if not self._told_evicted:
                self._told_evicted = True
                logger.warning(
                    "scrapy-cetd: more than CETD_LINK_TABLE_SIZE (%d) items are on their way "
                    "at once; the oldest lose their response and get no main content. Raise "
                    "CETD_LINK_TABLE_SIZE (or lower CONCURRENT_ITEMS), and make sure every "
                    "component before the pipeline passes each item on as the same object",
                    self.max_size,
                )

    def pop(self, item: Any) -> Response | None:
        """Take out the link of ``item``: its response if it is still alive, else ``None``."""
        entry = self._entries.get(id(item))
        if entry is None or entry[0] is not item:
            return None
        del self._entries[id(item)]
        return entry[1]()

    def forget(self, item: Any) -> None:
        """Drop the link of ``item``, if any (the signal handler of the item's last stage)."""
        entry = self._entries.get(id(item))
        if entry is not None and entry[0] is item:
            del self._entries[id(item)]

    def clear(self) -> None:
        """Drop every link."""
        self._entries.clear()

    def _spider_closed(self) -> None:
        # Every item has been scraped, dropped or failed by now; anything left would be a
        # leak: count it so it shows in the stats, then free it.
        if self._entries:
            logger.debug("scrapy-cetd: %d item links left at spider close", len(self._entries))
            self._inc_stat("cetd/link_leftover_count", len(self._entries))
        self.clear()

    def _inc_stat(self, key: str, count: int = 1) -> None:
        crawler = self._crawler() if self._crawler is not None else None
        if crawler is not None:
            crawler.stats.inc_value(key, count)
