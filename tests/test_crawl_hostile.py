"""A real crawl of hostile pages beside normal ones: no page holds another item back.

Twenty hostile pages (too slow for the extractor, or built to make one step of the parse or
of the extraction take seconds) are crawled with twenty small articles from a server on
127.0.0.1. Every item must be scraped; every article's item within one second of its response's
arrival (recorded by a downloader middleware of the test, below the add-on's; with worker
processes, half a second more for a killed worker's replacement); every hostile
item empty with a budget or guard reason. The budget is small (0.5 s) and an article's own
extraction takes milliseconds, so the one-second bound measures waiting for the hostile pages,
not the machine's speed. An article may still lose its content to the budget when the machine
gives the crawl too little CPU to do even its own work in time: then its item is empty with the
``time_budget`` reason, counted like the hostile ones, never held back and never lost.

With threads, every page's work is done in the crawl's own process, so an article held back
by hostile pages is one during whose wait the process computed for them: the wait is measured
both in seconds and in the CPU seconds the process spent meanwhile, and the smaller must stay
under the bound. On a loaded machine the process gets a share of the cores and the seconds
stretch, but the CPU it spends does not; on an idle one the seconds are the stricter measure.
With worker processes the hostile work is not the crawl's own CPU, and the seconds alone count."""

from __future__ import annotations

import time
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import pytest
import scrapy
from crawlkit import article, crawl, make_crawler, serve_apart
from scrapy import signals
from scrapy.http import Response

PAGES = 20
"""Normal pages, and hostile ones."""

BUDGET = 0.5
"""``CETD_TIME_BUDGET`` of the crawl (seconds)."""

MAX_DELAY = 1.0
"""The most an article's item may take from its response's arrival to being scraped."""
WORKER_REPLACEMENT = 0.5
"""With worker processes, what an article's item may wait more: a job queued behind a worker
killed at its deadline waits for the pool to fork that worker's replacement and build its
extractor (1.03 and 1.08 s in all on an idle machine with Scrapy 2.14's asyncio reactor)."""

ARRIVALS: dict[str, tuple[float, float]] = {}
"""URL → when its response reached :class:`ArrivalMiddleware`: (:func:`time.monotonic`,
:func:`time.process_time`)."""


def now() -> tuple[float, float]:
    """The time and the CPU time of this process (all its threads), in seconds."""
    return time.monotonic(), time.process_time()


def many_nodes() -> str:
    """About 180,000 elements, below the default ``max_nodes``: seconds of extraction."""
    return (
        "<html><body>"
        + "<div><p>word word word</p><span>x</span></div>" * 60_000
        + "</body></html>"
    )


def many_attributes() -> str:
    """One tag with 89,000 attributes: 15 s in libxml2's parser, which nothing can stop."""
    attributes = " ".join(f"a{n}=1" for n in range(89_000))
    return f"<html><body><div {attributes}>text</div>{article('Attributes')}</body></html>"


HOSTILE_SHAPES = {
    "threads": (many_nodes, many_attributes),
    "process": (many_nodes, many_attributes),
}
"""The hostile pages of each isolation: shapes that stay expensive after the fixes of issue 24
(the unclosed JSON-LD ``"@type": [`` lists that once held one C call for minutes are read in
linear time now, tests/test_growth.py and tests/page/test_markup.py check it)."""


class ArrivalMiddleware:
    """Records when each response arrives, just after the add-on's downloader middleware."""

    def process_response(self, request: scrapy.Request, response: Response) -> Response:
        ARRIVALS[response.url] = now()
        return response


class SiteSpider(scrapy.Spider):
    name = "hostile"

    def __init__(self, base: str, names: list[str], **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.base = base
        self.names = names

    async def start(self) -> AsyncIterator[Any]:
        for name in self.names:
            yield scrapy.Request(self.base + name)

    def parse(self, response: Response) -> Iterator[Any]:
        yield {"url": response.url}


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, str]]:
    root = tmp_path_factory.mktemp("hostile")
    for n in range(PAGES):
        (root / f"normal-{n}.html").write_text(article(f"Story number {n}"))
    for shapes in HOSTILE_SHAPES.values():
        for make in shapes:
            (root / f"{make.__name__}.html").write_text(make())
    with serve_apart(root) as base:
        yield root, base


@pytest.mark.parametrize("isolation", ["threads", "process"])
def test_hostile_pages_never_hold_back_the_others(site: tuple[Path, str], isolation: str) -> None:
    _, base = site
    shapes = HOSTILE_SHAPES[isolation]
    hostile = [f"{shapes[n % len(shapes)].__name__}.html?{n}" for n in range(PAGES)]
    normal = [f"normal-{n}.html" for n in range(PAGES)]
    names = [name for pair in zip(hostile, normal, strict=True) for name in pair]
    settings = {
        "ADDONS": {"scrapy_cetd.Addon": 100},
        "DOWNLOADER_MIDDLEWARES": {f"{__name__}.ArrivalMiddleware": 530},
        "CETD_TIME_BUDGET": BUDGET,
        "CETD_ISOLATION": isolation,
        "CONCURRENT_REQUESTS_PER_DOMAIN": 16,
    }
    ARRIVALS.clear()
    crawler = make_crawler(SiteSpider, settings)
    scraped: dict[str, tuple[float, float]] = {}

    def on_scraped(item: dict[str, Any]) -> None:
        scraped[item["url"]] = now()

    crawler.signals.connect(on_scraped, signal=signals.item_scraped)
    result = crawl(crawler, base=base, names=names)

    by_url = {item["url"]: item for item in result.items}
    assert sorted(by_url) == sorted(base + name for name in names)  # no item lost
    delays = {
        name: _delay(ARRIVALS[base + name], scraped[base + name], isolation) for name in normal
    }
    bound = MAX_DELAY + (WORKER_REPLACEMENT if isolation == "process" else 0.0)
    late = {name: round(delay, 2) for name, delay in delays.items() if delay > bound}
    assert not late, f"articles held back: {late}"
    texts = [by_url[base + name]["main_content_text"] for name in normal]
    assert all(text == "" or "heavy rain" in text for text in texts)
    emptied = texts.count("")
    for name in hostile:
        assert by_url[base + name]["main_content_text"] == "", name
    stats = result.stats
    reasons = {
        key.rsplit("/", 1)[1]: value
        for key, value in stats.items()
        if key.startswith("cetd/item_empty_reason_count/")
    }
    # A hostile page refused by the guard says so, unless its deadline passed first.
    assert set(reasons) <= {"max_attributes", "time_budget"}
    assert sum(reasons.values()) == PAGES + emptied
    assert stats["cetd/item_extracted_count"] == PAGES - emptied
    assert stats["item_scraped_count"] == 2 * PAGES


def _delay(arrival: tuple[float, float], scraped: tuple[float, float], isolation: str) -> float:
    """How long an article's item waited after its response arrived: the seconds, or with
    threads the CPU seconds the crawl spent meanwhile when fewer (see the module's text)."""
    seconds = scraped[0] - arrival[0]
    if isolation != "threads":
        return seconds
    return min(seconds, scraped[1] - arrival[1])
