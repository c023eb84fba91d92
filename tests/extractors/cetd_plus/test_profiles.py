"""Extraction by page type: which pages follow a profile, and when."""

from __future__ import annotations

import pytest
from cetdpluskit import DOCUMENTATION, LISTING, PRODUCT, SERVICE, THREAD, prose
from conftest import deep_chain

from scrapy_cetd import CetdPlusExtractor
from scrapy_cetd.extractors.cetd_plus.profiles import PROFILES
from scrapy_cetd.page.page_types import PageType
from scrapy_cetd.page.parse import to_tree


@pytest.mark.parametrize(
    ("page", "page_type"),
    [
        (THREAD, "forum"),
        (LISTING, "listing"),
        (DOCUMENTATION, "documentation"),
        (SERVICE, "service"),
        (PRODUCT, "product"),
    ],
)
def test_a_profile_is_followed_only_above_the_confidence_threshold(
    page: str, page_type: str
) -> None:
    tree = to_tree(page)
    extractor = CetdPlusExtractor()
    today = CetdPlusExtractor(type_profiles=False).extract(tree).text
    unsure = extractor.extract_as(tree, PageType(page_type, 0.49))
    assert unsure.text == today
    assert unsure.page_type == page_type
    assert unsure.page_type_confidence == 0.49
    assert extractor.extract_as(tree, PageType(page_type, 0.5)).text != today
    assert CetdPlusExtractor(type_profiles=False, page_type=page_type).extract(tree).text == today


def test_articles_have_no_profile() -> None:
    assert CetdPlusExtractor().profile_of(PageType("article", 1.0)) is None
    assert CetdPlusExtractor().profile_of(None) is None
    assert set(PROFILES) == {
        *("forum", "listing", "collection", "documentation", "service", "product"),
    }


@pytest.mark.parametrize("page_type", sorted(PROFILES))
def test_profiles_read_deep_pages_without_recursion(page_type: str) -> None:
    root, chain = deep_chain(20_000)
    chain[-1].text = prose("innermost text")
    result = CetdPlusExtractor(page_type=page_type).extract(root)
    assert "innermost text" in result.text
