"""The item → response table: weak on responses, bounded, emptied by the item signals."""

from __future__ import annotations

import gc
import pickle
from typing import Any

import pytest
from crawlkit import unit_crawler
from scrapy import signals
from scrapy.http import HtmlResponse

from scrapy_cetd.crawl.linking import ItemResponseLinks


def response(n: int = 0) -> HtmlResponse:
    return HtmlResponse(f"http://127.0.0.1/{n}", body=b"<p>x</p>", encoding="utf-8")


def test_link_and_pop() -> None:
    links = ItemResponseLinks(10)
    item: dict[str, Any] = {}
    page = response()
    links.link(item, page)
    assert links.pop({}) is None  # an equal item is not the same item
    assert links.pop(item) is page
    assert links.pop(item) is None
    assert len(links) == 0


def test_responses_are_weak() -> None:
    links = ItemResponseLinks(10)
    item: dict[str, Any] = {}
    page = response()
    links.link(item, page)
    del page
    gc.collect()
    assert links.pop(item) is None
    assert len(links) == 0


def test_bounded_oldest_first() -> None:
    crawler = unit_crawler({"CETD_LINK_TABLE_SIZE": 3})
    links = ItemResponseLinks.for_crawler(crawler)
    assert links.max_size == 3
    items = [{"n": n} for n in range(5)]
    pages = [response(n) for n in range(5)]
    for item, page in zip(items, pages, strict=True):
        links.link(item, page)
    assert len(links) == 3
    assert links.pop(items[0]) is None
    assert links.pop(items[4]) is pages[4]
    assert crawler.stats.get_value("cetd/link_evicted_count") == 2


def test_an_eviction_is_told_once(caplog: pytest.LogCaptureFixture) -> None:
    links = ItemResponseLinks(1)
    page = response()
    items = [{"n": n} for n in range(3)]
    for item in items:
        links.link(item, page)
    told = [r.getMessage() for r in caplog.records if "CETD_LINK_TABLE_SIZE (1)" in r.getMessage()]
    assert len(told) == 1 and "Raise CETD_LINK_TABLE_SIZE" in told[0]


@pytest.mark.parametrize(
    ("settings", "size"),
    [
        ({}, 10_000),  # 4 x 100 items x 16 requests is less
        ({"CONCURRENT_ITEMS": 1000}, 64_000),
        ({"CONCURRENT_ITEMS": 1000, "CONCURRENT_REQUESTS": 2}, 10_000),
        ({"CONCURRENT_ITEMS": 1000, "CETD_LINK_TABLE_SIZE": 500}, 500),  # the user's word
        ({"CONCURRENT_ITEMS": 1000, "CETD_LINK_TABLE_SIZE": None}, 64_000),  # the default
    ],
)
def test_the_default_size_holds_the_items_scrapy_keeps_in_flight(
    settings: dict[str, Any], size: int
) -> None:
    assert ItemResponseLinks.for_crawler(unit_crawler(settings)).max_size == size


def test_one_table_per_crawler() -> None:
    crawler = unit_crawler()
    assert ItemResponseLinks.for_crawler(crawler) is ItemResponseLinks.for_crawler(crawler)
    assert ItemResponseLinks.for_crawler(unit_crawler()) is not ItemResponseLinks.for_crawler(
        crawler
    )


@pytest.mark.parametrize("signal", [signals.item_scraped, signals.item_dropped, signals.item_error])
def test_item_signals_forget_the_link(signal: object) -> None:
    crawler = unit_crawler()
    links = ItemResponseLinks.for_crawler(crawler)
    item: dict[str, Any] = {}
    page = response()
    links.link(item, page)
    crawler.signals.send_catch_log(signal, item=item, response=page, spider=None)
    assert len(links) == 0


def test_leftovers_are_counted_and_freed_at_close() -> None:
    crawler = unit_crawler()
    links = ItemResponseLinks.for_crawler(crawler)
    page = response()
    links.link({}, page)
    crawler.signals.send_catch_log(signals.spider_closed, spider=None, reason="finished")
    assert len(links) == 0
    assert crawler.stats.get_value("cetd/link_leftover_count") == 1


def test_items_and_requests_stay_picklable() -> None:
    """The link lives in the table, so what scrapy-redis pickles is untouched."""
    crawler = unit_crawler()
    links = ItemResponseLinks.for_crawler(crawler)
    item = {"url": "http://127.0.0.1/0"}
    page = response()
    links.link(item, page)
    assert pickle.loads(pickle.dumps(item)) == item
