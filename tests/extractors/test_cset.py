"""Alarte & Silva's page-level extractor (cset): docs §4.6 vector, the body-width shortcut,
reduction, selection, the post-process and the guarantees every extractor gives."""

from __future__ import annotations

import time

import lxml.html
import pytest
from conftest import STORM_PAGE, deep_chain, parse, texts_from_threads
from lxml import etree

from scrapy_cetd import ALGORITHMS, CSetExtractor, extract
from scrapy_cetd.extractors import cset
from scrapy_cetd.extractors.cset import (
    MAX_WORD_DISTANCE,
    NO_RATED,
    _SubtreeStats,
    centroid_distances,
    is_wide_page,
    link_groups,
    node_ratios,
    standardize,
)
from scrapy_cetd.page.dom import DomView, build_view

STORM_TEXT = [
    "Storm hits the coast",
    "Heavy rain and strong winds battered the coastal towns on Monday, forcing hundreds of "
    "residents to leave their homes.",
    "Officials said the damage was severe, according to local reports.",
]


def _view(tree: etree._Element):  # type: ignore[no-untyped-def]
    body = tree.find("body")
    assert body is not None
    return build_view(body)


def test_registered_under_its_name() -> None:
    assert ALGORITHMS["cset"] is CSetExtractor
    assert extract(STORM_PAGE, algorithm="cset").algorithm == "cset"


def test_derived_page_vector(storm_page: etree._Element) -> None:
    """docs §4.6: ratios, distances, c-SET {ul, nav, content}, reduction, selection and the
    post-process leave div#content."""
    view = _view(storm_page)
    ratios = node_ratios(view)
    names = [view.elements[i].get("id") or view.tags[i] for i in ratios.rated]
    assert names == ["nav", "ul", "li", "li", "li", "content", "p", "p", "footer"]
    assert ratios.word == [0, 0, 0, 0, 0, 16, 19, 9, 7]
    assert ratios.hyperlink == pytest.approx([1 / 3, 1 / 3, 1, 1, 1, 1, 1, 1, 1])
    assert ratios.children == [0, 1, 0, 0, 0, 1, 0, 1, 0]
    assert ratios.position == pytest.approx([1, 1, 1 / 3, 1 / 3, 1 / 3, 1, 1, 1, 1])
    distances = centroid_distances(ratios)
    expected = [2.2652, 2.5751, 1.8484, 1.8484, 1.8484, 2.2100, 2.1861, 1.7332, 1.1492]
    assert distances == pytest.approx(expected, abs=1e-4)
    assert not is_wide_page(view, ratios.rated)  # D = 3, W = 3

    result = CSetExtractor().extract(storm_page)
    assert result.text.splitlines() == STORM_TEXT
    kept = lxml.html.document_fromstring(result.html)
    assert kept.xpath("//div[@id='nav']") == []
    assert kept.xpath("//div[@id='content']/p/a/@href") == ["/x"]  # links and markup intact


def test_without_post_process_the_candidate_sibling_stays(storm_page: etree._Element) -> None:
    """Reduction drops ul (same text as nav); nav is a c-SET sibling of the best node."""
    result = CSetExtractor(post_process=False).extract(storm_page)
    assert result.text.splitlines() == ["Home", "World", "Sports", *STORM_TEXT]


def test_standardisation_of_a_constant_ratio_is_zero() -> None:
    assert standardize([1.0, 1.0, 1.0]) == [0.0, 0.0, 0.0]
    assert standardize([0.0, 2.0]) == [-1.0, 1.0]  # population SD


def test_wide_page_shortcut_returns_the_whole_body() -> None:
    """§3.1 criterion 3: more rated children of body than rated nodes on any path down."""
    blocks = "".join(
        f"<div><p>Block {i} holds a sentence of its own text.</p></div>" for i in range(4)
    )
    page = parse(f"<body>{blocks}<span>loose span text</span></body>")
    view = _view(page)
    assert is_wide_page(view, node_ratios(view).rated)  # D = 2 < W = 4
    result = CSetExtractor().extract(page)
    assert result.text.splitlines() == [
        *(f"Block {i} holds a sentence of its own text." for i in range(4)),
        "loose span text",
    ]


def test_narrow_page_is_not_shortcut() -> None:
    page = parse("<body><div><div><p>one two</p><p>three</p></div></div><div><p>x</p></div></body>")
    view = _view(page)
    assert not is_wide_page(view, node_ratios(view).rated)


def test_post_process_rule_2_removes_link_groups_inside_the_content() -> None:
    """§3.5: breadcrumbs (same-tag children, each one <a>, no image) leave the content."""
    page = parse(
        "<body><div id='main'>"
        "<ol class='crumbs'><li><a href='/'>Home</a></li> <li><a href='/n'>News</a></li></ol>"
        "<h1>Storm hits the coast</h1>"
        "<p>Heavy rain and strong winds battered the coastal towns on Monday.</p>"
        "<p>Officials said the damage was severe and repairs would take weeks.</p>"
        "<p>Schools will stay closed until the roads are cleared, the mayor said.</p>"
        "<ul class='gallery'><li><a href='/1'><img src='1.jpg'></a></li>"
        "<li><a href='/2'><img src='2.jpg'></a></li></ul>"
        "</div><div><p>Footer</p></div></body>"
    )
    view = _view(page)
    main = next(i for i, e in enumerate(view.elements) if e.get("id") == "main")
    groups = link_groups(view, _SubtreeStats(view), main)
    assert [view.elements[i].get("class") for i in groups] == ["crumbs"]  # gallery has images
    result = CSetExtractor().extract(page)
    assert "Home" not in result.text and "News" not in result.text
    assert "Heavy rain" in result.text
    kept = lxml.html.document_fromstring(result.html)
    assert kept.xpath("//ol") == []
    assert kept.xpath("//img/@src") == ["1.jpg", "2.jpg"]  # media kept
    unprocessed = CSetExtractor(post_process=False).extract(page)
    assert "Home" in unprocessed.text


def test_post_process_rule_1_drops_link_heavy_nodes() -> None:
    """§3.5: textRatio > tr and more than hr links: the node goes (hr = 7 by default)."""
    links = "".join(f"<a href='/{i}'>Section number {i}</a> " for i in range(8))
    page = parse(
        f"<body><div id='a'><div id='links'>Related: {links}</div>"
        "<div id='text'><p>Heavy rain and strong winds battered the coastal towns.</p>"
        "<p>Officials said the damage was severe.</p><p>Roads stay closed.</p></div></div>"
        "</body>"
    )
    view = _view(page)
    stats = _SubtreeStats(view)
    node = next(i for i, e in enumerate(view.elements) if e.get("id") == "links")
    assert CSetExtractor()._too_many_links(view, stats, node)  # 8 links > 7, ratio ≫ 1.5
    assert not CSetExtractor(hr=8)._too_many_links(view, stats, node)
    assert not CSetExtractor(tr=100)._too_many_links(view, stats, node)


def test_options_and_validation() -> None:
    assert CSetExtractor().options() == {
        "c": 3,
        "tr": 1.5,
        "hr": 7,
        "post_process": True,
        "remove_hidden": True,
    }
    with pytest.raises(ValueError, match="c must be"):
        CSetExtractor(c=0)
    with pytest.raises(ValueError, match="tr and hr"):
        CSetExtractor(hr=-1)


def test_larger_c_admits_more_candidates(storm_page: etree._Element) -> None:
    # §4: a bigger c-SET may hold descendants of the content root; here the first <p> has
    # the best textPond (117 characters, 1 element) and brings its candidate sibling.
    result = CSetExtractor(c=9, post_process=False).extract(storm_page)
    assert result.text.splitlines() == STORM_TEXT[1:]


def test_empty_results_have_reasons() -> None:
    no_text = CSetExtractor().extract(parse("<body><div><img src='a.png'></div></body>"))
    assert no_text.reason == "no visible text"
    no_rated = CSetExtractor().extract(parse("<body>Only text <span>in spans</span></body>"))
    assert no_rated.reason == NO_RATED
    assert (no_rated.text, no_rated.html) == ("", "")


def test_input_tree_is_unchanged(storm_page: etree._Element) -> None:
    before = etree.tostring(storm_page)
    CSetExtractor().extract(storm_page)
    CSetExtractor(post_process=False, c=1).extract(storm_page)
    assert etree.tostring(storm_page) == before


def test_deep_nesting_completes() -> None:
    root, chain = deep_chain(10_000)
    chain[-1].text = "deep content at the bottom"
    chain[-2].append(lxml.html.fragment_fromstring("<p>next to it</p>"))
    result = CSetExtractor().extract(root)
    assert "deep content at the bottom" in result.text


def _text_at_every_level(depth: int) -> DomView:
    _root, chain = deep_chain(depth)
    for element in chain[1:]:
        element.text = "word "
    return build_view(chain[0])


def _cpu_seconds(view: DomView) -> float:
    """The fastest of three :func:`node_ratios` runs, in CPU seconds."""
    times = []
    for _ in range(3):
        start = time.process_time()
        node_ratios(view)
        times.append(time.process_time() - start)
    return min(times)


def test_word_ratios_are_linear_in_depth() -> None:
    """Text at every level of a chain: ten times deeper costs about ten times more, not a
    hundred (each text used to add to every ancestor, up to the body)."""
    shallow, deep = _text_at_every_level(300), _text_at_every_level(3_000)
    ratio = _cpu_seconds(deep) / _cpu_seconds(shallow)
    assert ratio < 30, ratio


def test_word_ratios_count_text_up_to_the_distance_limit() -> None:
    """Exact sums of ``words / distance`` up to MAX_WORD_DISTANCE levels down, nothing below."""
    depth = MAX_WORD_DISTANCE + 10
    view = _text_at_every_level(depth)
    ratios = node_ratios(view)
    word = dict(zip(ratios.rated, ratios.word, strict=True))
    top = view.children[0][0]  # the first div below the body: its text is at distance 1
    expected = sum(1 / distance for distance in range(1, MAX_WORD_DISTANCE + 1))
    assert word[top] == pytest.approx(expected)
    bottom_but_one = len(view) - 2
    assert word[bottom_but_one] == pytest.approx(1 + 1 / 2)


def test_many_threads_share_one_extractor() -> None:
    extractor = CSetExtractor()
    pages = [parse(STORM_PAGE.replace("Storm", f"Storm {i}")) for i in range(8)]
    results = texts_from_threads(extractor, pages, rounds=20)
    for i in range(8):
        assert results[i].startswith(f"Storm {i} hits the coast")


def test_long_steps_check_the_time_budget(monkeypatch: pytest.MonkeyPatch) -> None:
    steps: list[str] = []
    monkeypatch.setattr(cset, "check_deadline", steps.append)
    rows = "<div><p>word word</p><p>word</p></div>" * 3_000
    page = f"<html><body><main>{rows}</main></body></html>"
    CSetExtractor().extract(parse(page))
    assert steps.count("rating the nodes") >= 3  # 15,000 elements, every 4,096
    assert "after rating the nodes" in steps
    assert "after measuring the distances" in steps
    assert "after counting the subtrees" in steps
