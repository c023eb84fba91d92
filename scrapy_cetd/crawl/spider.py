"""What a spider calls: the page's parsed tree and its TPS-pruned selector.

Both work on the tree Scrapy already parsed for ``response.css()``, so a spider that uses
them, and the pipeline that extracts the main content, share a single parse.
"""

from __future__ import annotations

import logging
from typing import Any

from lxml import etree
from scrapy import Selector
from scrapy.http import HtmlResponse, Response

from scrapy_cetd.crawl.eligibility import decline_reason
from scrapy_cetd.guard import markup_problem
from scrapy_cetd.page.parse import selector_root
from scrapy_cetd.tps import (
    TagPathRegion,
    TpsOptions,
    prune_tag_paths_region,
    tps_options,
    unsearched_region,
)

logger = logging.getLogger(__name__)


def get_dom(response: Response, *, max_body_size: int | None = None) -> etree._Element | None:
    """The parsed document of ``response``: the very tree behind ``response.css()``.

    It is parsel's root element, parsed once and cached on ``response.selector`` by Scrapy, so
    calling this before or after the spider reads the page costs no second parse. What it adds
    to ``response.selector.root``:

    - ``None``, not a tree, for a response scrapy-cetd leaves alone
      (:func:`~scrapy_cetd.crawl.eligibility.decline_reason`): a response that is not an
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
    response: Response, options: TpsOptions | None = None, **overrides: Any
) -> Selector:
    """A :class:`scrapy.Selector` over the TPS-pruned copy of ``response``'s page.

    The tree is the one behind ``response.css()`` (:func:`~scrapy_cetd.crawl.spider.get_dom`,
    no second parse); it is copied and pruned by :func:`~scrapy_cetd.tps.prune_tag_paths`, so
    ``response`` itself is unchanged::

        for product in tps_selector(response).css("li"):
            ...

    ``options`` is a :class:`~scrapy_cetd.tps.TpsOptions` (its defaults when ``None``: the
    configuration measured best on real list pages); keyword ``overrides`` change some options
    for this call, so ``tps_selector(response, min_size_gap=0.3)`` and
    ``tps_selector(response, TpsOptions.paper())`` both work. A spider that prunes every page
    the same way builds its :class:`~scrapy_cetd.tps.TpsOptions` once (it is checked then).

    A page TPS refuses is not pruned: the selector is ``response``'s own, unpruned, so the
    callback still sees every record, and a warning names the reason;
    :func:`tps_selector_region` also returns it. Refused are a page whose text has a tag with
    more than ``max_attributes`` attributes (the check :func:`scrapy_cetd.extract` makes
    before it parses, :mod:`scrapy_cetd.guard`: TPS neither copies nor prunes such a page; the
    parse is then Scrapy's, the one ``response.css()`` makes), and a page over ``max_nodes``
    or ``time_budget``. Each call prunes again: keep the selector in a variable rather than
    calling this twice. Raises :class:`TypeError` for a response that is not HTML and
    :class:`ValueError` for an unknown option or a bad value; a page never makes it raise.
    """
    return tps_selector_region(response, options, **overrides)[0]


def tps_selector_region(
    response: Response, options: TpsOptions | None = None, **overrides: Any
) -> tuple[Selector, TagPathRegion]:
    """:func:`tps_selector` and the :class:`~scrapy_cetd.tps.TagPathRegion` it pruned to.

    When TPS refuses the page, the selector is ``response.selector`` (unpruned) and the
    region's :attr:`~scrapy_cetd.tps.TagPathRegion.reason` says why, starting with the name
    of the limit (``"max_attributes exceeded: ..."``, ``"max_nodes exceeded: ..."``,
    ``"time_budget exceeded: ..."``); it is ``None`` when the page was pruned.
    """
    chosen = tps_options(options, overrides)
    if not isinstance(response, HtmlResponse):
        raise TypeError(f"tps_selector needs an HTML response, not {type(response).__name__}")
    refused = markup_problem(response.text, max_attributes=chosen.max_attributes)
    if refused is not None:
        logger.warning("scrapy-cetd: TPS left %s unpruned: %s", response.url, refused)
        return _unpruned(response), unsearched_region(refused, chosen)
    tree = get_dom(response)
    if tree is None:  # dont_cetd stops the pipeline only
        tree = selector_root(response)
    pruned, region = prune_tag_paths_region(tree, chosen)
    if region.reason is not None:
        logger.warning("scrapy-cetd: TPS left %s unpruned: %s", response.url, region.reason)
    return Selector(root=pruned, type="html", base_url=response.url), region


def _unpruned(response: HtmlResponse) -> Selector:
    """``response``'s own selector, or, when Scrapy cannot build it (a ``<base href>`` that
    w3lib rejects), one over the same tree (:func:`~scrapy_cetd.page.parse.selector_root`)."""
    try:
        return response.selector
    except ValueError:
        return Selector(root=selector_root(response), type="html", base_url=response.url)
