"""The page type of a page: the classifier's answers on hand-made pages, what it takes (as
``extract()`` takes it, within the same limits), and cetd-plus's type, from its own view or
forced."""

from __future__ import annotations

import pickle

import pytest
from lxml import etree, html
from pagetypekit import HAND_MADE
from parsel import Selector
from scrapy.http import HtmlResponse

from scrapy_cetd import PAGE_TYPES, classify_page_type, extract, get_extractor
from scrapy_cetd.page import dom
from scrapy_cetd.page.dom import DomView
from scrapy_cetd.page.page_types import features as feature_reader


@pytest.mark.parametrize("expected", sorted(HAND_MADE))
def test_the_classifier_tells_the_hand_made_pages(expected: str) -> None:
    source, url = HAND_MADE[expected]
    kind = classify_page_type(source, url=url)
    assert kind.name == expected
    assert 0 < kind.confidence <= 1


def test_classify_accepts_bytes_and_trees_and_leaves_the_tree_alone() -> None:
    source, url = HAND_MADE["forum"]
    tree = html.fromstring(source)
    before = etree.tostring(tree)
    from_tree = classify_page_type(tree, url=url)
    assert etree.tostring(tree) == before
    assert classify_page_type(source.encode(), url=url) == from_tree
    with pytest.raises(ValueError):
        classify_page_type(b"")


def test_classify_takes_what_extract_takes_within_the_same_limits() -> None:
    """A tree, a selector, a response, a memoryview: the same type; a comment, an oversized
    page or a page of too many elements: a ValueError naming the problem (a comment raised
    AttributeError, and no limit was checked)."""
    source, url = HAND_MADE["forum"]
    expected = classify_page_type(source, url=url)
    tree = html.fromstring(source)
    response = HtmlResponse(url, body=source.encode(), encoding="utf-8")
    for page in (etree.ElementTree(tree), Selector(text=source), memoryview(source.encode())):
        assert classify_page_type(page, url=url) == expected
    assert classify_page_type(response) == expected  # its own URL
    with pytest.raises(ValueError, match="_Comment"):
        classify_page_type(etree.Comment("x"))
    with pytest.raises(ValueError, match="max_body_size"):
        classify_page_type(source, max_body_size=100)
    with pytest.raises(ValueError, match=r"max_nodes exceeded: [0-9]+ elements, more than 5"):
        classify_page_type(tree, max_nodes=5)
    with pytest.raises(ValueError, match="time_budget exceeded"):
        classify_page_type(source, time_budget=1e-9)
    with pytest.raises(ValueError, match="max_nodes"):
        classify_page_type(source, max_nodes=-1)


def test_cetd_plus_gives_the_type_by_default_and_other_algorithms_none() -> None:
    source, url = HAND_MADE["product"]
    result = extract(source, url=url)  # on by default
    assert result.page_type == "product"
    assert result.page_type_confidence == classify_page_type(source, url=url).confidence
    assert pickle.loads(pickle.dumps(result)) == result
    assert extract(source, url=url, detect_page_type=True) == result
    off = extract(source, url=url, detect_page_type=False)
    assert (off.page_type, off.page_type_confidence) == (None, None)
    assert off.text == result.text
    other = extract(source, url=url, algorithm="cetd-ds")
    assert other.page_type is None
    assert other.page_type_confidence is None


def test_cetd_plus_classifies_from_its_own_view_without_building_another(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    built: list[object] = []
    build_view = dom.build_view

    def counting(root: etree._Element, *, remove_hidden: bool = True) -> DomView:
        built.append(root)
        return build_view(root, remove_hidden=remove_hidden)

    monkeypatch.setattr(feature_reader, "build_view", counting)
    source, url = HAND_MADE["forum"]
    assert extract(source, url=url, detect_page_type=True).page_type == "forum"
    assert built == []  # the view, counts and markup of cetd-plus were used
    assert classify_page_type(source, url=url).name == "forum"
    assert len(built) == 1  # on its own, the classifier reads the page itself


def test_a_frameset_page_gets_a_type_from_its_markup_and_url() -> None:
    source = (
        "<html><head><title>Docs</title></head><frameset cols='20%,80%'>"
        "<frame src='toc.html'><frame src='intro.html'></frameset></html>"
    )
    result = extract(source, url="https://example.dev/docs/manual/", detect_page_type=True)
    assert result.text == ""
    assert result.page_type in PAGE_TYPES
    assert result.page_type_confidence is not None
    assert extract(source, page_type="documentation").page_type == "documentation"


def test_the_type_can_be_forced() -> None:
    source, url = HAND_MADE["product"]
    forced = extract(source, url=url, page_type="collection")
    assert (forced.page_type, forced.page_type_confidence) == ("collection", 1.0)
    reported_only = extract(source, url=url, page_type="collection", type_profiles=False)
    assert reported_only.text == extract(source, url=url).text
    extractor = get_extractor("cetd-plus", page_type="forum")
    assert pickle.loads(pickle.dumps(extractor)).page_type == "forum"


def test_a_wrong_forced_type_is_refused() -> None:
    with pytest.raises(ValueError, match=r"page_type must be one of article, forum.* not 'blog'"):
        get_extractor("cetd-plus", page_type="blog")
