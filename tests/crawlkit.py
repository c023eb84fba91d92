"""Helpers for tests that run Scrapy: crawlers, a local HTTP server, pages, item classes.

On Scrapy 2.15+, crawls run in Scrapy's reactorless mode (``TWISTED_REACTOR_ENABLED = False``):
each test drives ``Crawler.crawl_async()`` with :func:`asyncio.run`, so no Twisted reactor and
no pytest plugin is needed, and every crawl gets a fresh event loop.

Scrapy 2.14, the lowest the package supports, has no reactorless mode: there the crawls run
under Scrapy's default reactor, the asyncio one, installed in the test process the first time
a crawler is made (:func:`make_crawler`, :func:`unit_crawler`) and started at the first crawl.
A Twisted reactor runs once per process, so it is not run and stopped per crawl: each crawl
drives ``Crawler.crawl_async()`` on the reactor's own event loop until it ends, and the reactor
is stopped once, when the tests end (:func:`stop_reactor`, called by ``conftest.py``).
:data:`REACTORLESS` says which of the two the installed Scrapy does.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import functools
import subprocess
import sys
import threading
from collections.abc import Coroutine, Iterator
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import attrs
import scrapy
from lxml import etree
from scrapy import signals
from scrapy.crawler import Crawler
from scrapy.settings import default_settings
from scrapy.utils.reactor import (
    install_reactor,
    is_asyncio_reactor_installed,
    is_reactor_installed,
)
from scrapy.utils.test import get_crawler

import scrapy_cetd
from scrapy_cetd.result import ExtractionResult

CRAWL_TIMEOUT = 30.0
"""No test crawl may take longer than this (seconds)."""

SERVER_LIFETIME = 120.0
"""The test HTTP server shuts itself down after this long, whatever happens to the test."""

REACTORLESS = hasattr(default_settings, "TWISTED_REACTOR_ENABLED")
"""Whether the installed Scrapy can crawl without a Twisted reactor (Scrapy 2.15+, which has the
setting ``TWISTED_REACTOR_ENABLED``): the test crawls then do; on Scrapy 2.14 they run under the
asyncio reactor."""

ASYNCIO_REACTOR = "twisted.internet.asyncioreactor.AsyncioSelectorReactor"
"""Scrapy's default ``TWISTED_REACTOR``: the reactor of the crawls on Scrapy 2.14."""

BASE_SETTINGS: dict[str, Any] = {
    **({"TWISTED_REACTOR_ENABLED": False} if REACTORLESS else {}),
    "TELNETCONSOLE_ENABLED": False,
    "LOG_LEVEL": "INFO",
    "ROBOTSTXT_OBEY": False,
    "COOKIES_ENABLED": False,
    "DOWNLOAD_TIMEOUT": 10,
    "RETRY_ENABLED": False,
}

ARTICLE = """<html><head><title>{title}</title></head><body>
<div id="nav"><ul><li><a href="/">Home</a></li><li><a href="/world">World</a></li>
<li><a href="/sports">Sports</a></li><li><a href="/tech">Technology</a></li></ul></div>
<div id="content"><h1>{title}</h1>
<p>{title}: heavy rain and strong winds battered the coastal towns on Monday, forcing hundreds
of residents to leave their homes as rivers burst their banks across the region.</p>
<p>Officials said the damage was severe, according to <a href="/x">local reports</a>, and that
repairs to the roads and the power lines would take several weeks to complete.</p>
<p>Emergency services worked through the night to reach the villages cut off by the floods.</p>
</div>
<div id="footer">Copyright 2011 Example News. All rights reserved. <a href="/about">About</a></div>
</body></html>"""


def article(title: str) -> str:
    """A small news page with navigation, three paragraphs of content and a footer."""
    return ARTICLE.format(title=title)


class BoomExtractor:
    """A user extractor class (``CETD_ALGORITHM = "crawlkit.BoomExtractor"``): fails on URLs
    containing ``boom``, returns a result without text on URLs containing ``hollow``, and
    otherwise behaves as the registered algorithm given in ``inner``."""

    def __init__(self, inner: str = scrapy_cetd.DEFAULT_ALGORITHM) -> None:
        self.inner = scrapy_cetd.get_extractor(inner)

    def extract(self, tree: etree._Element, *, url: str | None = None) -> ExtractionResult:
        if url and "boom" in url:
            raise RuntimeError("boom")
        if url and "hollow" in url:
            return ExtractionResult.empty("boom", "hollow page")
        return self.inner.extract(tree, url=url)


class TitledExtractor:
    """A user extractor (``CETD_ALGORITHM = "crawlkit.TitledExtractor"``) that finds a
    headline, and records the threads it runs in and the URLs it is called for."""

    calls: list[tuple[str, str | None]] = []  # noqa: RUF012 - shared with the tests

    def extract(self, tree: Any, *, url: str | None = None) -> scrapy_cetd.ExtractionResult:
        TitledExtractor.calls.append((threading.current_thread().name, url))
        result = scrapy_cetd.extract(tree, url=url)
        return dataclasses.replace(result, title="Storm hits\x01 the coast")


class NewsItem(scrapy.Item):
    url = scrapy.Field()
    kind = scrapy.Field()
    main_content_html = scrapy.Field()
    main_content_text = scrapy.Field()


class BareItem(scrapy.Item):
    """A declared item class without the main content fields."""

    url = scrapy.Field()
    kind = scrapy.Field()


@dataclasses.dataclass
class NewsDataclass:
    url: str
    kind: str = "dataclass"
    main_content_html: str | None = None
    main_content_text: str | None = None


@attrs.define
class NewsAttrs:
    url: str
    kind: str = "attrs"
    main_content_html: str | None = None
    main_content_text: str | None = None


def make_items(url: str) -> list[Any]:
    """One item of each kind the pipeline supports, all for ``url``."""
    return [
        {"url": url, "kind": "dict"},
        NewsItem(url=url, kind="scrapy.Item"),
        NewsDataclass(url=url),
        NewsAttrs(url=url),
    ]


class _QuietHandler(SimpleHTTPRequestHandler):
    extensions_map = {  # noqa: RUF012 - the handler's own class attribute
        **SimpleHTTPRequestHandler.extensions_map,
        ".html": "text/html",
        ".json": "application/json",
        ".png": "image/png",
    }

    def log_message(self, format: str, *args: Any) -> None:
        pass


@contextlib.contextmanager
def serve(directory: Path) -> Iterator[str]:
    """Serve ``directory`` on 127.0.0.1 (a free port) in a thread; yields the base URL.

    The server stops when the block ends, and on its own after :data:`SERVER_LIFETIME`.
    """
    handler = functools.partial(_QuietHandler, directory=str(directory))
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    watchdog = threading.Timer(SERVER_LIFETIME, server.shutdown)
    watchdog.daemon = True
    watchdog.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/"
    finally:
        watchdog.cancel()
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)


@contextlib.contextmanager
def serve_apart(directory: Path) -> Iterator[str]:
    """Like :func:`serve`, from a process of its own (``python -m http.server``), so that
    sending large pages costs the crawl's process nothing: for tests that time the crawl."""
    server = subprocess.Popen(
        [sys.executable, "-u", "-m", "http.server", "0", "--bind", "127.0.0.1"],
        cwd=directory,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    try:
        assert server.stdout is not None
        banner = server.stdout.readline()  # "Serving HTTP on 127.0.0.1 port 12345 (...) ..."
        port = int(banner.split(" port ", 1)[1].split()[0])
        yield f"http://127.0.0.1:{port}/"
    finally:
        server.terminate()
        server.wait(timeout=10)


def _installed_reactor() -> Any:
    """Scrapy 2.14: the asyncio reactor, installed in this process if it is not yet."""
    install_reactor(ASYNCIO_REACTOR)
    if not is_asyncio_reactor_installed():
        raise RuntimeError("another Twisted reactor than the asyncio one is installed")
    from twisted.internet import reactor

    return reactor


def run_crawl(main: Coroutine[Any, Any, None]) -> None:
    """Run ``main`` (a coroutine that crawls) to its end, as the installed Scrapy crawls: in a
    fresh event loop without Twisted reactor (Scrapy 2.15+), or on the event loop of the asyncio
    reactor (Scrapy 2.14), started for the first crawl and left running for the next ones."""
    if REACTORLESS:
        asyncio.run(main)
        return
    reactor = _installed_reactor()
    if not reactor.running:
        # What reactor.run() does, but for the loop's run_forever(): the crawls run the loop.
        reactor.startRunning(installSignalHandlers=False)
    loop: asyncio.AbstractEventLoop = reactor._asyncioEventloop
    loop.run_until_complete(main)


def stop_reactor() -> None:
    """Stop the reactor the crawls started (Scrapy 2.14), once, when the tests end: its thread
    pool's threads would otherwise keep the process from exiting. Nothing without one."""
    if REACTORLESS or not is_reactor_installed():
        return
    reactor: Any = sys.modules["twisted.internet.reactor"]
    if reactor.running and is_asyncio_reactor_installed():
        reactor.stop()
        reactor._asyncioEventloop.run_forever()  # until the reactor's shutdown stops the loop


def make_crawler(spidercls: type[scrapy.Spider], settings: dict[str, Any]) -> Crawler:
    """A crawler for ``spidercls`` with the test settings plus ``settings``: reactorless on
    Scrapy 2.15+, under the asyncio reactor (installed now if need be) on Scrapy 2.14."""
    if not REACTORLESS:
        _installed_reactor()
    return Crawler(spidercls, {**BASE_SETTINGS, **settings})


def unit_crawler(settings: dict[str, Any] | None = None) -> Crawler:
    """A configured crawler (settings applied, stats ready) for calling components directly;
    on Scrapy 2.14 with the asyncio reactor installed, which its settings check."""
    if not REACTORLESS:
        _installed_reactor()
    return get_crawler(scrapy.Spider, {**BASE_SETTINGS, **(settings or {})})


@dataclasses.dataclass
class CrawlResult:
    crawler: Crawler
    items: list[Any]
    dropped: list[tuple[Any, str]]

    @property
    def stats(self) -> dict[str, Any]:
        return self.crawler.stats.get_stats()


def crawl(crawler: Crawler, **spider_kwargs: Any) -> CrawlResult:
    """Run ``crawler`` to the end (bounded by :data:`CRAWL_TIMEOUT`); collect its items."""
    items: list[Any] = []
    dropped: list[tuple[Any, str]] = []

    def scraped(item: Any) -> None:
        items.append(item)

    def was_dropped(item: Any, exception: BaseException) -> None:
        dropped.append((item, str(exception)))

    crawler.signals.connect(scraped, signal=signals.item_scraped)
    crawler.signals.connect(was_dropped, signal=signals.item_dropped)

    async def run() -> None:
        await asyncio.wait_for(crawler.crawl_async(**spider_kwargs), CRAWL_TIMEOUT)

    run_crawl(run())
    return CrawlResult(crawler, items, dropped)
