"""Index → articles, as a news crawl does: the spider reads titles with ``response.css()``,
scrapy-cetd adds the main content from the same parse."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from typing import Any, ClassVar

import scrapy
from news.items import Article
from scrapy.http import Response


class ArticlesSpider(scrapy.Spider):
    """Crawls the offline news site: ``scrapy crawl articles -a base_url=http://127.0.0.1:PORT/``."""

    name = "articles"
    allowed_domains: ClassVar[list[str]] = ["127.0.0.1", "localhost"]

    def __init__(self, base_url: str = "http://127.0.0.1:8000/", **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.base_url = base_url if base_url.endswith("/") else base_url + "/"

    async def start(self) -> AsyncIterator[Any]:
        yield scrapy.Request(self.base_url + "index.html", callback=self.parse_index)

    def parse_index(self, response: Response) -> Iterator[Any]:
        """Follow every story link of the index (and its next page, if it had one)."""
        for story in response.css("li.story"):
            href = story.css("a.story-link::attr(href)").get()
            if href:
                source = story.css(".source::text").get(default="").strip()
                yield response.follow(href, self.parse_article, cb_kwargs={"source": source})
        next_page = response.css("a[rel=next]::attr(href)").get()
        if next_page:
            yield response.follow(next_page, self.parse_index)

    def parse_article(self, response: Response, source: str) -> Iterator[Article]:
        """The article's metadata; its main content comes from the scrapy-cetd pipeline."""
        title = response.css("meta[property='og:title']::attr(content)").get() or response.css(
            "title::text"
        ).get(default="")
        yield Article(url=response.url, title=title.strip(), source=source)
