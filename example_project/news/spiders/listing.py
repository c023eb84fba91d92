"""A listing page → one item per record, with and without TPS pruning.

``scrapy crawl listing -a base_url=http://127.0.0.1:PORT/ [-a prune=0]`` crawls the bundled
listing page (``site/listings/dev-0082.html``, a WCXB page, see ``site/ATTRIBUTION.md``) and
yields one item per ``li``. With ``prune=1`` (the default) it reads the page through
:func:`scrapy_cetd.tps_selector`, a selector over the page pruned to its main record region
(TPS, ``docs/algorithms.md`` §5), so the naive ``css("li")`` finds only the 10 news records;
with ``prune=0`` it reads ``response`` itself and also picks up the 53 ``li`` of the menus.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from typing import Any, ClassVar

import scrapy
from scrapy.http import Response

from scrapy_cetd import dont_cetd, tps_selector

LISTINGS = ("listings/dev-0082.html",)
"""The bundled listing pages, relative to ``base_url``."""


class ListingSpider(scrapy.Spider):
    """Records of a listing page: ``-a prune=1`` (default) through TPS, ``-a prune=0`` not."""

    name = "listing"
    allowed_domains: ClassVar[list[str]] = ["127.0.0.1", "localhost"]

    def __init__(
        self, base_url: str = "http://127.0.0.1:8000/", prune: str = "1", **kwargs: Any
    ) -> None:
        super().__init__(**kwargs)
        self.base_url = base_url if base_url.endswith("/") else base_url + "/"
        self.prune = str(prune).strip().lower() not in ("0", "false", "no", "")

    async def start(self) -> AsyncIterator[Any]:
        for path in LISTINGS:
            yield scrapy.Request(self.base_url + path, callback=self.parse_listing)

    @dont_cetd
    def parse_listing(self, response: Response) -> Iterator[dict[str, Any]]:
        """One item per ``li`` of the page (of its main region, when pruning). Each item is a
        record, not the page: ``dont_cetd`` keeps the add-on from giving every record the
        main content of the whole listing page."""
        page = tps_selector(response) if self.prune else response
        for record in page.css("li"):
            link = record.css("a::attr(href)").get()
            yield {
                "page": response.url,
                "pruned": self.prune,
                "title": " ".join(record.css("h4 ::text, a::text").get(default="").split()),
                "url": response.urljoin(link) if link else None,
                "date": record.css("time::attr(datetime)").get(),
                "source": record.css("em a::text").get(),
            }
