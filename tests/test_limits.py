"""The limits of one extraction: :mod:`scrapy_cetd.limits`."""

from __future__ import annotations

import os
from typing import Any

import lxml.html
import pytest
from lxml import etree

from scrapy_cetd import limits
from scrapy_cetd.crawl.spider import tps_selector_region
from scrapy_cetd.limits import count_elements_by_xpath
from scrapy_cetd.page.dom import count_elements


class _RefusedNodeSet:
    """libxml2's XPath on a node set of more than ten million nodes: it raises."""

    def __call__(self, tree: Any) -> Any:
        raise etree.XPathEvalError("unknown error")


def test_elements_past_what_libxml2_s_xpath_holds_are_counted_by_a_walk(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    tree = lxml.html.fromstring("<div><!-- c --><p>a</p><p>b<?pi x?></p></div>")
    assert count_elements_by_xpath(tree) == 3
    monkeypatch.setattr(limits, "_ELEMENTS", _RefusedNodeSet())
    assert count_elements_by_xpath(tree) == 3  # elements only, as XPath's *


def test_tps_on_a_page_libxml2_s_xpath_cannot_count_reports_the_limit(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """TPS counted a page's elements with an XPath of its own, which raised on a page of more
    than ten million elements (a 96 MB page, or a small gzip bomb) instead of refusing it."""
    from scrapy.http import HtmlResponse

    monkeypatch.setattr(limits, "_ELEMENTS", _RefusedNodeSet())
    monkeypatch.setattr(count_elements, "compiled", lambda tree: None)  # the reference counts
    body = b"<html><body>" + b"<p>a</p>" * 300 + b"</body></html>"
    response = HtmlResponse("http://127.0.0.1/big", body=body, encoding="utf-8")
    _, region = tps_selector_region(response, max_nodes=100)
    assert region.reason is not None and region.reason.startswith(
        "max_nodes exceeded: 302 elements"
    )


def test_usable_cores_are_the_process_s_affinity_else_the_machine_s(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: {0, 3, 5}, raising=False)
    assert limits.usable_cores() == 3
    monkeypatch.delattr(os, "sched_getaffinity", raising=False)
    monkeypatch.setattr(os, "cpu_count", lambda: None)
    assert limits.usable_cores() == 1
    monkeypatch.setattr(os, "cpu_count", lambda: 8)
    assert limits.usable_cores() == 8
