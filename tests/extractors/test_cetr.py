"""CETR and CETR-TM (Weninger et al. 2010): the seed's tag ratios, docs §2.7 vectors, the
one-line page, the covering HTML and the guarantees every extractor gives."""

from __future__ import annotations

import html
import random
import time

import lxml.html
import pytest
from conftest import (
    STORM_PAGE,
    deep_chain,
    elements_at,
    html_elements_at,
    parse,
    texts_from_threads,
)
from lxml import etree

from scrapy_cetd import ALGORITHMS, CetrExtractor, CetrThresholdExtractor, Reason, extract
from scrapy_cetd.extractors import cetr
from scrapy_cetd.extractors.cetr import (
    NO_CONTENT_LINES,
    SourceLine,
    _serialize,
    absolute_derivative,
    gaussian_smooth,
    pinned_kmeans,
    split_lines,
)
from scrapy_cetd.page.dom import build_view

SEED_ROWS = (
    '<div id="topnav">\n'
    '<div id="storyPageContent2">\n'
    '<div id="author">James Smith</div>\n'
    "OKLAHOMA CITY - Police were told that\n"
    "The <b>Oklahoman</b> reported Sunday. Jones had\n"
    "</div></div>"
)
TR = [0, 0, 5.5, 37, 20.5, 0]
"""docs §2.7.2 uses the seed's 41 characters on line 5 (I-1)."""

NAV = "".join(f'<li><a href="/s{i}">Section {i}</a></li>' for i in range(12))
PARAGRAPHS = [
    "Heavy rain and strong winds battered the coastal towns on Monday, forcing hundreds of "
    "residents to leave their homes before the worst of the storm arrived in the evening.",
    "Officials said the damage was severe and that repairs to the harbour wall, the main "
    "road and the railway line would take several weeks, perhaps months, to complete.",
    "Schools will stay closed until the roads are cleared, the mayor said at a press "
    "conference, adding that emergency shelters had room for everyone who needed a bed.",
]


def _page(*, one_line: bool) -> str:
    sep = "" if one_line else "\n"
    parts = [
        "<html><head><title>News</title></head><body>",
        f'<div id="nav"><ul>{NAV}</ul></div>',
        '<div id="story">',
        *(f"<p>{text}</p>" for text in PARAGRAPHS),
        "</div>",
        f'<div id="footer"><ul>{NAV}</ul></div>',
        "</body></html>",
    ]
    return sep.join(parts)


def _lines(document: str, *, width: int = 0) -> list[SourceLine]:
    return split_lines(
        document, [-1] * document.count("<"), [False] * document.count("<"), width=width
    )


def test_registered_under_their_names() -> None:
    assert ALGORITHMS["cetr"] is CetrExtractor
    assert ALGORITHMS["cetr-tm"] is CetrThresholdExtractor
    for name in ("cetr", "cetr-tm"):
        assert extract(_page(one_line=False), algorithm=name).algorithm == name


def test_seed_table_tag_ratios() -> None:
    """docs §2.7.1: x, g and TR of the seed's rows (line 5 has 40 visible characters)."""
    lines = _lines(SEED_ROWS)
    assert [(line.chars, line.tags) for line in lines] == [
        (0, 1), (0, 1), (11, 2), (37, 0), (40, 2), (0, 2)
    ]  # fmt: skip
    assert [line.ratio for line in lines] == [0, 0, 5.5, 37, 20, 0]
    assert lines[4].text == "The Oklahoman reported Sunday. Jones had"


def test_tag_spanning_lines_counts_once_and_is_never_text() -> None:
    lines = _lines('<p\nclass="x">Hello &amp; goodbye</p>\n\n<br>')
    assert [(line.chars, line.tags, line.text) for line in lines] == [
        (0, 1, ""),  # the tag starts here
        (15, 1, "Hello & goodbye"),  # its end sits here: not text, not a new tag
        (0, 1, ""),
    ]


def test_the_title_is_not_glued_to_the_body_on_one_line() -> None:
    (line,) = _lines("<title>Page title</title></head><body>First words")
    assert (line.chars, line.text) == (len("Page titleFirst words"), "Page title\nFirst words")


@pytest.mark.parametrize("algorithm", ["cetr", "cetr-tm"])
def test_the_content_of_an_iframe_is_not_text(algorithm: str) -> None:
    """Browsers show an iframe's document, not its content, which the parser keeps as raw
    markup; nor what ``<noembed>`` and ``<noframes>`` hold (a tree built in code may put
    elements and tails in them)."""
    words = "<p>" + "words of the page " * 30 + "</p>"
    page = (
        f"<html><body><p>alpha<iframe><a href='x'>fallback link</a></iframe> beta</p>{words}"
        "<p>gamma<noembed>no embed</noembed> delta<noframes>no frames</noframes></p>"
        "</body></html>"
    )
    tree = lxml.html.document_fromstring(page)
    built = tree.find(".//iframe")
    assert built is not None
    etree.SubElement(built, "b").tail = "built tail"
    for source in (page, tree):
        text = extract(source, algorithm=algorithm).text
        assert "alpha beta" in text  # the lines CETR keeps depend on their tags and text
        assert not {"fallback", "href", "embed", "frames", "built"} & set(text.split())


def test_smoothing_derivative_and_clustering_vectors() -> None:
    """docs §2.7.2 (sigma = 1, r = 3, alpha = 3)."""
    smoothed = gaussian_smooth(TR, 3, 1.0)
    assert smoothed == pytest.approx([0.6591, 3.6326, 12.3118, 21.1516, 18.5149, 9.9844], abs=1e-4)
    gradient = absolute_derivative(smoothed, 3)
    assert gradient == pytest.approx([11.7062, 13.6935, 4.2385, 6.9019, 8.5305, 0.0], abs=1e-4)
    assignment, centroids = pinned_kmeans(list(zip(smoothed, gradient, strict=True)), 3)
    assert assignment == [2, 2, 1, 1, 1, 1]
    assert centroids[0] == (0.0, 0.0)
    assert centroids[1] == pytest.approx((15.4907, 4.9177), abs=1e-4)
    assert centroids[2] == pytest.approx((2.1458, 12.6999), abs=1e-4)
    rows = [SourceLine(int(tr), 1, "", ()) for tr in TR]
    assert CetrExtractor().classify(rows) == [True] * 6
    # CETR-TM: sigma(T') = 7.3426 → lines 3-6 are content
    assert CetrThresholdExtractor().classify(rows) == [False, False, True, True, True, True]


def test_gaussian_kernel_weights() -> None:
    impulse = [0.0] * 13
    impulse[6] = 1.0
    smoothed = gaussian_smooth(impulse, 3, 1.0)
    assert smoothed[3:10] == pytest.approx(
        [0.00443, 0.05401, 0.24204, 0.39905, 0.24204, 0.05401, 0.00443], abs=1e-5
    )
    assert smoothed[:3] == smoothed[10:] == [0.0, 0.0, 0.0]


def test_extreme_smoothing_options_give_a_result() -> None:
    """A sigma whose square is no float (1e-200) weighs each line alone, where it divided by
    zero; a radius of a billion reaches the sequence's ends, where it built a billion weights."""
    values = [0.0, 4.0, 1.0, 9.0]
    assert gaussian_smooth(values, 3, 1e-200) == values
    assert gaussian_smooth(values, 10**9, 1.0) == gaussian_smooth(values, 3, 1.0)
    assert gaussian_smooth([], 10**9, 1.0) == []
    with pytest.raises(ValueError, match="smoothing_sigma must be a finite number > 0"):
        CetrExtractor(smoothing_sigma=float("nan"))


def test_fewer_lines_than_clusters() -> None:
    assert CetrExtractor().classify([SourceLine(5, 1, "x", ())]) == [True]
    assert CetrExtractor().classify([SourceLine(0, 1, "", ())]) == [False]


@pytest.mark.parametrize("cls", [CetrExtractor, CetrThresholdExtractor])
def test_page_with_all_code_on_one_line(cls: type[CetrExtractor]) -> None:
    """Seed FAQ: a page on one line is cut after 60 (or so) characters, never inside a tag;
    it then gives the same content as the same page written over many lines."""
    page = parse(_page(one_line=True))
    extractor = cls()
    lines = extractor.source_lines(page, extractor_view(page))
    assert len(lines) > 20
    assert all(line.text.count("<") == 0 for line in lines)
    result = extractor.extract(page)
    assert " ".join(PARAGRAPHS[:2]) in " ".join(result.text.split())
    assert result.text.count("Section") < 12  # most of the 24 menu lines are noise
    literal = cls(reflow_all_lines=False).extract(page)  # one line: the seed rule applies too
    assert literal.text == result.text


def extractor_view(tree: etree._Element):  # type: ignore[no-untyped-def]
    body = tree.find("body")
    assert body is not None
    return build_view(body)


def test_reflow_cuts_at_space_or_after_a_tag_end() -> None:
    lines = _lines('<div class="a-very-long-class-name">one two three four</div>', width=10)
    assert [line.text for line in lines] == ["", "one two three", "four"]
    assert [line.tags for line in lines] == [1, 0, 1]
    assert len(_lines("word " * 40, width=0)) == 1
    literal = CetrExtractor(reflow_all_lines=False)
    page = parse(_page(one_line=False))
    view = extractor_view(page)
    assert len(literal.source_lines(page, view)) < len(CetrExtractor().source_lines(page, view))


@pytest.mark.parametrize("algorithm", ["cetr", "cetr-tm"])
def test_html_is_the_smallest_set_of_elements_covering_the_content(algorithm: str) -> None:
    result = extract(_page(one_line=False), algorithm=algorithm)
    # (CETR-TM drops the short last piece "a bed." of the reflowed last paragraph)
    assert " ".join(PARAGRAPHS[:2]) in " ".join(result.text.split())
    kept = lxml.html.document_fromstring(result.html)
    assert [p.text_content() for p in html_elements_at(kept, "//div[@id='story']/p")] == PARAGRAPHS
    # menu items on noise lines are dropped with their links; kept ones are whole <li>s
    kept_items = html_elements_at(kept, "//div[@id='nav']//li")
    assert len(kept_items) < 12
    assert all(li.text_content().startswith("Section ") for li in kept_items)
    assert elements_at(kept, "//div[@id='story']")[0].text is None  # a shell


def test_head_lines_are_part_of_the_histogram() -> None:
    page = parse(_page(one_line=False))
    lines = CetrExtractor().source_lines(page, extractor_view(page))
    assert lines[0].text == "News"  # the <title>, S-15


def test_invisible_nodes_are_removed_before_serialising() -> None:
    page = parse(
        _page(one_line=False).replace(
            '<div id="story">',
            '<div id="story"><script>var s = "a long script string that is not text";</script>'
            "<!-- a comment that is long enough to count as text otherwise -->"
            '<p style="display:none">Hidden disclaimer that is long enough to be content.</p>',
        )
    )
    text = CetrExtractor().extract(page).text
    assert "script" not in text and "comment" not in text and "Hidden" not in text
    assert "Hidden" in CetrExtractor(remove_hidden=False).extract(page).text


def test_options_and_validation() -> None:
    assert CetrExtractor().options() == {
        "clusters": 3,
        "derivative_window": 3,
        "smoothing_radius": 3,
        "smoothing_sigma": 1.0,
        "reflow_width": 60,
        "reflow_all_lines": True,
        "remove_hidden": True,
    }
    assert CetrThresholdExtractor().options()["threshold_coefficient"] == 1.0
    with pytest.raises(ValueError, match="clusters"):
        CetrExtractor(clusters=1)
    with pytest.raises(ValueError, match="threshold_coefficient"):
        CetrThresholdExtractor(threshold_coefficient=-1)


def test_empty_results_have_reasons() -> None:
    no_text = CetrExtractor().extract(parse("<body><div><img src='a.png'></div></body>"))
    assert (no_text.text, no_text.html, no_text.reason) == ("", "", "no visible text")
    frameset = CetrExtractor().extract(
        lxml.html.document_fromstring("<html><frameset><frame src='a.html'></frameset></html>")
    )
    assert frameset.reason == "frameset page"
    all_noise = CetrThresholdExtractor(threshold_coefficient=1000).extract(
        parse(_page(one_line=False))
    )
    assert all_noise.reason == NO_CONTENT_LINES.sentence
    assert all_noise.reason_code is Reason.NO_CONTENT


def test_input_tree_is_unchanged() -> None:
    page = parse(_page(one_line=True).replace("<p>", "<p><!-- c --><script>x</script>", 1))
    before = etree.tostring(page)
    CetrExtractor().extract(page)
    CetrThresholdExtractor().extract(page)
    assert etree.tostring(page) == before


def test_deep_nesting_completes() -> None:
    root, chain = deep_chain(10_000)
    for element in chain[1:]:
        element.tail = "\n"
    chain[-1].text = "deep content at the bottom " * 5
    for cls in (CetrExtractor, CetrThresholdExtractor):
        result = cls().extract(root)
        assert "deep content at the bottom" in result.text


def test_many_threads_share_one_extractor() -> None:
    extractor = CetrExtractor()
    pages = [parse(_page(one_line=False).replace("Heavy", f"Heavy{i}")) for i in range(8)]
    results = texts_from_threads(extractor, pages, rounds=10)
    for i in range(8):
        assert f"Heavy{i} rain" in results[i]


def test_storm_page_runs(storm_page: etree._Element) -> None:
    assert "Storm hits the coast" in CetrExtractor().extract(storm_page).text
    assert STORM_PAGE


def test_serialising_drops_invisible_nodes_and_keeps_the_text_between_them() -> None:
    page = (
        "<html><body><p>a<!--x-->b<script>s</script>c<b>d</b>e<!--y-->f<!--z--></p>"
        "<p><!--q-->g<style>t</style></p></body></html>"
    )
    body = lxml.html.document_fromstring(page).find("body")
    assert body is not None
    document = _serialize(body, build_view(body), remove_hidden=True)[0]
    assert document == "<body><p>abc<b>d</b>ef</p><p>g</p></body>"


def test_a_comment_between_every_word_serialises_in_linear_time() -> None:
    """Each removed comment used to glue its tail onto the growing text before it."""

    def cpu_seconds(words: int) -> float:
        page = "<html><body><div>" + "<!-- c -->w " * words + "</div></body></html>"
        body = lxml.html.document_fromstring(page).find("body")
        assert body is not None
        view = build_view(body)
        times = []
        for _ in range(3):
            start = time.process_time()
            _serialize(body, view, remove_hidden=True)
            times.append(time.process_time() - start)
        return min(times)

    assert cpu_seconds(20_000) / cpu_seconds(2_000) < 30


@pytest.mark.parametrize("cls", [CetrExtractor, CetrThresholdExtractor])
def test_long_steps_check_the_time_budget(
    cls: type[CetrExtractor], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The serialisation, the line split (every few thousand tokens) and every k-means round
    check the time budget, so a large page stops close to it."""
    steps: list[str] = []
    monkeypatch.setattr(cetr, "check_deadline", steps.append)
    page = "<html><body>" + "<p>word <b>bold</b> word</p>\n" * 3_000 + "</body></html>"
    cls().extract(parse(page))
    assert "serialising the page" in steps
    assert steps.count("splitting the lines") >= 3  # 12,000 tokens
    assert "after classifying the lines" in steps
    if cls is CetrExtractor:
        assert "clustering the lines" in steps


def test_unescape_in_pieces_decodes_as_the_whole(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(cetr, "_UNESCAPE_CHUNK", 16)
    rng = random.Random(24)
    alphabet = ["&", "amp", ";", "#", "x", "4e2d", "0", "65", "a", " ", "lt", "foo", "&#", "&#x"]
    texts = ["&#" + "0" * 100 + "65;x", "a" * 100 + "&amp;", "&lt;" * 40]
    texts += ["".join(rng.choices(alphabet, k=rng.randint(0, 60))) for _ in range(5_000)]
    for text in texts:
        assert cetr.unescape(text) == html.unescape(text), text
