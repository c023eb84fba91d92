"""The item pipeline, called directly: item kinds, fields, fallbacks, failures, stats."""

from __future__ import annotations

import asyncio
import logging
from typing import Any

import pytest
from conftest import STORM_PAGE
from crawlkit import BareItem, NewsAttrs, NewsDataclass, NewsItem, unit_crawler
from itemadapter import ItemAdapter
from scrapy import Request
from scrapy.exceptions import DropItem
from scrapy.http import HtmlResponse, JsonResponse, Response
from scrapy.utils.misc import build_from_crawler

import scrapy_cetd
from scrapy_cetd import CETDPipeline
from scrapy_cetd.linking import ItemResponseLinks
from scrapy_cetd.pipeline import build_extractor

URL = "http://127.0.0.1/storm.html"
EXPECTED = scrapy_cetd.extract(STORM_PAGE.encode(), url=URL)


class Harness:
    """A pipeline on a configured crawler, and the table its spider middleware would fill."""

    def __init__(self, **settings: Any) -> None:
        self.crawler = unit_crawler(settings)
        self.pipeline = build_from_crawler(CETDPipeline, self.crawler)
        self.links = ItemResponseLinks.for_crawler(self.crawler)

    def run(self, item: Any, response: Response | None = None) -> Any:
        if response is not None:
            self.links.link(item, response)
        return asyncio.run(self.pipeline.process_item(item))

    def stat(self, key: str) -> Any:
        return self.crawler.stats.get_value(key)


def page(body: str = STORM_PAGE, url: str = URL, **meta: Any) -> HtmlResponse:
    return HtmlResponse(url, body=body.encode(), encoding="utf-8", request=Request(url, meta=meta))


@pytest.mark.parametrize(
    "item",
    [{"url": URL}, NewsItem(url=URL), NewsDataclass(url=URL), NewsAttrs(url=URL)],
    ids=["dict", "scrapy.Item", "dataclass", "attrs"],
)
def test_every_item_kind_gets_the_fields(item: Any) -> None:
    harness = Harness()
    assert harness.run(item, page()) is item
    adapter = ItemAdapter(item)
    assert adapter["main_content_text"] == EXPECTED.text
    assert adapter["main_content_html"] == EXPECTED.html
    assert "Heavy rain" in EXPECTED.text
    assert harness.stat("cetd/item_extracted_count") == 1
    assert harness.stat("cetd/extract_seconds") > 0
    assert harness.stat("cetd/extract_seconds_max") > 0
    assert len(harness.links) == 0


def test_field_names_are_configurable_and_none_disables_one() -> None:
    harness = Harness(CETD_TEXT_FIELD="body", CETD_HTML_FIELD=None)
    item = harness.run({}, page())
    assert item == {"body": EXPECTED.text}


def test_algorithm_and_options() -> None:
    harness = Harness(CETD_ALGORITHM="cetd-ds", CETD_OPTIONS={"threshold_coefficient": 0})
    item = harness.run({}, page())
    assert item["main_content_text"] == scrapy_cetd.extract(STORM_PAGE, algorithm="cetd-ds",
        threshold_coefficient=0).text  # fmt: skip
    assert "Copyright" in item["main_content_text"]  # λ = 0 keeps the whole body


def test_user_extractor_class_by_import_path() -> None:
    extractor = build_extractor("crawlkit.BoomExtractor", {"inner": "cetd-ds"})
    assert type(extractor).__name__ == "BoomExtractor"
    harness = Harness(CETD_ALGORITHM="crawlkit.BoomExtractor")
    assert harness.run({}, page())["main_content_text"] == EXPECTED.text
    with pytest.raises(ValueError, match="no extract"):
        build_extractor("collections.OrderedDict", {})


def test_source_field_fallback_when_no_response_is_linked() -> None:
    harness = Harness(CETD_SOURCE_FIELD="raw")
    item = harness.run({"url": URL, "raw": STORM_PAGE})
    assert item["main_content_text"] == EXPECTED.text
    # Bytes are decoded as Scrapy decodes a body.
    item = harness.run({"url": URL, "raw": STORM_PAGE.encode()})
    assert item["main_content_text"] == EXPECTED.text
    # A non-HTML response falls back to the field too.
    item = harness.run({"raw": STORM_PAGE}, JsonResponse(URL, body=b"{}"))
    assert item["main_content_text"] == EXPECTED.text
    assert harness.stat("cetd/item_extracted_count") == 3


def test_no_source_goes_on_with_empty_fields_warning_and_stat(
    caplog: pytest.LogCaptureFixture,
) -> None:
    harness = Harness()
    with caplog.at_level(logging.WARNING):
        item = harness.run({"url": URL})
    assert item == {"url": URL, "main_content_html": "", "main_content_text": ""}
    assert harness.stat("cetd/item_skipped_count/no_source") == 1
    assert [
        URL in r.getMessage() and "CETD_SOURCE_FIELD" in r.getMessage() for r in caplog.records
    ] == [True]


def test_extractor_error_warns_once_per_url_and_cause(caplog: pytest.LogCaptureFixture) -> None:
    harness = Harness(CETD_ALGORITHM="crawlkit.BoomExtractor")
    boom = page(url="http://127.0.0.1/boom.html")
    with caplog.at_level(logging.WARNING):
        items = [harness.run({}, boom) for _ in range(3)]
    assert all(item == {"main_content_html": "", "main_content_text": ""} for item in items)
    assert harness.stat("cetd/item_error_count") == 3
    messages = [r.getMessage() for r in caplog.records]
    assert len(messages) == 1
    assert "http://127.0.0.1/boom.html" in messages[0] and "RuntimeError" in messages[0]


def test_empty_page_is_counted_not_lost() -> None:
    harness = Harness()
    item = harness.run({}, page("<html><head><title>t</title></head><body></body></html>"))
    assert item == {"main_content_html": "", "main_content_text": ""}
    assert harness.stat("cetd/item_empty_count") == 1
    item = harness.run({}, page(""))
    assert item["main_content_text"] == ""
    assert harness.stat("cetd/item_empty_count") == 2


def test_declared_item_without_the_fields(caplog: pytest.LogCaptureFixture) -> None:
    harness = Harness()
    with caplog.at_level(logging.WARNING):
        items = [harness.run(BareItem(url=URL), page()) for _ in range(2)]
    assert all(dict(item) == {"url": URL} for item in items)
    assert harness.stat("cetd/item_skipped_count/missing_fields") == 2
    assert len(caplog.records) == 1  # once per item class
    assert "BareItem" in caplog.records[0].getMessage()
    assert len(harness.links) == 0


def test_overwrite_false_keeps_what_the_spider_set() -> None:
    harness = Harness(CETD_OVERWRITE=False)
    both = harness.run({"main_content_text": "mine", "main_content_html": "<p>mine</p>"}, page())
    assert both == {"main_content_text": "mine", "main_content_html": "<p>mine</p>"}
    assert harness.stat("cetd/item_skipped_count/already_set") == 1
    one = harness.run({"main_content_text": "mine"}, page())
    assert one == {"main_content_text": "mine", "main_content_html": EXPECTED.html}
    failed = harness.run({"main_content_text": "mine"}, page(""))
    assert failed == {"main_content_text": "mine", "main_content_html": ""}
    overwritten = Harness().run({"main_content_text": "mine"}, page())
    assert overwritten["main_content_text"] == EXPECTED.text


def test_dont_cetd_leaves_the_item_alone(caplog: pytest.LogCaptureFixture) -> None:
    harness = Harness(CETD_DROP_EMPTY=True)
    with caplog.at_level(logging.WARNING):
        item = harness.run({"url": URL}, page(dont_cetd=True))
    assert item == {"url": URL}
    assert harness.stat("cetd/item_skipped_count/dont_cetd") == 1
    assert not caplog.records


def test_drop_empty_drops_with_the_reason() -> None:
    harness = Harness(CETD_DROP_EMPTY=True)
    with pytest.raises(DropItem, match=r"no main content.*storm\.html"):
        harness.run({}, page("<html><body></body></html>"))
    with pytest.raises(DropItem, match="not HTML"):
        harness.run({}, JsonResponse(URL, body=b"{}"))
    assert harness.stat("cetd/item_empty_count") == 1
    assert harness.stat("cetd/item_skipped_count/not_html") == 1
    assert harness.run({}, page())["main_content_text"] == EXPECTED.text


def test_frozen_item_is_an_error_not_a_crash() -> None:
    import dataclasses

    @dataclasses.dataclass(frozen=True)
    class Frozen:
        main_content_html: str = ""
        main_content_text: str = ""

    harness = Harness()
    item = Frozen()
    assert harness.run(item, page()) is item
    assert harness.stat("cetd/item_error_count") == 1
