"""The type of a page: the shipped model's answer for its features."""

from __future__ import annotations

from lxml import etree

from scrapy_cetd.page.density import NodeCounts
from scrapy_cetd.page.dom import DomView
from scrapy_cetd.page.markup import PageMarkup
from scrapy_cetd.page.page_types.features import page_features, view_features
from scrapy_cetd.page.page_types.labels import PageType
from scrapy_cetd.page.page_types.model import default_model


def classify_tree(tree: etree._Element, url: str | None = None) -> PageType:
    """The type of the document holding the parsed ``tree`` (left unchanged)."""
    return default_model().predict(page_features(tree, url))


def classify_view(
    tree: etree._Element,
    view: DomView | None,
    counts: NodeCounts | None,
    markup: PageMarkup,
    url: str | None = None,
) -> PageType:
    """The type of the document holding ``tree``, from what an extractor has read already
    (see :func:`view_features`): the same answer as :func:`classify_tree`."""
    return default_model().predict(view_features(tree, view, counts, markup, url))
