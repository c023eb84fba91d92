"""What a spider calls: the page's parsed tree and its TPS-pruned selector.

Both work on the tree Scrapy already parsed for ``response.css()``, so a spider that uses
them, and the pipeline that extracts the main content, share a single parse.
"""

from __future__ import annotations

import logging
from typing import cast

from lxml import etree
from scrapy import Selector
from scrapy.http import HtmlResponse, Response

from scrapy_cetd.crawl.middleware import decline_reason
from scrapy_cetd.limits import DEFAULT_MAX_NODES
from scrapy_cetd.page.parse import selector_root
from scrapy_cetd.tps import MIN_SIZE_GAP, Size, prune_tag_paths_region

logger = logging.getLogger(__name__)


def get_dom(response: Response, *, max_body_size: int | None = None) -> etree._Element | None:
    """The parsed document of ``response``: the very tree behind ``response.css()``.

    It is parsel's root element, parsed once and cached on ``response.selector`` by Scrapy, so
    calling this before or after the spider reads the page costs no second parse. What it adds
    to ``response.selector.root``:

    - ``None``, not a tree, for a response scrapy-cetd leaves alone
      (:func:`~scrapy_cetd.crawl.middleware.decline_reason`): a response that is not an
      :class:`~scrapy.http.HtmlResponse` (an XML response's selector is an XML tree, a plain
      ``TextResponse`` gets one too), a request with ``dont_cetd`` in its ``meta``, and, when
      ``max_body_size`` is given, a larger body;
    - a tree where ``response.selector`` raises :class:`ValueError` because w3lib cannot
      resolve the page's ``<base href>`` (a port that is not a number): the same text parsed
      the same way without the base URL, not cached
      (:func:`~scrapy_cetd.page.parse.selector_root`).

    It does not check that the body is a document: a JSON body served as ``text/html`` gives
    a tree here, while the pipeline reports it as not an HTML document. The tree belongs to
    the response: read it, do not modify it, and do not store it in ``meta`` or in an item (it
    is neither small nor picklable).
    """
    if not isinstance(response, HtmlResponse):
        return None
    if decline_reason(response, max_body_size=max_body_size) is not None:
        return None
    return selector_root(response)


def tps_selector(
    response: Response,
    *,
    min_size_gap: float = MIN_SIZE_GAP,
    invert: bool = False,
    remove_hidden: bool = True,
    size: Size = "nodes",
    keep_main_content: bool = False,
    remove_furniture: bool = False,
    remove_widgets: bool = False,
    keep_positions: bool = False,
    max_nodes: int | None = DEFAULT_MAX_NODES,
    time_budget: float | None = None,
) -> Selector:
    """A :class:`scrapy.Selector` over the TPS-pruned copy of ``response``'s page.

    The tree is the one behind ``response.css()`` (:func:`~scrapy_cetd.crawl.spider.get_dom`,
    no second parse); it is copied and pruned by :func:`prune_tag_paths` with the same
    options, so ``response`` itself is unchanged::

        for product in tps_selector(response).css("li"):
            ...

    Each call prunes again: keep the selector in a variable rather than calling this twice.
    Raises :class:`TypeError` for a response that is not HTML. A page over ``max_nodes`` or
    ``time_budget`` gives a selector over the unpruned copy, with a warning in the log that
    names the limit: the callback still sees every record.
    """
    tree = get_dom(response)
    if tree is None:
        if not isinstance(response, HtmlResponse):
            raise TypeError(f"tps_selector needs an HTML response, not {type(response).__name__}")
        tree = cast("etree._Element", response.selector.root)  # dont_cetd stops the pipeline only
    pruned, region = prune_tag_paths_region(
        tree,
        min_size_gap=min_size_gap,
        invert=invert,
        remove_hidden=remove_hidden,
        size=size,
        keep_main_content=keep_main_content,
        remove_furniture=remove_furniture,
        remove_widgets=remove_widgets,
        keep_positions=keep_positions,
        max_nodes=max_nodes,
        time_budget=time_budget,
    )
    if region.reason is not None:
        logger.warning("TPS left %s unpruned: %s", response.url, region.reason)
    return Selector(root=pruned, type="html", base_url=response.url)
