"""The three middlewares, called directly."""

from __future__ import annotations

import time
from typing import Any

import parsel.selector
import pytest
from conftest import STORM_PAGE
from crawlkit import unit_crawler
from scrapy import Request
from scrapy.http import HtmlResponse, Response
from scrapy.utils.misc import build_from_crawler

from scrapy_cetd import CETDDownloaderMiddleware, CETDSpiderMiddleware, get_dom
from scrapy_cetd.crawl.linking import ItemResponseLinks
from scrapy_cetd.crawl.middleware import CETDDecodingMiddleware, arrival_time

URL = "http://127.0.0.1/story.html"


def html_response(body: str = STORM_PAGE, **meta: Any) -> HtmlResponse:
    request = Request(URL, meta=meta)
    return HtmlResponse(URL, body=body.encode(), encoding="utf-8", request=request)


def test_downloader_middleware_counts_and_passes_responses_untouched() -> None:
    crawler = unit_crawler({"CETD_MAX_BODY_SIZE": 300})
    middleware = build_from_crawler(CETDDownloaderMiddleware, crawler)
    responses = [
        html_response("<html><body><p>short</p></body></html>"),
        html_response(),  # over 300 bytes
        html_response(dont_cetd=True),
        Response(URL, body=b"\x89PNG", request=Request(URL)),
    ]
    for response in responses:
        assert response.request is not None
        assert middleware.process_response(response.request, response) is response
    stats = crawler.stats.get_stats()
    assert stats["cetd/response_count"] == 1
    assert stats["cetd/response_skipped_count/too_large"] == 1
    assert stats["cetd/response_skipped_count/dont_cetd"] == 1
    assert stats["cetd/response_skipped_count/not_html"] == 1
    # Lazy by default: nothing was parsed.
    assert all(getattr(r, "_cached_selector", None) is None for r in responses)


@pytest.mark.parametrize("eager", [False, True])
def test_eager_parse_parses_once_in_the_middleware(
    monkeypatch: pytest.MonkeyPatch, eager: bool
) -> None:
    calls: list[int] = []
    create_root_node = parsel.selector.create_root_node

    def counting(*args: Any, **kwargs: Any) -> Any:
        calls.append(1)
        return create_root_node(*args, **kwargs)

    monkeypatch.setattr(parsel.selector, "create_root_node", counting)
    middleware = build_from_crawler(
        CETDDownloaderMiddleware, unit_crawler({"CETD_EAGER_PARSE": eager})
    )
    response = html_response()
    assert response.request is not None
    middleware.process_response(response.request, response)
    assert len(calls) == (1 if eager else 0)
    dom = get_dom(response)
    assert response.css("h1::text").get() == "Storm hits the coast"
    assert get_dom(response) is dom
    assert len(calls) == 1


def test_spider_middleware_links_items_to_their_response() -> None:
    crawler = unit_crawler()
    middleware = build_from_crawler(CETDSpiderMiddleware, crawler)
    links = ItemResponseLinks.for_crawler(crawler)
    response = html_response()
    item: dict[str, Any] = {"title": "x"}
    start_item: dict[str, Any] = {"title": "from start()"}
    assert middleware.get_processed_item(item, response) is item
    assert middleware.get_processed_item(start_item, None) is start_item
    assert len(links) == 1
    assert links.pop(start_item) is None
    assert links.pop(item) is response
    assert len(links) == 0
    # Nothing was added to the item or the request.
    assert item == {"title": "x"}
    assert response.meta == {}


def test_arrival_is_recorded_for_the_responses_it_works_on() -> None:
    middleware = build_from_crawler(CETDDownloaderMiddleware, unit_crawler())
    eligible, declined = html_response(), html_response(dont_cetd=True)
    for response in (eligible, declined):
        assert response.request is not None
        middleware.process_response(response.request, response)
    assert arrival_time(declined) is None
    arrived = arrival_time(eligible)
    assert arrived is not None and arrived <= time.monotonic()


def test_eager_parse_does_not_parse_a_page_the_guard_refuses(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    calls: list[int] = []
    create_root_node = parsel.selector.create_root_node

    def counting(*args: Any, **kwargs: Any) -> Any:
        calls.append(1)
        return create_root_node(*args, **kwargs)

    monkeypatch.setattr(parsel.selector, "create_root_node", counting)
    crawler = unit_crawler({"CETD_EAGER_PARSE": True, "CETD_MAX_ATTRIBUTES": 10})
    middleware = build_from_crawler(CETDDownloaderMiddleware, crawler)
    many = " ".join(f"a{n}" for n in range(11))
    for body in (f"<html><body><p {many}>x</p></body></html>", STORM_PAGE):
        response = html_response(body)
        assert response.request is not None
        assert middleware.process_response(response.request, response) is response
    assert len(calls) == 1  # the storm page only
    assert crawler.stats.get_value("cetd/response_parse_refused_count") == 1


def test_decoding_middleware_hands_on_a_readable_copy() -> None:
    crawler = unit_crawler()
    middleware = build_from_crawler(CETDDecodingMiddleware, crawler)
    body = STORM_PAGE.encode()
    labelled = HtmlResponse(
        URL, body=body, headers={"Content-Type": "text/html; charset=hex"}, request=Request(URL)
    )
    with pytest.raises(LookupError):
        labelled.text  # noqa: B018 - what Scrapy's own components would meet
    assert labelled.request is not None
    readable = middleware.process_response(labelled.request, labelled)
    assert readable is not labelled and readable.request is labelled.request
    assert isinstance(readable, HtmlResponse) and readable.text == STORM_PAGE
    plain = html_response()
    assert plain.request is not None
    assert middleware.process_response(plain.request, plain) is plain
    left = HtmlResponse(
        URL,
        body=body,
        headers={"Content-Type": "text/html; charset=hex"},
        request=Request(URL, meta={"dont_cetd": True}),
    )
    assert left.request is not None
    assert middleware.process_response(left.request, left) is left
    assert crawler.stats.get_value("cetd/response_charset_ignored_count") == 1
