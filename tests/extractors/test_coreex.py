"""CoreEx (Prasad & Paepcke): the paper's counts, docs §3.6 vectors, subset selection, forms,
title recovery and the guarantees every extractor gives."""

from __future__ import annotations

import lxml.html
import pytest
from conftest import STORM_PAGE, deep_chain, parse, texts_from_threads
from lxml import etree

from scrapy_cetd import ALGORITHMS, CoreExExtractor, extract
from scrapy_cetd.extractors import coreex
from scrapy_cetd.extractors.coreex import NO_CANDIDATE, _subset_rule, count_coreex, subset_scores
from scrapy_cetd.page.dom import build_view
from scrapy_cetd.page.words import count_words

ARTICLE = (
    "<p>Heavy rain and strong winds battered the coastal towns on Monday, forcing hundreds "
    "of residents to leave their homes.</p>"
    "<p>Officials said the damage was severe and that repairs would take several weeks.</p>"
)
MENU = "<ul><li><a href='/a'>Home</a></li><li><a href='/b'>World</a></li></ul>"


def _view(html: str):  # type: ignore[no-untyped-def]
    tree = parse(html)
    body = tree.find("body")
    assert body is not None
    return build_view(body)


def _by_id(view, key: str) -> int:  # type: ignore[no-untyped-def]
    return next(i for i, e in enumerate(view.elements) if e.get("id") == key)


def test_registered_under_its_name() -> None:
    assert ALGORITHMS["coreex"] is CoreExExtractor
    assert extract(STORM_PAGE, algorithm="coreex").algorithm == "coreex"


def test_paper_figure_4_counts_a_link_as_one_word() -> None:
    view = _view("<body><p>A paragraph <a>with a link</a></p></body>")
    counts = count_coreex(view, ignore_forms=True)
    p, a = view.tags.index("p"), view.tags.index("a")
    assert (counts.text[p], counts.links[p]) == (3, 1)
    assert (counts.text[a], counts.links[a]) == (1, 1)
    # basic score (textCnt - linkCnt) / textCnt = 2/3 (§2.1.1)
    assert (counts.text[p] - counts.links[p]) / counts.text[p] == pytest.approx(2 / 3)


def test_derived_page_vector(storm_page: etree._Element) -> None:
    """docs §3.6.2: counts, subset scores, winner div#content, S = {h1, first p}."""
    body = storm_page.find("body")
    assert body is not None
    view = build_view(body)
    counts = count_coreex(view, ignore_forms=True)
    scores = subset_scores(view, counts, _subset_rule(0.9), 0.99)
    content, footer = _by_id(view, "content"), _by_id(view, "footer")
    first_p, second_p = (i for i, tag in enumerate(view.tags) if tag == "p")
    assert (counts.text[0], counts.links[0]) == (43, 4)
    assert (counts.text[content], counts.links[content]) == (33, 1)
    assert (counts.text[second_p], counts.links[second_p]) == (10, 1)
    expected = {
        0: 0.974552,
        content: 0.995349,
        view.tags.index("h1"): 0.990930,
        first_p: 0.994419,
        second_p: 0.992093,
        footer: 0.991628,
    }
    for node, value in expected.items():
        assert scores[node] == pytest.approx(value, abs=1e-6)
    for node in (_by_id(view, "nav"), view.tags.index("ul"), view.tags.index("li")):
        assert scores[node] is None  # links only: no subset text, not a candidate
    result = CoreExExtractor().extract(storm_page)
    assert result.text.splitlines() == [
        "Storm hits the coast",
        "Heavy rain and strong winds battered the coastal towns on Monday, forcing hundreds of "
        "residents to leave their homes.",
    ]
    kept = lxml.html.document_fromstring(result.html).find("body")
    assert kept is not None
    assert [e.tag for e in kept.iter()] == ["body", "div", "h1", "p"]


def test_threshold_is_strict_and_exact() -> None:
    selected = _subset_rule(0.9)
    assert not selected(10, 1)  # 9/10 is not above 0.9 (S-7)
    assert selected(11, 1)
    assert not selected(0, 0)
    assert selected(5, 0)


def test_subset_selection_drops_link_blocks_inside_the_winner() -> None:
    """Paper Fig. 7: text blocks and ads under one div; S keeps the text, not the ads."""
    page = parse(
        f"<body><div id='main'>{ARTICLE}"
        "<div class='ad'><a href='/1'>Buy now</a> <a href='/2'>Cheap flights</a></div>"
        f"<p>The storm is expected to move north by Wednesday, forecasters said.</p></div>"
        f"<div id='side'>{MENU}</div></body>"
    )
    result = CoreExExtractor().extract(page)
    assert "Heavy rain" in result.text
    assert "forecasters said" in result.text
    assert "Buy now" not in result.text
    assert "Home" not in result.text
    kept = lxml.html.fragment_fromstring(result.html)
    assert kept.xpath("//div[@class='ad']") == []
    assert kept.xpath("//div[@id='main']")


def test_weighted_score_prefers_the_larger_node() -> None:
    """§2.1.1/§2.2.1: basic scoring would take one link-free paragraph; the text weight
    tips the choice to the node holding all of them."""
    page = parse(f"<body><div id='story'>{ARTICLE}</div><div>{MENU}</div></body>")
    result = CoreExExtractor().extract(page)
    assert "Heavy rain" in result.text and "repairs" in result.text


def test_ties_go_to_the_node_higher_in_the_tree() -> None:
    page = parse(f"<body><div id='outer'><div id='inner'>{ARTICLE}</div></div></body>")
    view = build_view(page.find("body"))  # type: ignore[arg-type]
    counts = count_coreex(view, ignore_forms=True)
    scores = subset_scores(view, counts, _subset_rule(0.9), 0.99)
    assert scores[_by_id(view, "outer")] == scores[_by_id(view, "inner")] == scores[0]
    result = CoreExExtractor().extract(page)
    # body wins the tie (smallest depth); its subset is the outer div, kept whole
    assert lxml.html.fragment_fromstring(result.html).xpath("//div[@id='outer']/div[@id='inner']")


def test_page_wrapped_in_one_form_is_unwrapped_not_lost() -> None:
    """§6.1: the paper lost every page whose body sits in one <form>; a form is unwrapped."""
    page = parse(
        "<body><form action='/post'><div id='nav'>"
        + MENU
        + "</div><div id='story'>"
        + ARTICLE
        + "</div><select><option>Choose one of the many options offered here</option>"
        "<option>Another long option text that should never count</option></select>"
        "<textarea>Free text typed by a visitor, long enough to look like content</textarea>"
        "</form></body>"
    )
    view = build_view(page.find("body"))  # type: ignore[arg-type]
    counts = count_coreex(view, ignore_forms=True)
    form = view.tags.index("form")
    assert counts.unwrapped[form] and counts.container[form] == 0
    assert counts.text[view.tags.index("select")] == 0  # ignored, not visited
    result = CoreExExtractor().extract(page)
    assert "Heavy rain" in result.text and "repairs" in result.text
    assert "option" not in result.text and "visitor" not in result.text
    assert "Home" not in result.text


def test_form_text_counts_as_text_of_the_enclosing_node() -> None:
    page = parse(
        "<body><div id='story'><form>Heavy rain and strong winds battered the coastal towns "
        "on Monday, forcing hundreds to leave.<input name='q'></form>"
        "<p>Officials said the damage was severe and repairs would take weeks.</p></div>"
        f"<div>{MENU}</div></body>"
    )
    result = CoreExExtractor().extract(page)
    assert result.text.splitlines() == [
        "Heavy rain and strong winds battered the coastal towns on Monday, forcing hundreds "
        "to leave.",
        "Officials said the damage was severe and repairs would take weeks.",
    ]
    assert "<input" not in result.html


def test_forms_are_plain_elements_when_not_ignored() -> None:
    page = parse(
        "<body><div><form><p>Search the archive of all our long news stories here</p>"
        "<select><option>Every option text counts as words without the form rule</option>"
        "</select></form></div></body>"
    )
    assert "option text" not in CoreExExtractor().extract(page).text
    assert "option text" in CoreExExtractor(ignore_forms=False).extract(page).text


def test_title_recovery_takes_the_nearest_previous_heading() -> None:
    """§6.1: the first h1-h6 among the previous siblings of S's parent."""
    page = parse(
        "<body><div><h2>Older heading</h2><h1>Storm hits the coast</h1>"
        "<p>By a staff reporter of the Coastal Daily News weather desk, filed on "
        "<a href='/d'>Monday</a></p>"
        f"<div id='story'>{ARTICLE}</div></div><div>{MENU}</div></body>"
    )
    with_title = CoreExExtractor().extract(page)
    assert with_title.text.splitlines()[0] == "Storm hits the coast"
    assert "Older heading" not in with_title.text and "staff reporter" not in with_title.text
    without = CoreExExtractor(include_title=False).extract(page)
    assert "Storm hits the coast" not in without.text
    assert without.text.splitlines()[0].startswith("Heavy rain")


def test_cjk_text_counts_one_word_per_character() -> None:
    assert count_words("中文新闻 news") == 5
    page = parse(
        "<body><div><a href='/1'>首页</a><a href='/2'>新闻</a></div>"
        "<div><p>暴风雨袭击了沿海城镇数百名居民被迫离开家园。官员表示损失严重。</p></div></body>"
    )
    assert CoreExExtractor().extract(page).text.startswith("暴风雨")


def test_options_and_validation() -> None:
    extractor = CoreExExtractor()
    assert extractor.options() == {
        "weight_ratio": 0.99,
        "threshold": 0.9,
        "ignore_forms": True,
        "include_title": True,
        "remove_hidden": True,
    }
    assert extractor.weight_text == pytest.approx(0.01)
    with pytest.raises(ValueError, match="weight_ratio"):
        CoreExExtractor(weight_ratio=1.5)
    with pytest.raises(ValueError, match="threshold"):
        CoreExExtractor(threshold=-0.1)


def test_empty_results_have_reasons() -> None:
    no_text = CoreExExtractor().extract(parse("<body><div><img src='a.png'></div></body>"))
    assert (no_text.text, no_text.html, no_text.reason) == ("", "", "no visible text")
    links_only = CoreExExtractor().extract(parse(f"<body><div>{MENU}</div></body>"))
    assert links_only.reason == NO_CANDIDATE
    assert not links_only


def test_input_tree_is_unchanged(storm_page: etree._Element) -> None:
    before = etree.tostring(storm_page)
    CoreExExtractor().extract(storm_page)
    CoreExExtractor(ignore_forms=False, include_title=False).extract(storm_page)
    assert etree.tostring(storm_page) == before


def test_deep_nesting_completes() -> None:
    root, chain = deep_chain(10_000)
    chain[-1].text = "deep content at the bottom"
    chain[5_000].append(lxml.html.fragment_fromstring("<form>unwrapped form text</form>"))
    result = CoreExExtractor().extract(root)
    assert result.text.splitlines() == ["deep content at the bottom", "unwrapped form text"]


def test_many_threads_share_one_extractor() -> None:
    extractor = CoreExExtractor()
    pages = [parse(STORM_PAGE.replace("Storm", f"Storm {i}")) for i in range(8)]
    results = texts_from_threads(extractor, pages, rounds=20)
    for i in range(8):
        assert results[i].startswith(f"Storm {i} hits the coast")


def test_steps_check_the_time_budget(monkeypatch: pytest.MonkeyPatch) -> None:
    steps: list[str] = []
    monkeypatch.setattr(coreex, "check_deadline", steps.append)
    CoreExExtractor().extract(parse(STORM_PAGE))
    assert steps == ["after counting the words", "after scoring the subsets"]
