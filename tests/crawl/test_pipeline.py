"""The item pipeline, called directly: item kinds, sources, fallbacks, failures, limits, jobs
and stats (what it writes into an item: test_fields.py)."""

from __future__ import annotations

import asyncio
import logging
import re
import time
from typing import Any

import pytest
import scrapy
from conftest import EMPTY_FIELDS as EMPTY
from conftest import META_PAGE, STORM_PAGE
from conftest import STORM_URL as URL
from conftest import PipelineHarness as Harness
from conftest import storm_response as page
from crawlkit import NewsAttrs, NewsDataclass, NewsItem, TitledExtractor
from itemadapter import ItemAdapter
from scrapy import Request
from scrapy.exceptions import DropItem, NotConfigured
from scrapy.http import HtmlResponse, JsonResponse
from scrapy.utils.misc import build_from_crawler

import scrapy_cetd
from scrapy_cetd import CETDDownloaderMiddleware
from scrapy_cetd.crawl.middleware import arrival_time
from scrapy_cetd.extractors.registry import build_extractor
from scrapy_cetd.limits import Limits

EXPECTED = scrapy_cetd.extract(STORM_PAGE.encode(), url=URL)


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
    assert item == {"url": URL, **EMPTY}
    assert harness.stat("cetd/item_skipped_count/no_source") == 1
    assert [
        URL in r.getMessage() and "CETD_SOURCE_FIELD" in r.getMessage() for r in caplog.records
    ] == [True]


def test_extractor_error_warns_once_per_url_and_cause(caplog: pytest.LogCaptureFixture) -> None:
    harness = Harness(CETD_ALGORITHM="crawlkit.BoomExtractor")
    boom = page(url="http://127.0.0.1/boom.html")
    with caplog.at_level(logging.WARNING):
        items = [harness.run({}, boom) for _ in range(3)]
    assert all(item == EMPTY for item in items)
    assert harness.stat("cetd/item_error_count") == 3
    messages = [r.getMessage() for r in caplog.records]
    assert len(messages) == 1
    assert "http://127.0.0.1/boom.html" in messages[0] and "RuntimeError" in messages[0]


def test_empty_page_is_counted_not_lost() -> None:
    harness = Harness()
    item = harness.run({}, page("<html><head><title>t</title></head><body></body></html>"))
    assert item == EMPTY
    assert harness.stat("cetd/item_empty_count") == 1
    item = harness.run({}, page(""))
    assert item["main_content_text"] == ""
    assert harness.stat("cetd/item_empty_count") == 2
    confident = Harness(CETD_PAGE_TYPE_CONFIDENCE_FIELD="confidence")
    item = confident.run({}, page("<html><body></body></html>"))
    assert item["confidence"] is None and item["main_content_page_type"] == ""  # a number's field


def test_dont_cetd_leaves_the_item_alone(caplog: pytest.LogCaptureFixture) -> None:
    harness = Harness(CETD_DROP_EMPTY=True)
    with caplog.at_level(logging.WARNING):
        item = harness.run({"url": URL}, page(dont_cetd=True))
    assert item == {"url": URL}
    assert harness.stat("cetd/item_skipped_count/dont_cetd") == 1
    assert not caplog.records


def test_the_cetd_url_meta_key_gives_the_page_its_url_or_is_warned_of(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """A string is the page's URL; a value of another type is ignored, with a warning once per
    type naming the key and the type, and a stat for each response: the item goes on."""
    harness = Harness()
    own = "https://news.example.com/2011/storm.html"
    item = harness.run({"url": URL}, page(cetd_url=own))
    assert '<a href="https://news.example.com/x">' in item["main_content_html"]
    with caplog.at_level(logging.WARNING):
        items = [harness.run({"url": URL}, page(cetd_url=value)) for value in (3, 4, [own])]
    assert [item["main_content_text"] for item in items] == [EXPECTED.text] * 3
    assert all('<a href="http://127.0.0.1/x">' in item["main_content_html"] for item in items)
    assert harness.stat("cetd/meta_ignored_count/cetd_url") == 3
    assert [r.getMessage() for r in caplog.records] == [
        f"scrapy-cetd: {URL}: the request's meta key cetd_url holds a {kind}, not a string"
        " (the page's URL): ignored, the page is read as the response's URL"
        for kind in ("int", "list")
    ]
    harness.run({"url": URL}, page(cetd_url=""))
    assert harness.stat("cetd/meta_ignored_count/cetd_url") == 3  # an empty string: no URL


def test_drop_empty_drops_with_the_reason() -> None:
    harness = Harness(CETD_DROP_EMPTY=True)
    with pytest.raises(DropItem, match=r"^scrapy-cetd: \S*storm\.html: no main content \("):
        harness.run({}, page("<html><body></body></html>"))
    with pytest.raises(DropItem, match="not HTML"):
        harness.run({}, JsonResponse(URL, body=b"{}"))
    assert harness.stat("cetd/item_empty_count") == 1
    assert harness.stat("cetd/item_skipped_count/not_html") == 1
    assert harness.run({}, page())["main_content_text"] == EXPECTED.text


def test_extraction_runs_off_the_reactor_thread_once_per_response() -> None:
    TitledExtractor.calls.clear()
    harness = Harness(CETD_ALGORITHM="crawlkit.TitledExtractor")
    response = page()

    async def items_of_one_response() -> list[Any]:
        items = [{"n": n} for n in range(5)]
        for item in items:
            harness.links.link(item, response)
        return await asyncio.gather(*(harness.pipeline.process_item(item) for item in items))

    items = asyncio.run(items_of_one_response())
    assert all(item["main_content_text"] == EXPECTED.text for item in items)
    assert len(TitledExtractor.calls) == 1
    [(thread, url)] = TitledExtractor.calls
    assert thread.startswith("scrapy-cetd-extract-") and url == URL
    assert harness.stat("cetd/item_extracted_count") == 5


def test_a_body_that_is_no_document_passes_with_the_reason(
    caplog: pytest.LogCaptureFixture,
) -> None:
    harness = Harness()
    with caplog.at_level(logging.WARNING):
        item = harness.run({"url": URL}, page('{"title": "JSON, not HTML"}'))
    assert item == {"url": URL, **EMPTY}
    assert harness.stat("cetd/item_empty_count") == 1
    assert harness.stat("cetd/item_empty_reason_count/not_a_document") == 1
    assert "not an HTML document: the body is JSON" in caplog.records[0].getMessage()
    raw = Harness(CETD_SOURCE_FIELD="raw").run({"raw": b"%PDF-1.4 ..."})
    assert raw["main_content_text"] == ""


def test_max_nodes_and_max_body_size_settings(caplog: pytest.LogCaptureFixture) -> None:
    harness = Harness(CETD_MAX_NODES=10, CETD_SOURCE_FIELD="raw", CETD_MAX_BODY_SIZE=5000)
    with caplog.at_level(logging.WARNING):
        assert harness.run({}, page()) == EMPTY
        big = {"raw": STORM_PAGE * 20}
        assert harness.run(big) == {**big, **EMPTY}
    assert harness.stat("cetd/item_empty_reason_count/max_nodes") == 1
    assert harness.stat("cetd/item_skipped_count/too_large") == 1
    messages = [r.getMessage() for r in caplog.records]
    assert "max_nodes exceeded" in messages[0]
    assert "raw is larger than CETD_MAX_BODY_SIZE" in messages[1]
    unlimited = Harness(CETD_MAX_NODES=None, CETD_TIME_BUDGET="None", CETD_MAX_BODY_SIZE="")
    assert unlimited.pipeline.limits == Limits(None, None, None)
    assert unlimited.run({}, page())["main_content_text"] == EXPECTED.text


@pytest.mark.parametrize(
    ("name", "value"),
    [
        ("CETD_MAX_NODES", 0),
        ("CETD_MAX_NODES", "many"),
        ("CETD_TIME_BUDGET", -1.0),
        ("CETD_MAX_BODY_SIZE", True),
        ("CETD_MAX_ATTRIBUTES", 0),
        ("CETD_ISOLATION", "fork"),
        ("CETD_WORKERS", 0),
    ],
)
def test_limit_settings_are_checked_at_start(name: str, value: Any) -> None:
    with pytest.raises(ValueError, match=name):
        Harness(**{name: value})


def test_the_budget_counts_from_the_arrival_of_the_response(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    harness = Harness(CETD_TIME_BUDGET=5.0)
    middleware = build_from_crawler(CETDDownloaderMiddleware, harness.crawler)
    response = page()
    assert response.request is not None
    now = time.monotonic()
    monkeypatch.setattr("scrapy_cetd.crawl.middleware.time.monotonic", lambda: now - 6.0)
    middleware.process_response(response.request, response)  # arrived 6 s ago
    monkeypatch.undo()
    assert arrival_time(response) == now - 6.0
    assert harness.run({}, response) == EMPTY
    assert harness.stat("cetd/item_empty_reason_count/time_budget") == 1
    # Arrived just now, the same page is extracted.
    fresh = page()
    assert fresh.request is not None
    middleware.process_response(fresh.request, fresh)
    assert harness.run({}, fresh)["main_content_text"] == EXPECTED.text


class StallExtractor:
    """A user extractor that, for URLs containing ``stall``, backtracks for minutes in one call
    of a regular expression (C code that holds the GIL and no budget check interrupts)."""

    def extract(self, tree: Any, *, url: str | None = None) -> scrapy_cetd.ExtractionResult:
        if url and "stall" in url:
            re.match(r"(a+)+$", "a" * 64 + "b")
        return scrapy_cetd.extract(tree, url=url)


def test_worker_processes_extract_and_are_killed_when_stuck() -> None:
    harness = Harness(
        CETD_ALGORITHM="test_pipeline.StallExtractor",
        CETD_ISOLATION="process",
        CETD_TIME_BUDGET=3.0,
        CETD_WORKERS=2,
    )
    pipeline = harness.pipeline

    async def crawl() -> list[Any]:
        await pipeline.open_spider()
        items: list[Any] = [{}, {}, {}]
        responses = [page(url="http://127.0.0.1/stall"), page(), page()]
        for item, response in zip(items, responses, strict=True):
            harness.links.link(item, response)
        done = await asyncio.gather(*(pipeline.process_item(item) for item in items[:2]))
        while harness.stat("cetd/extract_process_killed_count") is None:
            await asyncio.sleep(0.1)  # the worker is killed KILL_GRACE after the budget
        done.append(await pipeline.process_item(items[2]))
        await pipeline.close_spider()
        return done

    stalled, normal, after = asyncio.run(asyncio.wait_for(crawl(), 60))
    assert stalled == EMPTY
    assert normal["main_content_text"] == after["main_content_text"] == EXPECTED.text
    assert harness.stat("cetd/item_empty_reason_count/time_budget") == 1
    assert harness.stat("cetd/extract_process_killed_count") == 1
    assert harness.stat("cetd/item_extracted_count") == 2


def test_a_stopped_pool_of_worker_processes_costs_no_item() -> None:
    harness = Harness(CETD_ISOLATION="process", CETD_WORKERS=1)
    processes = harness.pipeline.processes
    assert processes is not None
    pool = processes._started()
    pool.stop()  # type: ignore[no-untyped-call]
    pool.join()
    assert harness.run({}, page()) == EMPTY
    assert harness.stat("cetd/item_error_count") == 1


WAIT = 0.5
"""Seconds :class:`WaitingExtractor` waits before it extracts."""


class WaitingExtractor:
    """Waits :data:`WAIT` seconds without working (as a worker thread waits for the GIL, or a
    niced worker process for the CPU), then extracts as the default algorithm does."""

    def extract(self, tree: Any, *, url: str | None = None) -> scrapy_cetd.ExtractionResult:
        time.sleep(WAIT)
        return scrapy_cetd.extract(tree, url=url)


@pytest.mark.parametrize("isolation", ["threads", "process"])
def test_extract_seconds_is_the_cpu_time_of_the_extractions(isolation: str) -> None:
    """The time an extraction spends waiting is not its cost: with 16 worker threads, summed
    wall times read four times the crawl's length."""
    harness = Harness(
        CETD_ALGORITHM="test_pipeline.WaitingExtractor",
        CETD_ISOLATION=isolation,
        CETD_WORKERS=2,
        CETD_TIME_BUDGET=30.0,
    )

    async def run() -> list[Any]:
        await harness.pipeline.open_spider()
        items: list[Any] = [{}, {}]
        responses = [page(url=f"http://127.0.0.1/{name}.html") for name in ("a", "b")]
        for item, response in zip(items, responses, strict=True):  # held: the links are weak
            harness.links.link(item, response)
        try:
            return await asyncio.gather(*(harness.pipeline.process_item(i) for i in items))
        finally:
            await harness.pipeline.close_spider()

    items = asyncio.run(asyncio.wait_for(run(), 60))
    assert [item["main_content_text"] for item in items] == [EXPECTED.text] * 2
    assert 0 < harness.stat("cetd/extract_seconds_max") <= harness.stat("cetd/extract_seconds")
    assert harness.stat("cetd/extract_seconds") < WAIT


def _crawled(harness: Harness, response: HtmlResponse) -> Any:
    """The item of ``response`` through the pipeline of ``harness``, from its opening to its
    closing, as a crawl of that one response gives it."""

    async def run() -> Any:
        await harness.pipeline.open_spider()
        item: dict[str, Any] = {}
        harness.links.link(item, response)
        try:
            return await harness.pipeline.process_item(item)
        finally:
            await harness.pipeline.close_spider()

    return asyncio.run(run())


@pytest.mark.parametrize("isolation", ["threads", "process"])
def test_a_charset_label_that_names_no_text_encoding_is_ignored(isolation: str) -> None:
    harness = Harness(CETD_ISOLATION=isolation, CETD_WORKERS=1, CETD_TIME_BUDGET=5.0)
    headers = {"Content-Type": "text/html; charset=hex"}
    response = HtmlResponse(URL, body=STORM_PAGE.encode(), headers=headers, request=Request(URL))
    assert _crawled(harness, response)["main_content_text"] == EXPECTED.text
    assert harness.stat("cetd/item_extracted_count") == 1


def test_the_pipeline_is_off_only_when_it_would_write_nothing() -> None:
    off = dict.fromkeys(
        ("CETD_HTML_FIELD", "CETD_TEXT_FIELD", "CETD_TITLE_FIELD", "CETD_PAGE_TYPE_FIELD")
    )
    with pytest.raises(NotConfigured, match="CETD_METADATA_FIELDS is unset"):
        Harness(**off)
    assert Harness(**off, CETD_METADATA_FIELDS=["published"]).run({}, page(META_PAGE)) == {
        "published": "2011-03-14T08:00:00Z"
    }


@pytest.mark.parametrize("fields", [True, None])
def test_worker_threads_load_the_metadata_libraries_before_the_first_page(
    fields: bool | None, monkeypatch: pytest.MonkeyPatch
) -> None:
    loads: list[str] = []
    monkeypatch.setattr(scrapy_cetd.api, "load_metadata_libraries", lambda: loads.append("loaded"))
    harness = Harness(CETD_METADATA_FIELDS=fields)

    async def opened() -> None:
        await harness.pipeline.open_spider()
        await harness.pipeline.close_spider()

    asyncio.run(opened())
    assert loads == (["loaded"] if fields else [])  # metadata not asked for costs nothing


def test_libraries_that_fail_to_load_are_logged_and_the_spider_opens(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    def broken() -> None:
        raise OSError("model file missing")

    monkeypatch.setattr(scrapy_cetd.api, "load_metadata_libraries", broken)
    harness = Harness(CETD_METADATA_FIELDS=True)

    async def opened() -> None:
        await harness.pipeline.open_spider()
        await harness.pipeline.close_spider()

    asyncio.run(asyncio.wait_for(opened(), 10))
    assert "cannot load the metadata's libraries" in caplog.text
    assert "model file missing" in caplog.text


def test_markdown_field_and_clean_html() -> None:
    harness = Harness(CETD_MARKDOWN_FIELD="markdown", CETD_CLEAN_HTML=True)
    item = harness.run({"url": URL}, page())
    assert item["markdown"].startswith("# Storm hits the coast\n\nHeavy rain")
    assert "[local reports](http://127.0.0.1/x)" in item["markdown"]
    assert item["main_content_text"] == EXPECTED.text
    assert 'id="content"' in EXPECTED.html and "id=" not in item["main_content_html"]
    failed = harness.run({"url": URL}, page(""))
    assert failed["markdown"] == ""
    assert "markdown" not in Harness().run({"url": URL}, page())


def test_links_of_the_html_field_are_absolute() -> None:
    item = Harness().run({"url": URL}, page())
    assert '<a href="http://127.0.0.1/x">local reports</a>' in item["main_content_html"]


class _ListingSpider(scrapy.Spider):
    name = "listing"

    @scrapy_cetd.dont_cetd
    def parse(self, response: Any) -> Any:
        return []

    def parse_page(self, response: Any) -> Any:
        return []


def test_dont_cetd_marks_a_callback_by_name_or_as_the_default_parse() -> None:
    harness = Harness()
    spider = _ListingSpider()
    harness.crawler.spider = spider
    for callback in (None, spider.parse):
        response = HtmlResponse(
            URL, body=STORM_PAGE.encode(), request=Request(URL, callback=callback)
        )
        assert harness.run({"url": URL}, response) == {"url": URL}
    response = HtmlResponse(
        URL, body=STORM_PAGE.encode(), request=Request(URL, callback=spider.parse_page)
    )
    assert harness.run({"url": URL}, response)["main_content_text"] == EXPECTED.text
    assert harness.stat("cetd/item_skipped_count/dont_cetd") == 2


def test_the_notes_of_an_extraction_are_counted_by_kind() -> None:
    """Links left relative past the growth bound: the item goes on, and a stat says so."""
    base = "https://example.com/" + "a" * 8_000 + "/"
    links = "".join(
        f"<p>Paragraph {i} <a href='p{i}'>a link</a> of the story.</p>" for i in range(600)
    )
    html = f"<html><head><base href='{base}'></head><body><article>{links}</article></body></html>"
    harness = Harness()
    item = harness.run({}, page(html))
    assert item["main_content_text"] and item["main_content_html"].count(base) < 600
    assert harness.stat("cetd/note_count/links-left-relative") == 1
    assert harness.stat("cetd/item_extracted_count") == 1


@pytest.mark.parametrize("metadata", [{"published": "date"}, None])
def test_the_wait_for_the_metadatas_libraries_is_logged(
    caplog: pytest.LogCaptureFixture, metadata: Any
) -> None:
    harness = Harness(CETD_METADATA_FIELDS=metadata)

    async def run() -> None:
        await harness.pipeline.open_spider()
        await harness.pipeline.close_spider()

    with caplog.at_level(logging.INFO, logger="scrapy_cetd"):
        asyncio.run(asyncio.wait_for(run(), 60))
    said = [r.getMessage() for r in caplog.records if r.name == "scrapy_cetd.crawl.pipeline"]
    if metadata is None:
        assert said == []
        return
    assert said[0] == (
        "scrapy-cetd: loading the metadata's libraries before the first page"
        " (htmldate, dateparser, py3langid's model)"
    )
    assert re.fullmatch(r"scrapy-cetd: ready for the first page after \d+\.\d s", said[1])
    assert len(said) == 2


@pytest.mark.parametrize("isolation", ["threads", "process"])
def test_the_content_language_header_declares_the_language_in_a_crawl(isolation: str) -> None:
    harness = Harness(
        CETD_ISOLATION=isolation, CETD_WORKERS=1, CETD_TIME_BUDGET=30.0,
        CETD_METADATA_FIELDS={"language": "language"},
    )  # fmt: skip
    headers = {"Content-Language": "en-GB"}
    response = HtmlResponse(URL, body=STORM_PAGE.encode(), headers=headers, request=Request(URL))
    assert _crawled(harness, response)["language"] == "en-GB"
