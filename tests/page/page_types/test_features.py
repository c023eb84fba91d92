"""The page-type features on hand-made pages of each type, of a page without body or URL, and
their cost: iterative at any depth, linear in the page."""

from __future__ import annotations

import math
from collections.abc import Callable

import pytest
from lxml import html
from pagetypekit import DOCS, FORUM, HAND_MADE, LISTING, PRODUCT, page
from ratios import TENFOLD, growth

from scrapy_cetd import PAGE_TYPES, classify_page_type
from scrapy_cetd.page.page_types import PageType
from scrapy_cetd.page.page_types.features import FEATURES, page_features
from scrapy_cetd.page.page_types.model import (
    default_model,
)


def features_of(source: str, url: str | None = None) -> dict[str, float]:
    return page_features(html.fromstring(source), url)


def test_forum_features() -> None:
    features = features_of(FORUM)
    assert features["records"] == pytest.approx(math.log1p(5))
    assert features["records_with_time"] == 1.0
    assert features["records_with_media"] == 1.0
    assert features["times"] == pytest.approx(math.log1p(5))
    assert features["textareas"] > 0
    assert features["prices"] == 0


def test_product_features() -> None:
    features = features_of(PRODUCT, HAND_MADE["product"][1])
    assert features["prices"] == pytest.approx(math.log1p(1))
    assert features["number_inputs"] == pytest.approx(math.log1p(1))
    assert features["selects"] > 0
    assert features["forms"] > 0
    assert features["type:product"] == features["type:offer"] == 1.0
    assert features["folder:products"] == features["host:shop"] == 1.0
    assert features["slug:trail"] == features["slug:<num>"] == 1.0


def test_documentation_features() -> None:
    features = features_of(DOCS, HAND_MADE["documentation"][1])
    assert features["pre"] == pytest.approx(math.log1p(6))
    assert features["code_share"] > 0.2
    assert features["nested_lists"] == pytest.approx(math.log1p(5))
    assert features["link_list_share"] > 0.1
    assert features["folder:docs"] == features["folder:reference"] == 1.0
    assert features["last:configuration"] == 1.0


def test_records_with_a_price() -> None:
    cards = "".join(
        f"<li class='product-card'><a href='/p/{k}'>Shoe model {k}</a><span>€{k}9.90</span></li>"
        for k in range(6)
    )
    shop = page("Running shoes", f"<main><ul class='grid'>{cards}</ul></main>")
    features = features_of(shop)
    assert features["records"] == pytest.approx(math.log1p(6))
    assert features["records_with_price"] == 1.0
    assert features_of(LISTING)["records_with_price"] == 0.0


def test_listing_features() -> None:
    features = features_of(LISTING)
    assert features["records"] == pytest.approx(math.log1p(12))
    for part in ("link", "media", "time", "heading", "paragraph"):
        assert features[f"records_with_{part}"] == 1.0
    assert features["rel:next"] == 1.0
    assert features["record_share"] > 0.7


def test_link_features() -> None:
    """Cards that link their picture and their headline to the same page: long linked
    headings, linked pictures, shared targets; an article's only links are its menu's."""
    cards = "".join(
        f"<div class='card'><a href='/stories/{k}'><img src='/i/{k}.jpg' alt=''></a>"
        f"<h3><a href='/stories/{k}'>A headline long enough to name story number {k}</a></h3>"
        "<p>Its summary.</p></div>"
        for k in range(4)
    )
    features = features_of(page("Stories", f"<main><h2>Latest</h2>{cards}</main>"))
    assert features["linked_headings"] == pytest.approx(math.log1p(4))
    assert features["linked_heading_share"] == pytest.approx(4 / 5)  # the h2 is not a link
    assert features["linked_media_share"] == 1.0
    assert features["shared_targets"] == pytest.approx(math.log1p(4))
    assert features["shared_target_share"] == pytest.approx(8 / 14)  # and the menu's six
    assert features["long_link_share"] > 0.5
    assert features["h2"] == pytest.approx(math.log1p(1))
    assert features["h3"] == pytest.approx(math.log1p(4))
    story = "<h2>The second part</h2><p>A paragraph of the story, in full sentences.</p>"
    article = features_of(page("Story", f"<main><article><h1>Story</h1>{story}</article></main>"))
    assert article["linked_headings"] == article["shared_targets"] == 0.0
    assert article["long_link_share"] == 0.0


def test_an_article_has_no_records_of_paragraphs() -> None:
    body = "".join(
        f"<p>Paragraph {k} of a long story, told in full sentences.</p>" for k in range(9)
    )
    features = features_of(page("Story", f"<main><article><h1>Story</h1>{body}</article></main>"))
    assert features["paragraph_block_share"] > 0.7
    assert features["records_with_paragraph"] == 0.0  # the menu's items hold none


def test_features_of_a_page_without_body_or_url() -> None:
    features = page_features(html.fromstring("<html><head><title>x</title></head></html>"))
    assert set(FEATURES) <= set(features)
    kind = default_model().predict(features)
    assert isinstance(kind, PageType)
    assert kind.name in PAGE_TYPES


def test_deep_nesting_is_read_iteratively() -> None:
    depth = 2000
    source = "<html><body>" + "<div>" * depth + "deep text" + "</div>" * depth + "</body></html>"
    assert classify_page_type(source).name in PAGE_TYPES


def _records_page(count: int) -> str:
    cards = "".join(
        f"<li class='card'><a href='/p/{k}'>Item {k}</a> <span>${k}.99</span></li>"
        for k in range(count)
    )
    return f"<html><body><ul>{cards}</ul></body></html>"


def test_the_features_grow_linearly() -> None:
    def make(count: int) -> Callable[[], object]:
        tree = html.fromstring(_records_page(count))
        return lambda: page_features(tree)

    assert growth(make, 2_000, 20_000) < TENFOLD  # from 2,000 records: out of the caches
