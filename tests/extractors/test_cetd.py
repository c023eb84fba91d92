"""The three CETD extractors: paper examples, thresholds, ties, guarantees."""

from __future__ import annotations

import lxml.html
import pytest
from conftest import EXAMPLE_1, STORM_PAGE, deep_chain, parse, texts_from_threads
from lxml import etree

from scrapy_cetd import (
    CompositeTextDensityExtractor,
    SmoothedCompositeTextDensityExtractor,
    TextDensityExtractor,
    extract,
)
from scrapy_cetd.extractors import cetd
from scrapy_cetd.extractors.cetd import _subtree_argmax, smooth_over_siblings
from scrapy_cetd.page.density import count_nodes, densities
from scrapy_cetd.page.dom import build_view

STORM_TEXT = [
    "Storm hits the coast",
    "Heavy rain and strong winds battered the coastal towns on Monday, forcing hundreds of "
    "residents to leave their homes.",
    "Officials said the damage was severe, according to local reports.",
    "Copyright 2011 Example News. All rights reserved.",
]


@pytest.mark.parametrize("algorithm", ["cetd-ds", "cectd-ds"])
def test_example_1_keeps_headline_and_body_with_link(algorithm: str) -> None:
    result = extract(parse(EXAMPLE_1), algorithm=algorithm)
    assert result.text.splitlines() == [
        "South Korea to Hold Artillery Drills on Island",
        "The announcement came as Bill Richardson",
    ]
    assert result.reason is None
    assert result.algorithm == algorithm


@pytest.mark.parametrize("algorithm", ["cetd-ds", "cectd-ds"])
def test_derived_page_keeps_content_and_footer_drops_nav(algorithm: str) -> None:
    result = extract(parse(STORM_PAGE), algorithm=algorithm)
    assert result.text.splitlines() == STORM_TEXT
    tree = lxml.html.document_fromstring(result.html)
    assert tree.xpath("//div[@id='nav']") == []
    assert tree.xpath("//div[@id='content']/p/a/@href") == ["/x"]


def test_cectd_s_smoothed_values_and_lost_inline_link(storm_page: etree._Element) -> None:
    body = storm_page.find("body")
    assert body is not None
    view = build_view(body)
    smoothed = smooth_over_siblings(view, densities(count_nodes(view), composite=True))
    expected = {"nav": 53.5454, "content": 141.2932, "footer": 216.1457}
    for i, element in enumerate(view.elements):
        key = element.get("id")
        if key in expected:
            assert smoothed[i] == pytest.approx(expected[key], abs=1e-4)
    h1 = view.tags.index("h1")
    assert smoothed[h1] == pytest.approx(252.2247, abs=1e-4)
    result = SmoothedCompositeTextDensityExtractor().extract(storm_page)
    assert result.text.splitlines() == [
        STORM_TEXT[0],
        STORM_TEXT[1],
        "Officials said the damage was severe, according to .",
        STORM_TEXT[3],
    ]


def test_threshold_coefficient_zero_keeps_whole_body(storm_page: etree._Element) -> None:
    for cls in (TextDensityExtractor, CompositeTextDensityExtractor):
        result = cls(threshold_coefficient=0).extract(storm_page)
        assert result.text.splitlines()[:3] == ["Home", "World", "Sports"]
    smoothed = SmoothedCompositeTextDensityExtractor(threshold_coefficient=0).extract(storm_page)
    assert "Home" in smoothed.text


def test_threshold_never_exceeds_the_body_density(storm_page: etree._Element) -> None:
    # t = min(λ·t0, D(body)) (S-15): a huge λ behaves like λ = 1 on this page.
    high = CompositeTextDensityExtractor(threshold_coefficient=100).extract(storm_page)
    assert high == CompositeTextDensityExtractor().extract(storm_page)


def test_lower_threshold_admits_more_blocks() -> None:
    page = parse(
        "<body><div id='nav'><ul><li><a>Home</a></li><li><a>World</a></li><li><a>Sport</a></li>"
        "</ul>plain words</div>"
        "<div id='text'><p>A long paragraph of article text, written to be the main content "
        "of this page, with enough characters to dominate.</p><p>And a second paragraph that "
        "goes on about the same subject for a while.</p></div></body>"
    )
    strict = CompositeTextDensityExtractor().extract(page)
    loose = CompositeTextDensityExtractor(threshold_coefficient=0.01).extract(page)
    assert "plain words" not in strict.text
    assert "plain words" in loose.text


def test_negative_threshold_is_rejected() -> None:
    with pytest.raises(ValueError, match="threshold_coefficient"):
        CompositeTextDensityExtractor(threshold_coefficient=-1)


def test_ties_go_to_the_first_node_in_document_order() -> None:
    # parent pointers of a preorder numbering: 0 -> (1 -> 2), 3
    parent = [-1, 0, 1, 0]
    assert _subtree_argmax(parent, [1.0, 5.0, 5.0, 5.0]) == [1, 1, 2, 3]
    assert _subtree_argmax(parent, [9.0, 5.0, 7.0, 7.0]) == [0, 2, 2, 3]


def test_page_without_text_is_an_empty_result_with_reason() -> None:
    for cls in (
        TextDensityExtractor,
        CompositeTextDensityExtractor,
        SmoothedCompositeTextDensityExtractor,
    ):
        result = cls().extract(
            parse("<body><div><img src='x.png'></div><script>var a = 'text';</script></body>")
        )
        assert result.text == result.html == ""
        assert result.reason == "no visible text"
        assert not result


def test_frameset_page_is_empty() -> None:
    tree = lxml.html.document_fromstring("<html><frameset><frame src='a.html'></frameset></html>")
    result = CompositeTextDensityExtractor().extract(tree)
    assert result.reason == "frameset page"


def test_hidden_elements_are_removed_unless_disabled() -> None:
    page = parse(
        "<body><div><p>Visible article text that is long enough to be content.</p>"
        "<p style='display: none'>Hidden disclaimer text that is long enough to be content.</p>"
        "</div></body>"
    )
    assert "Hidden" not in CompositeTextDensityExtractor().extract(page).text
    assert "Hidden" in CompositeTextDensityExtractor(remove_hidden=False).extract(page).text


def test_a_closed_dialog_is_hidden_and_an_open_one_is_not() -> None:
    """Browsers show a ``<dialog>`` only once it is opened (``open``)."""
    article = "<p>Visible article text that is long enough to be content.</p>"
    dialog = "<dialog{}><p>Newsletter sign-up text that is long enough to be content.</p></dialog>"
    closed = parse(f"<body><div>{article}{dialog.format('')}</div></body>")
    opened = parse(f"<body><div>{article}{dialog.format(' open')}</div></body>")
    assert "Newsletter" not in CompositeTextDensityExtractor().extract(closed).text
    assert "Newsletter" in CompositeTextDensityExtractor(remove_hidden=False).extract(closed).text
    assert "Newsletter" in CompositeTextDensityExtractor().extract(opened).text


def test_input_tree_is_unchanged(storm_page: etree._Element) -> None:
    before = etree.tostring(storm_page)
    for cls in (
        TextDensityExtractor,
        CompositeTextDensityExtractor,
        SmoothedCompositeTextDensityExtractor,
    ):
        cls().extract(storm_page)
        cls(threshold_coefficient=0).extract(storm_page)
    assert etree.tostring(storm_page) == before


def test_deep_nesting_completes() -> None:
    root, chain = deep_chain(100_000)
    chain[-1].text = "deep content at the bottom"
    for cls in (
        TextDensityExtractor,
        CompositeTextDensityExtractor,
        SmoothedCompositeTextDensityExtractor,
    ):
        result = cls().extract(root)
        assert result.text == "deep content at the bottom"


def test_many_threads_share_one_extractor() -> None:
    extractor = CompositeTextDensityExtractor()
    pages = [parse(STORM_PAGE.replace("Storm", f"Storm {i}")) for i in range(8)]
    results = texts_from_threads(extractor, pages, rounds=20)
    for i in range(8):
        assert results[i].startswith(f"Storm {i} hits the coast")


@pytest.mark.parametrize("cls", [TextDensityExtractor, CompositeTextDensityExtractor])
def test_steps_check_the_time_budget(
    cls: type[TextDensityExtractor], monkeypatch: pytest.MonkeyPatch
) -> None:
    steps: list[str] = []
    monkeypatch.setattr(cetd, "check_deadline", steps.append)
    cls().extract(parse(STORM_PAGE))
    assert steps == ["after counting the nodes", "after scoring the nodes"]


def test_smoothed_extractor_checks_the_time_budget(monkeypatch: pytest.MonkeyPatch) -> None:
    steps: list[str] = []
    monkeypatch.setattr(cetd, "check_deadline", steps.append)
    SmoothedCompositeTextDensityExtractor().extract(parse(STORM_PAGE))
    assert steps == ["after counting the nodes"]
