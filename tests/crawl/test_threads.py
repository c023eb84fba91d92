"""The worker threads (scrapy_cetd.crawl.threads), through the pipeline: a thread stuck past the
budget is given up and replaced, a job whose deadline passes before a thread takes it is
skipped."""

from __future__ import annotations

import asyncio
import logging
import threading
import time
from typing import Any, ClassVar

import pytest
from conftest import EMPTY_FIELDS as EMPTY
from conftest import STORM_PAGE
from conftest import STORM_URL as URL
from conftest import PipelineHarness as Harness
from conftest import storm_response as page
from scrapy.http import HtmlResponse
from scrapy.utils.misc import build_from_crawler

import scrapy_cetd
from scrapy_cetd import CETDDownloaderMiddleware

EXPECTED = scrapy_cetd.extract(STORM_PAGE.encode(), url=URL)


STUCK = threading.Event()
"""Released at the end of the test that uses :class:`StuckExtractor`."""


class StuckExtractor:
    """A user extractor that never checks a budget: it blocks on :data:`STUCK` for pages
    whose URL contains ``stuck``."""

    def extract(self, tree: Any, *, url: str | None = None) -> scrapy_cetd.ExtractionResult:
        if url and "stuck" in url:
            STUCK.wait(timeout=60)
        return scrapy_cetd.extract(tree, url=url)


def test_an_extractor_past_its_budget_is_given_up_and_replaced(
    caplog: pytest.LogCaptureFixture,
) -> None:
    harness = Harness(CETD_ALGORITHM="test_threads.StuckExtractor", CETD_TIME_BUDGET=0.2)
    workers = harness.pipeline.workers
    try:
        with caplog.at_level(logging.WARNING):
            stuck = [harness.run({}, page(url=f"http://127.0.0.1/stuck-{n}")) for n in range(3)]
        assert stuck == [EMPTY] * 3
        assert harness.stat("cetd/item_empty_reason_count/time_budget") == 3
        assert harness.stat("cetd/extract_thread_replaced_count") == 3
        assert "time_budget exceeded: more than 0.2 s" in caplog.records[0].getMessage()
        # Three threads are stuck; the threads started in their place keep pages going.
        assert workers.threads > 3
        assert harness.run({}, page())["main_content_text"] == EXPECTED.text
    finally:
        STUCK.set()
    asyncio.run(harness.pipeline.close_spider())


class GatedExtractor:
    """A user extractor that records the URLs it is called for and, for URLs containing
    ``gate``, waits for :attr:`OPEN`."""

    OPEN = threading.Event()
    called: ClassVar[list[str | None]] = []

    def extract(self, tree: Any, *, url: str | None = None) -> scrapy_cetd.ExtractionResult:
        self.called.append(url)
        if url and "gate" in url:
            self.OPEN.wait(timeout=60)
        return scrapy_cetd.extract(tree, url=url)


def arrived(
    harness: Harness, response: HtmlResponse, *, seconds_ago: float, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Let the downloader middleware record ``response`` as arrived ``seconds_ago``."""
    middleware = build_from_crawler(CETDDownloaderMiddleware, harness.crawler)
    earlier = time.monotonic() - seconds_ago
    monkeypatch.setattr("scrapy_cetd.crawl.middleware.time.monotonic", lambda: earlier)
    assert response.request is not None
    middleware.process_response(response.request, response)
    monkeypatch.undo()


def test_a_job_whose_deadline_passes_while_it_waits_is_not_run(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    GatedExtractor.called.clear()
    harness = Harness(
        CETD_ALGORITHM="test_threads.GatedExtractor", CETD_TIME_BUDGET=0.5, CETD_WORKERS=1
    )
    gated, waiting = page(url="http://127.0.0.1/gate"), page(url="http://127.0.0.1/waiting")
    # The waiting page arrived 0.3 s before the other: its budget ends while the only worker
    # is held by the gated page.
    arrived(harness, waiting, seconds_ago=0.3, monkeypatch=monkeypatch)

    async def both() -> list[Any]:
        items: list[Any] = [{}, {}]
        harness.links.link(items[0], gated)
        harness.links.link(items[1], waiting)
        return await asyncio.gather(*(harness.pipeline.process_item(item) for item in items))

    try:
        assert asyncio.run(both()) == [EMPTY, EMPTY]
        assert harness.stat("cetd/item_empty_reason_count/time_budget") == 2
        assert harness.stat("cetd/extract_expired_waiting_count") == 1
        assert GatedExtractor.called == ["http://127.0.0.1/gate"]
    finally:
        GatedExtractor.OPEN.set()
    asyncio.run(harness.pipeline.close_spider())


def test_a_job_taken_after_its_deadline_is_skipped_not_given_up(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A free worker that takes a job whose budget has already run out skips it, as a job
    that waited too long; it started no thread in its place."""
    harness = Harness(CETD_TIME_BUDGET=0.5)
    warm: dict[str, Any] = {}
    harness.links.link(warm, page(url="http://127.0.0.1/warm"))
    asyncio.run(harness.pipeline.process_item(warm))  # a worker thread now waits for a job
    late = page(url="http://127.0.0.1/late")
    arrived(harness, late, seconds_ago=1, monkeypatch=monkeypatch)
    item: dict[str, Any] = {}
    harness.links.link(item, late)
    assert asyncio.run(harness.pipeline.process_item(item)) == EMPTY
    assert harness.stat("cetd/extract_expired_waiting_count") == 1
    assert harness.stat("cetd/extract_thread_replaced_count") is None
    asyncio.run(harness.pipeline.close_spider())
