"""Reading a page as Scrapy reads it: :mod:`scrapy_cetd.page.parse`."""

from __future__ import annotations

import random
import tracemalloc

import pytest
from conftest import STORM_PAGE
from lxml import etree
from ratios import thread_seconds

from scrapy_cetd.guard import markup_problem
from scrapy_cetd.limits import Limits
from scrapy_cetd.page import accel
from scrapy_cetd.page.decoding import (
    html_response,
    utf8_page,
)
from scrapy_cetd.page.parse import (
    NotADocumentError,
    markup_reason,
    markup_scan,
    page_tree,
    response_tree,
    to_tree,
)

UNUSUAL_PAGES = {
    "plain": STORM_PAGE,
    "bom": "\ufeff" + STORM_PAGE,
    "two boms": "\ufeff\ufeff" + STORM_PAGE,
    "white space at the ends": "\n \u00a0\u2003" + STORM_PAGE + "\r\n\u3000 ",
    "ascii white space at the ends": "\n\t \x0b" + STORM_PAGE.replace("coast", "côte") + "\r\n",
    "white space at one end": STORM_PAGE + "\n",
    "white space and a nul": "\n" + STORM_PAGE.replace("Heavy", "Hea\x00vy") + " ",
    "nul": STORM_PAGE.replace("Heavy", "Hea\x00vy"),
    "lone surrogate": STORM_PAGE.replace("Heavy", "Heavy \ud800 rain"),
    "control characters": STORM_PAGE.replace("Heavy", "Heavy\x01\x0b rain"),
    "not ascii": STORM_PAGE.replace("Heavy", "Schwerer Sturm über Ærø, 暴風雨 😀"),
    "base href": STORM_PAGE.replace("</title>", "</title><base href='/news/'>"),
    "base href scrapy cannot resolve": STORM_PAGE.replace(
        "</title>", "</title><base href='https://www.example: https://ogp.me/ns# article: x'>"
    ),
    "a fragment": "<p>one paragraph</p>",
    "markup only": "<html><body></body></html>",
}


@pytest.mark.parametrize("url", [None, "https://example.com/a/b.html"])
@pytest.mark.parametrize("name", sorted(UNUSUAL_PAGES))
def test_page_tree_is_the_tree_of_scrapy_s_response(name: str, url: str | None) -> None:
    """A ``str`` page read without a response gives the response's body and text, and the
    tree its selector builds: the same nodes, base URL and element classes."""
    source = UNUSUAL_PAGES[name]
    response = html_response(source, url=url)
    body, text = utf8_page(source)
    assert (body, text) == (response.body, response.text)
    ours, scrapy = page_tree(body, text, url), response_tree(response)
    assert etree.tostring(ours, encoding="unicode") == etree.tostring(scrapy, encoding="unicode")
    assert ours.getroottree().docinfo.URL == scrapy.getroottree().docinfo.URL
    assert [type(node) for node in ours.iter()] == [type(node) for node in scrapy.iter()]


@pytest.mark.parametrize("source", ["", "  \n", "\x00\x00", '{"a": [1, 2]}'])
def test_page_tree_refuses_what_is_no_document(source: str) -> None:
    with pytest.raises(NotADocumentError):
        response_tree(html_response(source))
    with pytest.raises(NotADocumentError):
        page_tree(*utf8_page(source))


PIECES = [
    *("<", ">", '"', "'", "=", " ", "\t", "/", "a", "<a", "<b ", "</p ", "<A", "?", "\n", "\x0b"),
    *("<script>", "</script>", "<style>", "</STYLE", "<title>", "<plaintext", "<!--", "-->"),
    *("<!", '="', "= '", 'x=">"', "y='>'", 'c="<b>"', "<a/b", "\u00a0", "\u3000", "é", "😀"),
]
"""Pieces of markup that change how the guard's tokenizer reads what follows them, and white
space and characters of every width."""


def test_the_compiled_markup_scan_gives_the_guard_s_reason() -> None:
    """On random short pages with limits of a few attributes (a tag over the limit in every
    context), the compiled pass refuses exactly the pages the guard refuses, with its reason."""
    pick = random.Random(25)
    refused = 0
    for _ in range(20_000):
        page = "".join(pick.choices(PIECES, k=pick.randint(1, 40)))
        limit = pick.randint(1, 3)
        expected = markup_problem(page, max_attributes=limit) or ""
        assert accel.compiled.markup_scan(page, limit) in (expected, None), page
        assert markup_scan(page, limit) == expected, page
        refused += bool(expected)
    assert refused > 1_000


@pytest.mark.parametrize(
    "shape",
    [
        "<a" * 25_000 + " " * 50_000 + ">",
        "<a" * 50_000,
        '<p title="' + "<b c " * 20_000 + '">x</p>',
        "<div " + " ".join(f"<a{n}" for n in range(20_000)) + ">",
    ],
    ids=["names_then_spaces", "nested", "tags_in_a_value", "names_with_lt"],
)
def test_markup_reason_is_linear_where_tags_begin_inside_tags(shape: str) -> None:
    """Tags read from every ``<`` overlap when tags begin inside tags: the compiled pass then
    hands the page to the guard's scan before it has read much more than the page."""
    small, large = shape[: len(shape) // 10], shape
    assert markup_reason(large, 1_000) == Limits().markup_reason(large)
    ratio = thread_seconds(lambda: markup_reason(large, 1_000)) / max(
        thread_seconds(lambda: markup_reason(small, 1_000)), 1e-4
    )
    assert ratio < 25, f"10x the text took {ratio:.0f}x the time"


@pytest.mark.parametrize("kind", [str, bytes])
def test_a_url_longer_than_any_base_costs_no_memory_to_parse_under(kind: type) -> None:
    """A page URL longer than ``MAX_URL`` is no base for the page's links, and the page is
    parsed as without one: w3lib escaped it for the base URL of Scrapy's selector in about
    ninety times its size of memory (a 1 MB URL: 90 MB)."""
    page = "<html><body>" + "<p>Words of a page.</p>" * 5_000 + "</body></html>"
    source = page.encode() if kind is bytes else page
    url = "https://example.com/" + "a" * 100_000

    def peak(given: str | None) -> int:
        tracemalloc.start()
        tree = to_tree(source, url=given)
        peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
        assert tree.findtext(".//p") == "Words of a page."
        return peak

    assert peak(url) < 2 * peak("https://example.com/a")
