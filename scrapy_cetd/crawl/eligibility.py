"""Which responses scrapy-cetd works on: :func:`decline_reason`, read by the downloader
middleware, the pipeline and :func:`~scrapy_cetd.get_dom` alike, and :func:`dont_cetd`, the
mark of a spider callback whose items are not about its page.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypeVar

from scrapy.http import HtmlResponse
from scrapy.spiders import CrawlSpider

from scrapy_cetd.crawl.settings import DONT_CETD_META_KEY

if TYPE_CHECKING:
    from scrapy import Request, Spider
    from scrapy.http import Response

_CallbackT = TypeVar("_CallbackT", bound=Callable[..., Any])

_DONT_CETD_ATTRIBUTE = "_scrapy_cetd_dont_cetd"


def dont_cetd(callback: _CallbackT) -> _CallbackT:
    """Marks a spider callback whose items are not about its page: scrapy-cetd leaves them
    alone, as it does the items of a request with ``dont_cetd`` in its ``meta``.

    For a callback that yields one item per record of a listing page (a product, a thread,
    a search hit): without the mark each record would get the main content of the whole
    page. The callback still reads the page as usual (``response.css()``,
    :func:`~scrapy_cetd.tps_selector`)::

        @dont_cetd
        def parse_listing(self, response):
            for record in tps_selector(response).css("li"):
                yield {"title": record.css("a::text").get()}

    The mark is read from the request's callback (``spider.parse`` when it names none),
    wherever the request was made, and from the callback of a
    :class:`~scrapy.spiders.CrawlSpider` rule (``Rule(extractor, callback="parse_listing")``).
    Returns ``callback`` itself.
    """
    setattr(callback, _DONT_CETD_ATTRIBUTE, True)
    return callback


def _marked(request: Request, spider: Spider) -> bool:
    """Whether the callback of ``request`` (``spider.parse`` when it names none) is marked
    with :func:`dont_cetd`.

    A :class:`~scrapy.spiders.CrawlSpider` sends the requests of its rules to one internal
    callback, which hands the response to the rule's own; the mark is read from that rule's
    callback (the rule's index is in ``meta["rule"]``, where the spider puts it)."""
    callback: Any = request.callback
    if callback is None:
        callback = getattr(spider, "parse", None)
    if (
        isinstance(spider, CrawlSpider)
        and getattr(callback, "__func__", None) is CrawlSpider._callback
    ):
        rule = request.meta.get("rule")
        if isinstance(rule, int) and 0 <= rule < len(spider._rules):
            callback = spider._rules[rule].callback
    return bool(getattr(getattr(callback, "__func__", callback), _DONT_CETD_ATTRIBUTE, False))


def decline_reason(
    response: Response,
    *,
    max_body_size: int | None = None,
    request: Request | None = None,
    spider: Spider | None = None,
) -> str | None:
    """Why scrapy-cetd leaves ``response`` alone, or ``None`` when it is eligible.

    The reasons, which are also the suffixes of the ``cetd/*_skipped_count/`` stats:
    ``"dont_cetd"`` (the request's ``meta`` has a true ``dont_cetd``, or, when the crawl's
    ``spider`` is given, the request's callback is marked with :func:`dont_cetd`),
    ``"not_html"`` (Scrapy did not make it an :class:`~scrapy.http.HtmlResponse`: images,
    PDFs, JSON, XML) and ``"too_large"`` (body over ``max_body_size`` bytes, when given).
    ``request`` defaults to ``response.request``. The components pass the spider; a callback
    that asks for the tree (:func:`~scrapy_cetd.get_dom`) does not, since the mark is about
    its items, not about reading its page.
    """
    request = request if request is not None else response.request
    if request is not None and (
        request.meta.get(DONT_CETD_META_KEY) or (spider is not None and _marked(request, spider))
    ):
        return "dont_cetd"
    if not isinstance(response, HtmlResponse):
        return "not_html"
    if max_body_size is not None and len(response.body) > max_body_size:
        return "too_large"
    return None
