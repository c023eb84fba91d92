"""The three middlewares: which responses scrapy-cetd works on and when they arrived, the
link from each item to its response, and a readable copy of a response Scrapy cannot decode.

scrapy-cetd never parses a page itself: the tree it extracts from is the one parsel builds for
``response.selector`` (and so for ``response.css()`` and ``response.xpath()``), which Scrapy
caches on the response. A spider that reads the page and the pipeline that extracts its main
content therefore share a single parse, whichever of the two comes first.

* :class:`CETDDownloaderMiddleware` finds which responses are eligible
  (:func:`~scrapy_cetd.crawl.eligibility.decline_reason`: HTML, at most
  ``CETD_MAX_BODY_SIZE`` bytes, no ``dont_cetd`` in ``Request.meta``), counts them, records
  when they arrived, and with ``CETD_EAGER_PARSE`` parses them on arrival.
* :class:`CETDSpiderMiddleware` links each item to the response it came from
  (:mod:`scrapy_cetd.crawl.linking`), since pipelines never see responses.
* :class:`CETDDecodingMiddleware` replaces a response whose charset label names no text
  encoding with a copy decoded as a browser decodes it, before any other component reads it.
"""

from __future__ import annotations

import logging
import time
import weakref
from typing import TYPE_CHECKING, Any

from scrapy.http import HtmlResponse, Response
from scrapy.spidermiddlewares.base import BaseSpiderMiddleware

from scrapy_cetd.crawl.eligibility import decline_reason
from scrapy_cetd.crawl.linking import ItemResponseLinks
from scrapy_cetd.crawl.settings import DONT_CETD_META_KEY, disabled, read_settings
from scrapy_cetd.guard import markup_problem
from scrapy_cetd.page.decoding import readable_response

if TYPE_CHECKING:
    from scrapy import Request
    from scrapy.crawler import Crawler

logger = logging.getLogger(__name__)

_ARRIVALS: weakref.WeakKeyDictionary[Response, float] = weakref.WeakKeyDictionary()
"""When each eligible response reached :class:`CETDDownloaderMiddleware`
(:func:`time.monotonic`). Weak keys: an entry lives exactly as long as its response."""


def arrival_time(response: Response) -> float | None:
    """When ``response`` arrived (a :func:`time.monotonic` time), as recorded by
    :class:`CETDDownloaderMiddleware`; ``None`` for a response it has not seen. The
    pipeline's time budget counts from there."""
    return _ARRIVALS.get(response)


class CETDDownloaderMiddleware:
    """Marks the responses scrapy-cetd works on and, with ``CETD_EAGER_PARSE``, parses them.

    Place it below 550 (the add-on uses 540): ``process_response`` runs from high to low
    priority, so it then sees the final response, after retries, redirects and
    decompression. It records when each eligible response arrived (:func:`arrival_time`), the
    start of the response's time budget. Every response is returned unchanged; non-HTML ones
    are not even looked at beyond their class. With ``CETD_EAGER_PARSE``, a page refused by
    ``CETD_MAX_ATTRIBUTES`` (:mod:`scrapy_cetd.guard`) is not parsed. Stats:
    ``cetd/response_count`` (eligible responses), ``cetd/response_skipped_count/<reason>``,
    ``cetd/response_parse_refused_count`` and ``cetd/response_parse_error_count``.
    """

    def __init__(self, crawler: Crawler) -> None:
        settings = read_settings(crawler.settings)
        if not settings.enabled:
            raise disabled(crawler)
        self.crawler = crawler
        self.max_body_size = settings.max_body_size
        self.max_attributes = settings.max_attributes
        self.eager_parse = settings.eager_parse

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> CETDDownloaderMiddleware:
        """Build the middleware from the crawler's ``CETD_*`` settings."""
        return cls(crawler)

    def process_response(self, request: Request, response: Response) -> Response:
        """Count the response as eligible or skipped; parse it now with ``CETD_EAGER_PARSE``."""
        stats = self.crawler.stats
        reason = decline_reason(
            response,
            max_body_size=self.max_body_size,
            request=request,
            spider=self.crawler.spider,
        )
        if reason is not None:
            stats.inc_value(f"cetd/response_skipped_count/{reason}")
            return response
        _ARRIVALS[response] = time.monotonic()
        stats.inc_value("cetd/response_count")
        if self.eager_parse and isinstance(response, HtmlResponse):
            readable = readable_response(response)
            if readable is not response:  # a charset label to ignore: the worker parses a copy
                return response
            if markup_problem(response.text, max_attributes=self.max_attributes) is not None:
                stats.inc_value("cetd/response_parse_refused_count")
                return response
            try:
                response.selector  # noqa: B018 - builds and caches the tree
            except Exception:
                # Not fatal here: the spider gets the same error from response.css() and
                # the pipeline reports the item; the response itself goes on.
                stats.inc_value("cetd/response_parse_error_count")
                logger.warning(
                    "scrapy-cetd: could not parse %s",
                    response.url,
                    exc_info=True,
                    extra={"crawler": self.crawler},
                )
        return response


class CETDDecodingMiddleware:
    """Hands on a copy of an HTML response whose charset label a browser would ignore.

    Scrapy follows any charset label Python knows, including codecs that are no text encoding
    (``hex``, ``base64``, ``zlib``, ...): ``response.text`` then raises :class:`LookupError`
    in the first component that reads it (Scrapy's ``MetaRefreshMiddleware``, the spider) and
    the page produces nothing. This middleware returns
    :func:`~scrapy_cetd.page.decoding.readable_response` instead: the same response, or a copy
    decoded by the labels a browser follows, then detection. Place it between
    ``HttpCompressionMiddleware`` (590) and ``MetaRefreshMiddleware`` (580), as the add-on does
    (585), so that it sees the decompressed body before anything reads its text. A request
    with ``dont_cetd`` in its ``meta`` keeps its response. Stat:
    ``cetd/response_charset_ignored_count``.
    """

    def __init__(self, crawler: Crawler) -> None:
        if not read_settings(crawler.settings).enabled:
            raise disabled(crawler)
        self.crawler = crawler

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> CETDDecodingMiddleware:
        """Build the middleware (it has no setting of its own)."""
        return cls(crawler)

    def process_response(self, request: Request, response: Response) -> Response:
        """``response``, or its readable copy."""
        if not isinstance(response, HtmlResponse) or request.meta.get(DONT_CETD_META_KEY):
            return response
        readable = readable_response(response)
        if readable is not response:
            self.crawler.stats.inc_value("cetd/response_charset_ignored_count")
        return readable


class CETDSpiderMiddleware(BaseSpiderMiddleware):
    """Links every item a callback yields to the callback's response, for the pipeline.

    Runs at a low priority (the add-on uses 10, below every built-in spider middleware) so it
    links the item object that actually leaves the spider middlewares. Items from
    ``start()`` have no response and are not linked. The link lives in a per-crawler table
    (:class:`~scrapy_cetd.crawl.linking.ItemResponseLinks`), never in the item or in ``meta``.
    """

    def __init__(self, crawler: Crawler) -> None:
        if not read_settings(crawler.settings).enabled:
            raise disabled(crawler)
        super().__init__(crawler)
        self.links = ItemResponseLinks.for_crawler(crawler)

    def get_processed_item(self, item: Any, response: Response | None) -> Any:
        """Record ``item``'s response and pass the item on unchanged."""
        if response is not None:
            self.links.link(item, response)
        return item
