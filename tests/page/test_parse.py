"""Reading a page as Scrapy reads it: :mod:`scrapy_cetd.page.parse`."""

from __future__ import annotations

import pytest
from conftest import STORM_PAGE
from lxml import etree

from scrapy_cetd.page.parse import (
    NotADocumentError,
    html_response,
    page_tree,
    response_tree,
    utf8_page,
)

UNUSUAL_PAGES = {
    "plain": STORM_PAGE,
    "bom": "\ufeff" + STORM_PAGE,
    "two boms": "\ufeff\ufeff" + STORM_PAGE,
    "white space at the ends": "\n \u00a0\u2003" + STORM_PAGE + "\r\n\u3000 ",
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
