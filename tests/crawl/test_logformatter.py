"""The item log lines: a crawl with the add-on logs about as much as one without it."""

from __future__ import annotations

import dataclasses
import logging
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import pytest
import scrapy
from crawlkit import NewsItem, crawl, make_crawler, serve, unit_crawler
from scrapy.exceptions import DropItem
from scrapy.http import Response
from scrapy.logformatter import LogFormatter

from scrapy_cetd.crawl.logformatter import CETDLogFormatter, shorten

SITE = Path(__file__).resolve().parent.parent.parent / "example_project" / "site"
ADDON = {"ADDONS": {"scrapy_cetd.Addon": 100}}


class _StoriesSpider(scrapy.Spider):
    """Index → the 14 articles of the example site, one small item per article."""

    name = "stories"

    def __init__(self, base_url: str, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.base_url = base_url

    async def start(self) -> AsyncIterator[Any]:
        yield scrapy.Request(self.base_url + "index.html", callback=self.parse_index)

    def parse_index(self, response: Response) -> Iterator[scrapy.Request]:
        for href in response.css("li.story a.story-link::attr(href)").getall():
            yield response.follow(href, callback=self.parse_story)

    def parse_story(self, response: Response) -> Iterator[dict[str, Any]]:
        yield {"url": response.url, "title": response.css("title::text").get(default="")}


def crawl_log(caplog: pytest.LogCaptureFixture, settings: dict[str, Any]) -> tuple[int, int]:
    """Characters logged by a crawl of the example site at DEBUG (Scrapy's default level),
    and its number of items."""
    caplog.clear()
    with caplog.at_level(logging.DEBUG), serve(SITE) as base:
        result = crawl(make_crawler(_StoriesSpider, settings), base_url=base)
    size = sum(len(record.getMessage()) + 1 for record in caplog.records)
    caplog.clear()
    return size, len(result.items)


def test_the_log_of_a_crawl_with_the_addon_stays_near_the_log_without_it(
    caplog: pytest.LogCaptureFixture,
) -> None:
    without, pages = crawl_log(caplog, {"LOG_LEVEL": "DEBUG"})
    shortened, pages_with = crawl_log(caplog, {**ADDON, "LOG_LEVEL": "DEBUG"})
    full, _ = crawl_log(caplog, {**ADDON, "LOG_LEVEL": "DEBUG", "CETD_LOG_FIELD_LENGTH": None})
    assert pages == pages_with == 14
    figures = f"{without:,} characters without the add-on, {shortened:,} with it, {full:,} in full"
    assert shortened / without < 2, figures
    # The switch back to Scrapy's full item lines: each item then carries its page's content.
    assert full / without > 10, figures


def test_a_log_formatter_of_the_user_stays_in_place() -> None:
    crawler = make_crawler(_StoriesSpider, {**ADDON, "LOG_FORMATTER": LogFormatter})
    crawler._apply_settings()
    assert type(crawler.logformatter) is LogFormatter
    crawler = make_crawler(_StoriesSpider, ADDON)
    crawler._apply_settings()
    assert type(crawler.logformatter) is CETDLogFormatter
    crawler = make_crawler(_StoriesSpider, {**ADDON, "CETD_ENABLED": False})
    crawler._apply_settings()
    assert type(crawler.logformatter) is LogFormatter


@dataclasses.dataclass
class _Record:
    url: str
    body: str


def test_shorten_cuts_long_fields_of_every_item_kind_and_keeps_the_item() -> None:
    text = "word " * 100
    item = {"url": "http://example.com/", "main_content_text": text, "raw": text.encode()}
    line = str(shorten(item, 20))
    assert line == (
        "{'url': 'http://example.com/', 'main_content_text': 'word word word word '... "
        "[480 more characters], 'raw': b'word word word word '... [480 more bytes]}"
    )
    assert item["main_content_text"] == text
    assert str(shorten(NewsItem(url="u", main_content_text=text), 5)) == (
        "{'main_content_text': 'word '... [495 more characters], 'url': 'u'}"
    )
    assert str(shorten(_Record("u", text), 4)) == (
        "_Record(url='u', body='word'... [496 more characters])"
    )
    short = {"url": "u", "text": "short"}
    assert shorten(short, 20) is short
    assert shorten(item, None) is item
    assert shorten("not an item", 1) == "not an item"


def test_the_formatter_reads_its_length_from_the_settings() -> None:
    assert CETDLogFormatter.from_crawler(unit_crawler()).field_length == 100
    crawler = unit_crawler({"CETD_LOG_FIELD_LENGTH": "None"})
    assert CETDLogFormatter.from_crawler(crawler).field_length is None
    with pytest.raises(ValueError, match="CETD_LOG_FIELD_LENGTH must be a positive whole number"):
        CETDLogFormatter.from_crawler(unit_crawler({"CETD_LOG_FIELD_LENGTH": 0}))


def test_dropped_and_error_lines_are_shortened_too() -> None:
    crawler = unit_crawler()
    spider = scrapy.Spider.from_crawler(crawler, name="s")
    formatter = CETDLogFormatter(4)
    item = {"main_content_text": "word " * 10}
    expected = "{'main_content_text': 'word'... [46 more characters]}"
    lines = [
        formatter.scraped(item, None, spider),
        formatter.dropped(item, DropItem("no main content"), None, spider),
        formatter.item_error(item, ValueError("x"), None, spider),
    ]
    for line in lines:
        assert isinstance(line["args"], dict)
        assert str(line["args"]["item"]) == expected
        assert line["msg"] % line["args"]
