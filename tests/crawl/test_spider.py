"""The spider helpers (scrapy_cetd.crawl.spider): get_dom, the pages it declines
(scrapy_cetd.crawl.eligibility); tps_selector and tps_selector_region over responses, their
defaults, and the checks they make before TPS reads a page."""

from __future__ import annotations

import logging
from typing import Any

import pytest
import scrapy
from conftest import STORM_PAGE
from conftest import STORM_URL as URL
from conftest import storm_response as html_response
from scrapy.http import HtmlResponse, JsonResponse, Request, Response, TextResponse
from tpskit import LIST_PAGE, PAPER, forum_index, shop_category

import scrapy_cetd
from scrapy_cetd import get_dom
from scrapy_cetd.crawl.eligibility import decline_reason
from scrapy_cetd.crawl.spider import tps_selector, tps_selector_region
from scrapy_cetd.tps import TpsOptions


def response_of(html: str, **meta: Any) -> HtmlResponse:
    url = "https://shop.example/jackets"
    return HtmlResponse(
        url, body=html.encode(), encoding="utf-8", request=Request(url, meta=dict(meta))
    )


CROWDED = " ".join(f"data-a{n}='1'" for n in range(1_500))
"""1,500 attributes for one tag: over the default ``max_attributes`` (1,000)."""


def test_tps_selector_over_an_html_response() -> None:
    response = HtmlResponse("https://shop.example/jackets", body=LIST_PAGE.encode())
    selector = tps_selector(response, PAPER)
    names = [product.css("a::text").get() for product in selector.css("li")]
    assert names == [f"Jacket {n}" for n in range(8)]
    assert selector.css("title::text").get() == "Shop"
    assert not selector.css(".nav a")
    # The response's own tree is the parsed one and stays whole.
    assert len(response.css(".nav a")) == 2
    assert selector.root is not response.selector.root
    assert tps_selector(response, PAPER, invert=True).css(".nav a")


def test_tps_selector_with_dont_cetd_and_non_html() -> None:
    request = Request("https://shop.example/jackets", meta={"dont_cetd": True})
    response = HtmlResponse(request.url, body=LIST_PAGE.encode(), request=request)
    assert len(tps_selector(response, PAPER).css("li")) == 8
    text = TextResponse("https://shop.example/a.txt", body=b"plain")
    with pytest.raises(TypeError, match="HTML response"):
        tps_selector(text, PAPER)


def test_tps_selector_over_a_limit_selects_in_the_whole_page(
    caplog: pytest.LogCaptureFixture,
) -> None:
    response = HtmlResponse("https://shop.example/jackets", body=LIST_PAGE.encode())
    with caplog.at_level("WARNING", logger="scrapy_cetd.crawl.spider"):
        selector = tps_selector(response, PAPER, max_nodes=5)
    assert len(selector.css(".nav a")) == 2
    assert len(selector.css("li")) == 8
    assert (
        "scrapy-cetd: TPS left https://shop.example/jackets unpruned: max_nodes exceeded"
        in caplog.text
    )


def test_tps_selector_uses_the_defaults_and_takes_the_paper_preset() -> None:
    response = response_of(forum_index())
    assert len(tps_selector(response).css("li.thread")) == 12
    assert len(tps_selector(response, TpsOptions.paper()).css("li.thread")) == 0
    # Keywords change the defaults for one call: weighed by their text, the threads outweigh
    # the menu even without keep_main_content.
    unguarded = tps_selector(response, keep_main_content=False)
    assert unguarded.get() == tps_selector(response, TpsOptions(keep_main_content=False)).get()
    assert len(unguarded.css("li.thread")) == 12
    assert not unguarded.css("li.menu-item")


def test_tps_selector_refuses_a_tag_with_too_many_attributes_before_pruning(
    caplog: pytest.LogCaptureFixture,
) -> None:
    page = shop_category().replace("<div class='page'>", f"<div class='page' {CROWDED}>")
    response = response_of(page)
    with caplog.at_level(logging.WARNING, logger="scrapy_cetd.crawl.spider"):
        selector, region = tps_selector_region(response)
    assert region.reason is not None
    assert region.reason.startswith("max_attributes exceeded: a <div> tag with more than 1,000")
    assert region.sequence == () and region.splits == ()
    # Unpruned: every record, and the menu, as response.css() sees them.
    assert len(selector.css("div.product-card")) == 12
    assert len(selector.css("nav a")) == 100
    assert len(tps_selector(response).css("nav a")) == 100
    # The paper's algorithm would keep only the menu (test above): the page is not pruned.
    assert len(tps_selector(response, TpsOptions.paper()).css("div.product-card")) == 12
    assert any(
        "scrapy-cetd: TPS left https://shop.example/jackets unpruned: max_attributes exceeded"
        in message
        for message in caplog.messages
    )
    # The limit is an option: raised, or switched off, the page is pruned.
    for options in (TpsOptions(max_attributes=2_000), TpsOptions(max_attributes=None)):
        pruned, region = tps_selector_region(response, options)
        assert region.reason is None
        assert len(pruned.css("div.product-card")) == 12
        assert not pruned.css("nav a")


def test_tps_selector_over_max_nodes_gives_the_whole_page_and_the_reason() -> None:
    response = response_of(forum_index())
    selector, region = tps_selector_region(response, max_nodes=50)
    assert region.reason is not None and region.reason.startswith("max_nodes exceeded")
    assert len(selector.css("li.thread")) == 12
    assert len(selector.css("li.menu-item")) == 56


def test_tps_selector_over_the_time_budget_gives_the_whole_page_and_the_reason() -> None:
    response = response_of(shop_category())
    selector, region = tps_selector_region(response, TpsOptions(time_budget=1e-9))
    assert region.reason is not None and region.reason.startswith("time_budget exceeded")
    assert len(selector.css("div.product-card")) == 12
    assert len(selector.css("nav a")) == 100


def test_tps_selector_region_of_a_pruned_page_has_no_reason() -> None:
    response = response_of(forum_index(), dont_cetd=True)  # the pipeline's switch, not TPS's
    selector, region = tps_selector_region(response)
    assert region.reason is None
    assert region.kept_count < region.node_count
    assert len(selector.css("li.thread")) == 12


def test_get_dom_is_the_selector_root() -> None:
    response = html_response()
    dom = get_dom(response)
    assert dom is not None
    assert dom.findtext(".//h1") == "Storm hits the coast"
    assert dom is response.selector.root
    assert get_dom(response) is dom


@pytest.mark.parametrize(
    ("response", "reason"),
    [
        (Response(URL, body=b"\x89PNG"), "not_html"),
        (TextResponse(URL, body=b"plain", encoding="utf-8"), "not_html"),
        (JsonResponse(URL, body=b"{}"), "not_html"),
        (html_response(dont_cetd=True), "dont_cetd"),
    ],
)
def test_get_dom_declines(response: Response, reason: str) -> None:
    assert decline_reason(response) == reason
    assert get_dom(response) is None


def test_get_dom_parses_a_page_whose_base_href_scrapy_cannot_resolve() -> None:
    base = "<base href='https://www.example: https://ogp.me/ns#'>"
    response = html_response(STORM_PAGE.replace("</title>", "</title>" + base))
    with pytest.raises(ValueError, match="Port"):
        response.selector  # noqa: B018 - Scrapy's own error, which the spider meets too
    dom = get_dom(response)
    assert dom is not None
    assert dom.findtext(".//h1") == "Storm hits the coast"


def test_get_dom_size_limit() -> None:
    response = html_response()
    assert get_dom(response, max_body_size=len(response.body)) is not None
    assert decline_reason(response, max_body_size=len(response.body) - 1) == "too_large"
    assert get_dom(response, max_body_size=len(response.body) - 1) is None


def test_get_dom_reads_the_page_of_a_callback_marked_dont_cetd() -> None:
    class Spider(scrapy.Spider):
        name = "marked"

        @scrapy_cetd.dont_cetd
        def parse_listing(self, response: Response) -> Any:
            return []

    spider = Spider()
    request = Request("http://example.com/", callback=spider.parse_listing)
    response = HtmlResponse(request.url, body=b"<p>x</p>", request=request)
    assert scrapy_cetd.get_dom(response) is not None
    assert decline_reason(response, spider=spider) == "dont_cetd"
    assert decline_reason(response) is None
