"""Shared fixtures: the paper's example pages and the location of the shared datasets."""

from __future__ import annotations

import asyncio
import os
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import lxml.html
import pytest
from crawlkit import stop_reactor, unit_crawler
from hypothesis import settings
from lxml import etree
from scrapy import Request
from scrapy.http import HtmlResponse, Response
from scrapy.utils.misc import build_from_crawler

from scrapy_cetd import CETDPipeline, Extractor
from scrapy_cetd.crawl.linking import ItemResponseLinks
from scrapy_cetd.evaluation.datasets import DATASETS_ENV
from scrapy_cetd.page import accel

EXAMPLE_1 = """<body><div class="main"><div class="article"><div class="articleHeadline">
  South Korea to Hold Artillery Drills on Island</div>
<div class="articleBody">
  The announcement came as
  <a href="#">Bill Richardson</a>
</div></div></div></body>"""
"""CETD paper Example 1 with the elisions removed (docs/algorithms.md §1.9.1)."""

STORM_PAGE = """<html><head><title>t</title><script>var x=1;</script></head><body>
<div id="nav"><ul><li><a href="/">Home</a></li><li><a href="/world">World</a></li><li><a href="/sports">Sports</a></li></ul></div>
<div id="content">
<h1>Storm hits the coast</h1>
<p>Heavy rain and strong winds battered the coastal towns on Monday, forcing hundreds of residents to leave their homes.</p>
<p>Officials said the damage was severe, according to <a href="/x">local reports</a>.</p>
</div>
<div id="footer">Copyright 2011 Example News. All rights reserved.</div>
</body></html>"""  # noqa: E501
"""The derived page of docs/algorithms.md §1.9.2."""

META_PAGE = STORM_PAGE.replace(
    "<title>t</title>",
    "<title>Storm hits the coast | Example News</title>"
    '<meta property="og:site_name" content="Example News">'
    '<meta name="author" content="By Jane Doe">'
    '<meta property="article:published_time" content="2011-03-14T08:00:00Z">',
)
"""The storm page with a headline that carries the site's name, a site name, a byline and a
date in its head: what the metadata reads."""


def parse(html: str) -> etree._Element:
    """Parse as lxml.html does for Scrapy (document root)."""
    return lxml.html.document_fromstring(html)


def body_of(root: etree._Element) -> etree._Element:
    """The ``<body>`` child of a parsed document, which the test's page has."""
    body = root.find("body")
    assert body is not None, "the page has no <body>"
    return body


HTML_BLOCKS = (
    *("address", "article", "aside", "blockquote", "caption", "center", "dd", "details"),
    *("dialog", "dir", "div", "dl", "dt", "fieldset", "figcaption", "figure", "footer", "form"),
    *("h1", "header", "hgroup", "legend", "li", "listing", "main", "menu", "nav", "ol", "p"),
    *("pre", "search", "section", "summary", "ul", "xmp"),
)
"""Elements HTML's rendering section shows as blocks (``display: block``, ``list-item``,
``table-caption``), written out rather than read from ``scrapy_cetd.page.dom.BLOCK_TAGS``,
which the tests check."""


def block_between_spans(tag: str) -> str:
    """``tag`` holding ``Beta`` between two spans, or a table's caption before a cell."""
    if tag == "caption":
        table = "<table><caption>Beta</caption><tr><td>Gamma</td></tr></table>"
        return f"<body><span>Alpha</span>{table}</body>"
    return f"<body><span>Alpha</span><{tag} open>Beta</{tag}><span>Gamma</span></body>"


def elements_at(node: etree._Element, query: str) -> list[etree._Element]:
    """The elements the XPath ``query`` selects from ``node`` (it must select elements only)."""
    found = node.xpath(query)
    assert isinstance(found, list), query
    elements = []
    for item in found:
        assert isinstance(item, etree._Element), (query, item)
        elements.append(item)
    return elements


def html_elements_at(node: etree._Element, query: str) -> list[lxml.html.HtmlElement]:
    """:func:`elements_at` for a tree built by ``lxml.html`` (elements with ``text_content``)."""
    elements = []
    for element in elements_at(node, query):
        assert isinstance(element, lxml.html.HtmlElement), (query, element)
        elements.append(element)
    return elements


def strings_at(node: etree._Element, query: str) -> list[str]:
    """The strings the XPath ``query`` selects from ``node``: text or attribute values."""
    found = node.xpath(query)
    assert isinstance(found, list), query
    strings = []
    for item in found:
        assert isinstance(item, str), (query, item)
        strings.append(item)
    return strings


def string_at(node: etree._Element, query: str) -> str:
    """The value of an XPath ``query`` that makes a string (``string(...)``)."""
    found = node.xpath(query)
    assert isinstance(found, str), query
    return found


def text_parts(node: etree._Element) -> list[str]:
    """``node.itertext()`` as strings (what lxml yields for a parsed page)."""
    parts = []
    for part in node.itertext():
        assert isinstance(part, str)
        parts.append(part)
    return parts


def html_of(node: etree._Element) -> str:
    """``node`` serialised as HTML, without its tail."""
    html = lxml.html.tostring(node, encoding="unicode", with_tail=False)
    assert isinstance(html, str)
    return html


@pytest.fixture(scope="session", autouse=True)
def reactor_stopped_at_the_end() -> Iterator[None]:
    """On Scrapy 2.14 the crawls share one asyncio reactor, started by the first: it is stopped
    when the tests end (see crawlkit). Nothing on Scrapy 2.15+, whose crawls have no reactor."""
    yield
    stop_reactor()


@pytest.fixture
def reference_passes() -> Iterator[None]:
    """Every compiled pass runs its pure-Python reference during the test."""
    with accel.reference_only():
        yield


@pytest.fixture
def example_1() -> etree._Element:
    return parse(EXAMPLE_1)


@pytest.fixture
def storm_page() -> etree._Element:
    return parse(STORM_PAGE)


def deep_chain(depth: int) -> tuple[etree._Element, list[etree._Element]]:
    """An ``<html>`` whose ``<body>`` nests ``depth`` divs; the chain holds body and the divs.

    The chain keeps every element proxy alive: lxml frees a proxy by searching its ancestors
    for a live one, which costs O(depth) per proxy on such a tree.
    """
    root = lxml.html.Element("html")
    chain = [etree.SubElement(root, "body")]
    for _ in range(depth):
        chain.append(etree.SubElement(chain[-1], "div"))
    return root, chain


def texts_from_threads(
    extractor: Extractor, pages: list[etree._Element], rounds: int = 10
) -> list[str]:
    """The text each of ``len(pages)`` threads got from one shared ``extractor``, page i in
    thread i, after ``rounds`` calls each."""
    results = [""] * len(pages)

    def work(i: int) -> None:
        for _ in range(rounds):
            results[i] = extractor.extract(pages[i]).text

    threads = [threading.Thread(target=work, args=(i,)) for i in range(len(pages))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return results


STORM_URL = "http://127.0.0.1/storm.html"
"""Where the pipeline's tests say :data:`STORM_PAGE` came from."""
EMPTY_FIELDS = {
    "main_content_html": "",
    "main_content_text": "",
    "main_content_title": "",
    "main_content_page_type": "",
}
"""The content fields of an item the pipeline found nothing in."""


def storm_response(body: str = STORM_PAGE, url: str = STORM_URL, **meta: Any) -> HtmlResponse:
    """A response of ``body`` (by default :data:`STORM_PAGE`) whose request has ``meta``."""
    return HtmlResponse(url, body=body.encode(), encoding="utf-8", request=Request(url, meta=meta))


class PipelineHarness:
    """A pipeline on a configured crawler, and the table its spider middleware would fill:
    :meth:`run` passes one item (linked to ``response``, if given) through the pipeline."""

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


# Hypothesis profiles, chosen with HYPOTHESIS_PROFILE: "fast" (the default, what `make test`
# runs: the property tests of test_properties.py take a few seconds, on the same examples every
# run, so CI is repeatable) and "long" (a random search of minutes for local runs:
# HYPOTHESIS_PROFILE=long pytest tests/test_properties.py).
settings.register_profile("fast", max_examples=30, deadline=None, print_blob=True, derandomize=True)
settings.register_profile("long", max_examples=3_000, deadline=None, print_blob=True)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "fast"))

SHARED_DATASETS = Path("..", "shared", "datasets")
"""The shared datasets when ``$CETD_DATASETS`` is not set, from the directory pytest runs in (the
repository's root); the tests that need them are skipped when neither is there."""


def pytest_configure(config: pytest.Config) -> None:
    """Point ``$CETD_DATASETS`` at :data:`SHARED_DATASETS` unless it is set or there is none."""
    if not os.environ.get(DATASETS_ENV) and SHARED_DATASETS.is_dir():
        os.environ[DATASETS_ENV] = str(SHARED_DATASETS.resolve())
