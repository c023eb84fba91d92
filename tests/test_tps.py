"""TPS main-region pruning (docs/algorithms.md §5): the paper's examples and the contract."""

from __future__ import annotations

import copy
import pickle
import random
import threading
from pathlib import Path

import lxml.html
import pytest
from conftest import (
    body_of,
    deep_chain,
    elements_at,
    html_of,
    parse,
    string_at,
    strings_at,
    text_parts,
)
from lxml import etree
from scrapy.http import HtmlResponse, Request, TextResponse

import scrapy_cetd
from scrapy_cetd.cli import main
from scrapy_cetd.crawl.spider import tps_selector
from scrapy_cetd.page.dom import build_view
from scrapy_cetd.tps import (
    TpsOptions,
    prune_tag_paths,
    prune_tag_paths_region,
    search_region,
    search_tag_path_region,
    style_signature,
)
from scrapy_cetd.tps.modes import DROP, KEEP, main_content
from scrapy_cetd.tps.trim import trim

PAPER = TpsOptions.paper()
"""The paper's literal algorithm: the tests of its steps use it, the tests of the additions
add one option to it."""

FIGURE_2 = "<body><table><tr><td></td><td></td></tr><tr><td></td><td></td></tr></table></body>"
"""The paper's Figure 2 (vector 5.5.1)."""

THREE_REGIONS = (
    "<body><br>"
    + "<div>"
    + "<span class='region1'></span>" * 4
    + "</div><div>"
    + "<span class='region2'></span>" * 12
    + "</div><div>"
    + "<span class='region3'></span>" * 4
    + "</div><br></body>"
)
"""The paper's §4 example with 4, 12 and 4 spans (vector 5.5.2)."""


def words(tree: etree._Element) -> list[str]:
    return "".join(text_parts(body_of(tree))).split()


def body_html(tree: etree._Element) -> str:
    return html_of(body_of(tree))


# --- vector 5.5.1 ------------------------------------------------------------------------------


def test_figure_2_sequence_and_region() -> None:
    region = search_tag_path_region(parse(FIGURE_2), PAPER)
    assert region.sequence == (1, 2, 3, 4, 4, 3, 4, 4)
    assert region.paths == ("body", "body/table", "body/table/tr", "body/table/tr/td")
    assert (region.start, region.end) == (3, 8)
    assert region.region() == (3, 4, 4, 3, 4, 4)
    assert [(s.start, s.end, s.threshold, s.at) for s in region.splits] == [
        (1, 8, 1, 1),
        (2, 8, 1, 1),
    ]
    assert [(s.kept_start, s.kept_end) for s in region.splits] == [(2, 8), (3, 8)]
    assert region.node_count == 8
    assert region.kept_count == 8  # body and table stay as shells
    assert region.removed_share == 0.0


def test_figure_2_pruned_keeps_both_rows() -> None:
    pruned = prune_tag_paths(parse(FIGURE_2), PAPER)
    assert body_html(pruned) == (
        "<body><table><tr><td></td><td></td></tr><tr><td></td><td></td></tr></table></body>"
    )


def test_figure_2_inverted_keeps_only_the_shells() -> None:
    pruned, region = prune_tag_paths_region(parse(FIGURE_2), PAPER, invert=True)
    assert region.invert
    assert region.kept_count == 2
    assert body_html(pruned) == "<body><table></table></body>"


# --- vector 5.5.2 ------------------------------------------------------------------------------


def test_three_regions_sequence() -> None:
    region = search_tag_path_region(parse(THREE_REGIONS), PAPER)
    assert region.sequence == (1, 2, 3, *[4] * 4, 3, *[5] * 12, 3, *[6] * 4, 2)
    assert region.node_count == 26
    assert region.paths[4] == "body/div/span.region2"


def test_three_regions_needs_frequency_filtering() -> None:
    region = search_tag_path_region(parse(THREE_REGIONS), PAPER)
    trace = [(s.start, s.end, s.threshold, s.at, s.kept_start, s.kept_end) for s in region.splits]
    assert trace == [
        (1, 26, 1, 1, 2, 26),
        (2, 26, 3, 20, 2, 21),  # br (2) and div (3) filtered out: the closing br is cut
        (2, 21, 1, 1, 3, 21),
        (3, 21, 4, 5, 8, 21),  # only codes 4, 5, 6 are read at threshold 4 [P §4]
    ]
    assert (region.start, region.end) == (8, 21)
    # Without filtering (threshold 1 only) the div code spans the whole range: no split there.
    assert all(s.threshold > 1 for s in region.splits if s.at > 1)


def test_three_regions_pruned_to_region_2() -> None:
    pruned = prune_tag_paths(parse(THREE_REGIONS), PAPER)
    spans = '<span class="region2"></span>' * 12
    assert body_html(pruned) == f"<body><div>{spans}</div><div></div></body>"


def test_three_regions_inverted() -> None:
    pruned = prune_tag_paths(parse(THREE_REGIONS), PAPER, invert=True)
    html = body_html(pruned)
    assert "region2" not in html
    assert html.count("region1") == 4
    assert html.count("region3") == 4
    assert html.count("<br>") == 2


def test_as_printed_rule_is_not_used() -> None:
    """The symmetric 20% rule cuts the trailing br (S-6); as printed it never could."""
    region = search_tag_path_region(parse(THREE_REGIONS), PAPER)
    assert region.end == 21 < region.node_count


# --- no split --------------------------------------------------------------------------------


def test_page_without_split_is_not_pruned() -> None:
    html = (
        "<html><body><ul>"
        + "".join(f"<li><a href='/{n}'>Item {n}</a> <b>{n} EUR</b></li>" for n in range(6))
        + "</ul></body></html>"
    )
    tree = parse(html)
    pruned, region = prune_tag_paths_region(tree, PAPER)
    assert region.kept_count == region.node_count
    assert region.removed_share == 0.0
    assert pruned.xpath("//li/a/text()") == tree.xpath("//li/a/text()")
    assert pruned.xpath("string(//ul)") == tree.xpath("string(//ul)")


def test_single_element_body_has_no_split() -> None:
    region = search_tag_path_region(parse("<body>only text</body>"), PAPER)
    assert region.sequence == (1,)
    assert region.splits == ()
    assert (region.start, region.end) == (1, 1)
    assert (
        body_html(prune_tag_paths(parse("<body>only text</body>"), PAPER))
        == "<body>only text</body>"
    )


def test_frameset_page_is_not_pruned() -> None:
    tree = lxml.html.document_fromstring("<html><frameset><frame src='a.html'></frameset></html>")
    region = search_tag_path_region(tree, PAPER)
    assert region.sequence == ()
    assert region.node_count == region.kept_count == 0
    assert region.removed_share == 0.0
    assert region.region() == ()
    assert etree.tostring(prune_tag_paths(tree, PAPER)) == etree.tostring(tree)


def test_inverted_without_split_leaves_an_empty_body() -> None:
    pruned, region = prune_tag_paths_region(parse("<body>x<p>y</p></body>"), PAPER, invert=True)
    assert (region.start, region.end) == (1, 2)
    assert region.kept_count == 0
    assert body_html(pruned) == "<body></body>"


# --- a list page -------------------------------------------------------------------------------

LIST_PAGE = (
    """<html><head><title>Shop</title></head><body>
<div class="nav"><a href="/">Home</a> | <a href="/about">About</a></div>
<h1>Jackets</h1>
<ul class="products">
"""
    + "".join(
        f'<li class="product"><a href="/p/{n}">Jacket {n}</a> <span class="price">{n}0 EUR</span>'
        f"<!-- c --><script>var p={n}</script></li>\n"
        for n in range(8)
    )
    + """</ul>
<div class="footer"><p>Copyright</p><p>Imprint</p></div>
</body></html>"""
)


def test_list_page_keeps_the_records_only() -> None:
    tree = parse(LIST_PAGE)
    pruned, region = prune_tag_paths_region(tree, PAPER)
    assert len(elements_at(pruned, "//li[@class='product']")) == 8
    assert pruned.xpath("//li[@class='product'][3]/a/text()") == ["Jacket 2"]
    assert not pruned.xpath("//div[@class='nav']")
    assert not pruned.xpath("//div[@class='footer']")
    assert not pruned.xpath("//h1")
    assert pruned.findtext("head/title") == "Shop"  # the head is copied as it is
    # Comments and scripts inside the region stay with it (they belong to the records).
    assert len(elements_at(pruned, "//li/script")) == 8
    assert 0.0 < region.removed_share < 1.0
    assert region.kept_count == 2 + 8 * 3  # body and ul shells, 8 records of 3 elements


def test_a_list_after_a_stray_body_end_tag_is_pruned_as_the_extractors_read_it() -> None:
    # libxml2 puts what follows "</body>" beside the body; browsers, and viewed_body, in it.
    tree = parse(LIST_PAGE.replace("<h1>Jackets</h1>", "</body><h1>Jackets</h1>"))
    assert tree.find("body/ul") is None
    before = etree.tostring(tree)
    pruned, region = prune_tag_paths_region(tree, PAPER)
    assert etree.tostring(tree) == before
    assert len(elements_at(pruned, "/html/body/ul/li[@class='product']")) == 8
    assert not pruned.xpath("//div[@class='nav'] | //h1 | //div[@class='footer']")
    assert region.kept_count == 2 + 8 * 3
    guarded = prune_tag_paths(tree, PAPER, keep_main_content=True, remove_furniture=True)
    assert len(elements_at(guarded, "/html/body/ul/li[@class='product']")) == 8


def test_a_document_without_body_is_pruned_in_a_copy_with_one() -> None:
    body = LIST_PAGE[LIST_PAGE.index("<body>") + 6 : LIST_PAGE.index("</body>")]
    tree = etree.fromstring(f"<html><head><title>Shop</title></head>{body}</html>")
    pruned = prune_tag_paths(tree, PAPER)
    assert pruned.findtext("head/title") == "Shop"
    assert len(elements_at(pruned, "/html/body/ul/li[@class='product']")) == 8
    assert not pruned.xpath("//h1")


INTRO = (
    "<p class='intro'>Our winter jackets are made from recycled wool and lined with organic "
    "cotton; every one of them is tested in the mountains before it reaches the shop.</p>"
)


def test_keep_main_content_keeps_the_intro_tps_cuts_off() -> None:
    tree = parse(LIST_PAGE.replace("<h1>Jackets</h1>", f"<h1>Jackets</h1>{INTRO}"))
    assert not prune_tag_paths(tree, PAPER).xpath("//p[@class='intro']")
    pruned = prune_tag_paths(tree, PAPER, keep_main_content=True)
    assert strings_at(pruned, "//p[@class='intro']/text()")[0].startswith("Our winter jackets")
    assert len(elements_at(pruned, "//li[@class='product']")) == 8


def test_guard_main_content_stops_searchregion_cutting_the_intro_off() -> None:
    tree = parse(LIST_PAGE.replace("<h1>Jackets</h1>", f"<h1>Jackets</h1>{INTRO}"))
    intro = 6  # body, div.nav, a, a, h1, p.intro: its preorder position
    plain = search_tag_path_region(tree, PAPER)
    kept = search_tag_path_region(tree, PAPER, keep_main_content=True)
    guarded = search_tag_path_region(tree, PAPER, guard_main_content=True)
    assert not plain.start <= intro <= plain.end
    assert (kept.start, kept.end) == (plain.start, plain.end)  # keeping it does not guard it
    assert guarded.start <= intro <= guarded.end
    pruned = prune_tag_paths(tree, PAPER, guard_main_content=True)
    assert guarded.kept_count == len(elements_at(pruned, "/html/body//*[not(self::script)]")) + 1


def test_the_main_content_kept_is_the_main_block_even_on_a_page_of_content_only() -> None:
    story = "".join(
        f"<p>Paragraph {n} of the story, long enough to read as the text of an article that a "
        "reporter wrote about the flood and the people who had to leave their homes.</p>"
        for n in range(4)
    )
    more = "".join(
        f"<p>Another text below it, number {n}, with a summary that goes on for long enough to "
        "look like the text of an article itself, written by an editor for readers.</p>"
        for n in range(2)
    )
    tree = parse(
        f"<html><body><div><div id='story'>{story}</div><p>By our reporter.</p></div>"
        f"<div>{more}</div></body></html>"
    )
    assert "Another text below it" in scrapy_cetd.extract(tree).text  # the page is all content
    view = build_view(body_of(tree))
    main = main_content(tree, view)
    kept = " ".join(" ".join(text_parts(view.elements[i])) for i in range(len(view)) if main[i])
    assert "Paragraph 3 of the story" in kept
    assert "Another text below it" not in kept


def _posts(numbers: range) -> str:
    return "".join(
        f"<article class='post'><h2>Title {n}</h2><p>Text of post {n}.</p>"
        f"<footer>by author {n}</footer></article>"
        for n in numbers
    )


FURNISHED = (
    "<html><body><div class='list'>"
    + _posts(range(4))
    + "<nav class='topics'><a href='/a'>Topic a</a><a href='/b'>Topic b</a></nav>"
    + _posts(range(4, 8))
    + "</div></body></html>"
)
"""Records with a menu among them, which no split can cut off."""


def test_remove_furniture_drops_menus_but_not_a_records_own_footer() -> None:
    tree = parse(FURNISHED)
    pruned, region = prune_tag_paths_region(tree, PAPER)
    assert len(elements_at(pruned, "//nav")) == 1
    furnished, without = prune_tag_paths_region(tree, PAPER, remove_furniture=True)
    assert not furnished.xpath("//nav")
    assert len(elements_at(furnished, "//article/footer")) == 8
    assert (without.start, without.end) == (region.start, region.end)
    assert without.kept_count == region.kept_count - 3  # the nav and its two links
    assert without.kept_count == len(elements_at(furnished, "/html/body//*")) + 1


WIDGETS = (
    "<html><body><ul class='products'>"
    + "".join(
        f"<li class='product'><img src='/{n}.jpg' alt=''><a href='/p/{n}'>Jacket {n}</a>"
        "<svg class='star'><path d='M0 0'/><path d='M1 1'/></svg>"
        "<button class='wish'><svg><use href='#heart'/></svg></button>"
        f"<input type='checkbox' name='compare'><button>Add jacket {n} to cart</button></li>"
        for n in range(6)
    )
    + "</ul></body></html>"
)
"""Records with an icon, an icon button, a checkbox and a button that says something."""


def test_remove_widgets_drops_icons_and_controls_without_text() -> None:
    tree = parse(WIDGETS)
    pruned, region = prune_tag_paths_region(tree, PAPER)
    bare, without = prune_tag_paths_region(tree, PAPER, remove_widgets=True)
    assert not bare.xpath("//svg | //input | //button[@class='wish']")
    assert len(elements_at(bare, "//img")) == len(elements_at(bare, "//button")) == 6
    assert body_html(bare).count("Add jacket") == 6
    assert (without.start, without.end) == (region.start, region.end)
    assert without.kept_count == region.kept_count - 6 * 7  # svg, 2 paths; button, svg, use; input
    assert words(bare) == words(pruned)
    assert etree.tostring(tree) == etree.tostring(parse(WIDGETS))


def test_remove_buttons_drops_buttons_with_their_text_but_not_accordion_headers() -> None:
    faq = (
        "<div class='faq'><h3><button aria-expanded='false'>Which size fits me?</button></h3>"
        "<div role='button' tabindex='0'><h4>How do I wash it?</h4></div>"
        "<span role='button'>Show more</span></div>"
    )
    tree = parse(WIDGETS.replace("</ul>", f"</ul>{faq}"))
    whole = PAPER.replace(min_size_gap=0.99)  # no split: the whole page is the region
    kept = body_html(prune_tag_paths(tree, whole))
    assert kept.count("Add jacket") == 6
    assert "Show more" in kept and "Which size fits me?" in kept
    pruned, region = prune_tag_paths_region(tree, whole, remove_buttons=True)
    html = body_html(pruned)
    assert "Add jacket" not in html and "Show more" not in html
    assert "Which size fits me?" in html and "How do I wash it?" in html
    assert len(elements_at(pruned, "//li[@class='product']/a")) == 6
    assert region.kept_count == len(elements_at(pruned, "/html/body//*")) + 1


LANDMARK = (
    "<html><body><header><a href='/'>Shop</a><p class='promo'>Free delivery over 50 euros on "
    "every order this week</p></header><div class='crumbs'><a href='/'>Home</a> / "
    "<a href='/men'>Men</a></div><main><h1>Jackets</h1>"
    + "".join(
        f"<div class='card'><a href='/p/{n}'>Jacket {n}</a><p>Warm wool jacket number {n}, "
        "lined with cotton.</p></div>"
        for n in range(6)
    )
    + "</main><div class='signup'><p>Sign up for our letter and hear about new jackets "
    "first</p></div></body></html>"
)
"""A list in ``<main>``, with a header, breadcrumbs and a sign-up box around it."""


def test_main_landmark_share_keeps_only_the_main_landmark() -> None:
    tree = parse(LANDMARK)
    outside = "//header | //div[@class='crumbs'] | //div[@class='signup']"
    whole = prune_tag_paths(tree, PAPER, keep_main_content=True)
    assert whole.xpath(outside)
    pruned, region = prune_tag_paths_region(tree, PAPER, main_landmark_share=0.5)
    assert not pruned.xpath(outside)
    assert len(elements_at(pruned, "/html/body/main/div[@class='card']")) == 6
    assert region.kept_count == len(elements_at(pruned, "/html/body//*")) + 1
    role = LANDMARK.replace("<main>", "<div role='main'>").replace("</main>", "</div>")
    assert not prune_tag_paths(parse(role), PAPER, main_landmark_share=0.5).xpath(outside)
    unchanged = prune_tag_paths(tree, PAPER, main_landmark_share=0.99)  # main holds less
    assert etree.tostring(unchanged) == etree.tostring(prune_tag_paths(tree, PAPER))


SECTIONS = (
    "<html><body><main><section class='promo'><h2>Offers</h2><p>Sale now on</p></section>"
    "<section class='news'>"
    + "".join(f"<article><h3>Story {n}</h3><p>Text of story {n}.</p></article>" for n in range(8))
    + "</section></main></body></html>"
)
"""Records in the second ``<section>``: their positional XPath counts the first."""


def test_keep_positions_keeps_positional_xpaths_valid() -> None:
    tree = parse(SECTIONS)
    records = "/html/body/main/section[2]/article"
    assert len(elements_at(tree, records)) == 8
    pruned = prune_tag_paths(tree, PAPER)
    assert not pruned.xpath("//section[@class='promo']")
    assert not pruned.xpath(records)  # the records' section is now the first
    kept = prune_tag_paths(tree, PAPER, keep_positions=True)
    headlines = [a.findtext("h3") for a in elements_at(kept, records)]
    assert headlines == [f"Story {n}" for n in range(8)]
    placeholder = elements_at(kept, "/html/body/main/section[1]")[0]
    assert (len(placeholder.attrib), len(placeholder), placeholder.text) == (0, 0, None)
    assert "Offers" not in etree.tostring(kept, encoding="unicode")


def test_an_emptied_element_keeps_a_tail_lxml_would_refuse_to_set() -> None:
    # libxml2 keeps some control characters in text that lxml refuses to store again.
    tree = lxml.html.document_fromstring("<body><div><p>menu</p>\x02 tail<p>kept</p></div></body>")
    view = build_view(body_of(tree))
    modes = [DROP if view.tags[i] == "p" and i == 2 else KEEP for i in range(len(view))]
    clone = copy.deepcopy(tree)
    trim(tree, clone, view, modes, keep_positions=True)
    emptied, kept = clone.findall("body/div/p")
    assert (emptied.text, len(emptied), emptied.tail) == (None, 0, "\x02 tail")
    assert kept.text == "kept"


def test_keep_positions_empties_only_what_precedes_a_kept_sibling_of_its_tag() -> None:
    page = SECTIONS.replace("<section class='news'>", "<div class='ad'>Buy</div><section>")
    kept = prune_tag_paths(
        parse(page.replace("</main>", "<p>After</p></main>")), PAPER, keep_positions=True
    )
    main = kept.find("body/main")
    assert main is not None
    assert [child.tag for child in main] == ["section", "section"]  # the div and the p go
    assert len(main[1]) == 8


def test_shells_keep_no_text_and_region_keeps_tails() -> None:
    html = (
        "<body>lead<div class='a'>x</div>tail-of-a<section>s-text"
        + "<p class='r'>one</p>between" * 6
        + "</section>after</body>"
    )
    pruned = prune_tag_paths(parse(html), PAPER)
    body = pruned.find("body")
    assert body is not None
    assert body.text is None  # the body is a shell
    section = body.find("section")
    assert section is not None
    assert section.tail is None
    assert [p.text for p in section] == ["one"] * 6
    assert all(p.tail is None for p in section)  # tails belong to the section, a shell (S-11)
    # The third div is in range but its spans are not: it stays, with the spans' tails (S-12).
    tailed = THREE_REGIONS.replace(
        "<span class='region3'></span>", "<span class='region3'>s</span>t"
    )
    third = elements_at(prune_tag_paths(parse(tailed), PAPER), "//body/div")[1]
    assert len(third) == 0
    assert third.text == "tttt"


def test_input_tree_is_never_modified() -> None:
    for html in (LIST_PAGE, FIGURE_2, THREE_REGIONS):
        tree = parse(html)
        before = etree.tostring(tree)
        prune_tag_paths(tree, PAPER)
        prune_tag_paths(tree, PAPER, invert=True)
        search_tag_path_region(tree, PAPER, size="text")
        assert etree.tostring(tree) == before


def test_pruned_copy_is_independent() -> None:
    tree = parse(LIST_PAGE)
    pruned = prune_tag_paths(tree, PAPER)
    assert pruned is not tree
    pruned.find("body").clear()  # type: ignore[union-attr]
    assert len(elements_at(tree, "//li")) == 8


# --- options ---------------------------------------------------------------------------------


def test_style_signature() -> None:
    a = lxml.html.fragment_fromstring(
        '<div id="x1" class="b  a" style="Color: red; MARGIN:0 ;"></div>'
    )
    b = lxml.html.fragment_fromstring('<div id="x2" class="a b" style="color:red;margin:0"></div>')
    assert style_signature(a) == (("a", "b"), "color:red;margin:0")
    assert style_signature(a) == style_signature(b)  # ids are not part of the path (S-2)
    assert style_signature(lxml.html.fragment_fromstring("<p></p>")) == ((), "")


def test_style_distinguishes_tag_paths() -> None:
    region = search_tag_path_region(
        parse('<body><p style="color:red"></p><p style="COLOR: red;"></p><p></p></body>'), PAPER
    )
    assert region.sequence == (1, 2, 2, 3)
    assert region.paths[1] == "body/p[style=color:red]"


def test_min_size_gap() -> None:
    # Gap 0.8 needs |n - 2i| / n > 0.8: cutting the body off 8 positions (0.75) is refused.
    region = search_tag_path_region(parse(FIGURE_2), PAPER, min_size_gap=0.8)
    assert (region.start, region.end) == (1, 8)
    assert region.splits == ()
    with pytest.raises(ValueError, match="min_size_gap"):
        search_tag_path_region(parse(FIGURE_2), PAPER, min_size_gap=1.0)
    with pytest.raises(ValueError, match="min_size_gap"):
        prune_tag_paths(parse(FIGURE_2), PAPER, min_size_gap=-0.1)


def test_size_text_keeps_the_side_with_the_text() -> None:
    description = "A warm waterproof jacket for long walks in the rain. " * 6
    html = (
        f"<body><div class='desc'><p>{description}</p><p>{description}</p></div>"
        "<ul class='related'>"
        + "".join(f"<li class='r'><a>x{n}</a><span>1</span></li>" for n in range(10))
        + "</ul></body>"
    )
    by_nodes = prune_tag_paths(parse(html), PAPER)
    by_text = prune_tag_paths(parse(html), PAPER, size="text")
    assert "waterproof" not in string_at(by_nodes, "string(//body)")
    assert "waterproof" in string_at(by_text, "string(//body)")
    assert not by_text.xpath("//ul")
    with pytest.raises(ValueError, match="size"):
        search_tag_path_region(parse(html), PAPER, size="words")


def test_search_region_on_a_bare_sequence() -> None:
    assert search_region([1, 2, 3, 4, 4, 3, 4, 4])[:2] == (3, 8)
    assert search_region([]) == (0, 0, [])
    assert search_region([1, 2, 2, 2, 2], weights=[0, 0, 0, 0, 0])[:2] == (1, 5)
    with pytest.raises(ValueError, match="weights"):
        search_region([1, 2], weights=[1])


def test_protected_elements_are_never_split_off() -> None:
    # Figure 2 peels off the body, then the table; a protected table stops the second split.
    protected = [False, True, False, False, False, False, False, False]
    start, end, splits = search_region([1, 2, 3, 4, 4, 3, 4, 4], protected=protected)
    assert (start, end) == (2, 8)
    assert [(s.kept_start, s.kept_end) for s in splits] == [(2, 8)]
    with pytest.raises(ValueError, match="protected"):
        search_region([1, 2], protected=[True])


# --- robustness ------------------------------------------------------------------------------


def test_deep_nesting_completes() -> None:
    root, chain = deep_chain(10_000)
    for element in chain[1:]:
        element.tail = "\n"
    chain[-1].text = "deep content at the bottom"
    before = etree.tostring(root)
    pruned, region = prune_tag_paths_region(root, PAPER)
    assert region.node_count == 10_001
    assert (region.start, region.end) == (10_000, 10_001)  # peeled one wrapper at a time
    assert len(region.splits) == 9_999
    assert region.kept_count == 10_001  # the wrappers stay as shells
    assert "deep content at the bottom" in etree.tostring(pruned, encoding="unicode")
    assert etree.tostring(root) == before


def test_result_pickles_and_is_deterministic() -> None:
    region = search_tag_path_region(parse(LIST_PAGE), PAPER)
    assert pickle.loads(pickle.dumps(region)) == region
    assert search_tag_path_region(parse(LIST_PAGE), PAPER) == region


def test_many_threads_share_one_tree() -> None:
    tree = parse(LIST_PAGE)
    expected = etree.tostring(prune_tag_paths(tree, PAPER))
    results: list[bytes] = []
    lock = threading.Lock()

    def work() -> None:
        for _ in range(10):
            out = etree.tostring(prune_tag_paths(tree, PAPER))
            with lock:
                results.append(out)

    threads = [threading.Thread(target=work) for _ in range(6)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert results == [expected] * 60


# --- Scrapy ----------------------------------------------------------------------------------


def test_tps_selector_over_an_html_response() -> None:
    response = HtmlResponse("https://shop.example/jackets", body=LIST_PAGE.encode())
    selector = tps_selector(response, PAPER)
    names = [product.css("a::text").get() for product in selector.css("li")]
    assert names == [f"Jacket {n}" for n in range(8)]
    assert selector.css("title::text").get() == "Shop"
    assert not selector.css(".nav a")
    # The response's own tree is the parsed one and stays whole.
    assert len(response.css(".nav a")) == 2
    assert selector.root is not response.selector.root
    assert tps_selector(response, PAPER, invert=True).css(".nav a")


def test_tps_selector_with_dont_cetd_and_non_html() -> None:
    request = Request("https://shop.example/jackets", meta={"dont_cetd": True})
    response = HtmlResponse(request.url, body=LIST_PAGE.encode(), request=request)
    assert len(tps_selector(response, PAPER).css("li")) == 8
    text = TextResponse("https://shop.example/a.txt", body=b"plain")
    with pytest.raises(TypeError, match="HTML response"):
        tps_selector(text, PAPER)


def test_reexported() -> None:
    for name in (
        "prune_tag_paths",
        "tps_selector",
        "TagPathRegion",
        "TagPathSplit",
        "search_tag_path_region",
    ):
        assert name in scrapy_cetd.__all__
        assert getattr(scrapy_cetd, name)


# --- paths and limits ------------------------------------------------------------------------


def test_paths_are_kept_as_parent_and_step() -> None:
    region = search_tag_path_region(parse(THREE_REGIONS), PAPER)
    assert region.steps[:5] == ("body", "br", "div", "span.region1", "span.region2")
    assert region.step_parents[:5] == (0, 1, 1, 3, 3)
    assert region.path(5) == "body/div/span.region2" == region.paths[4]
    with pytest.raises(ValueError, match=r"code must be in 1\.\.6"):
        region.path(7)


def test_a_page_over_max_nodes_is_left_unpruned_with_the_reason() -> None:
    tree = parse(LIST_PAGE)
    elements = len(elements_at(tree, "//*"))
    region = search_tag_path_region(tree, PAPER, max_nodes=elements - 1)
    assert region.reason == f"max_nodes exceeded: {elements} elements, more than {elements - 1}"
    assert (region.sequence, region.splits, region.start, region.kept_count) == ((), (), 0, 0)
    pruned, region = prune_tag_paths_region(tree, PAPER, max_nodes=elements - 1)
    assert region.reason is not None
    assert etree.tostring(pruned) == etree.tostring(tree)
    assert pruned is not tree
    assert search_tag_path_region(tree, PAPER, max_nodes=elements).reason is None
    assert search_tag_path_region(tree, PAPER, max_nodes=None).reason is None


def test_a_page_over_the_time_budget_is_left_unpruned_with_the_reason() -> None:
    tree = parse(LIST_PAGE)
    pruned, region = prune_tag_paths_region(tree, PAPER, time_budget=1e-9)
    assert region.reason is not None
    assert region.reason.startswith("time_budget exceeded: more than 1e-09 s, stopped ")
    assert etree.tostring(pruned) == etree.tostring(tree)
    assert search_tag_path_region(tree, PAPER, time_budget=1e-9).reason == region.reason
    unlimited = search_tag_path_region(tree, PAPER, time_budget=60)
    assert unlimited.reason is None
    assert unlimited == search_tag_path_region(tree, PAPER)


@pytest.mark.parametrize(
    ("option", "value"), [("max_nodes", 0), ("max_nodes", -3), ("time_budget", 0.0)]
)
def test_limits_must_be_positive(option: str, value: float) -> None:
    with pytest.raises(ValueError, match=f"option {option}=.* is not a positive number or None"):
        prune_tag_paths(parse(LIST_PAGE), PAPER, **{option: value})


def test_tps_selector_over_a_limit_selects_in_the_whole_page(
    caplog: pytest.LogCaptureFixture,
) -> None:
    response = HtmlResponse("https://shop.example/jackets", body=LIST_PAGE.encode())
    with caplog.at_level("WARNING", logger="scrapy_cetd.crawl.spider"):
        selector = tps_selector(response, PAPER, max_nodes=5)
    assert len(selector.css(".nav a")) == 2
    assert len(selector.css("li")) == 8
    assert "TPS left https://shop.example/jackets unpruned: max_nodes exceeded" in caplog.text


def test_prune_command_exits_non_zero_naming_the_limit(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    page = tmp_path / "list.html"
    page.write_text(LIST_PAGE)
    out = tmp_path / "out.html"
    assert main(["prune", str(page), "-o", str(out), "--max-nodes", "5"]) == 1
    assert "not pruned: max_nodes exceeded" in capsys.readouterr().err
    assert main(["prune", str(page), "-o", str(out), "--time-budget", "1e-9"]) == 1
    assert "not pruned: time_budget exceeded" in capsys.readouterr().err
    assert not out.exists()
    assert main(["prune", str(page), "-o", str(out), "--max-nodes", "none"]) == 0
    assert out.exists()


def _reference_search_region(
    sequence: list[int], min_size_gap: float, weights: list[int], protected: list[bool]
) -> tuple[int, int, list[tuple[int, int, int, int, int, int]]]:
    """searchRegion as docs/algorithms.md §5.2 states it, one full scan per threshold."""
    lo, hi = 0, len(sequence) - 1
    splits: list[tuple[int, int, int, int, int, int]] = []
    while True:
        part = sequence[lo : hi + 1]
        counts = {s: part.count(s) for s in set(part)}
        found = None
        for threshold in sorted(set(counts.values())):
            alphabet = {s for s, c in counts.items() if c >= threshold}
            if len(alphabet) < 2:
                break
            seen: set[int] = set()
            done: set[int] = set()
            for p in range(lo, hi + 1):
                symbol = sequence[p]
                if symbol not in alphabet:
                    continue
                seen.add(symbol)
                if sequence[lo : p + 1].count(symbol) == counts[symbol]:
                    done.add(symbol)
                if seen == done:
                    i = p - lo + 1
                    first = sum(weights[lo : lo + i])
                    second = sum(weights[lo + i : hi + 1])
                    gap = abs(second - first) / (first + second) if first + second else 0.0
                    removed = (
                        protected[lo : lo + i] if first < second else protected[lo + i : hi + 1]
                    )
                    if len(done) < len(alphabet) and gap > min_size_gap + 1e-9 and not any(removed):
                        found = threshold, i, first < second
                    break
            if found:
                break
        if found is None:
            return lo + 1, hi + 1, splits
        threshold, i, keep_suffix = found
        new_lo, new_hi = (lo + i, hi) if keep_suffix else (lo, lo + i - 1)
        splits.append((lo + 1, hi + 1, threshold, i, new_lo + 1, new_hi + 1))
        lo, hi = new_lo, new_hi


def test_search_region_matches_the_definition_on_random_sequences() -> None:
    rng = random.Random(24)
    for _ in range(400):
        size = rng.randint(1, 60)
        alphabet = rng.randint(1, 12)
        sequence = [rng.randint(1, alphabet) for _ in range(size)]
        if rng.random() < 0.3:  # symbols opening early and closing late, at many frequencies
            sequence = sequence + sorted(set(sequence))
        weights = [rng.choice((0, 1, 1, 5)) for _ in sequence]
        protected = [rng.random() < 0.05 for _ in sequence]
        gap = rng.choice((0.0, 0.2, 0.5))
        start, end, splits = search_region(
            sequence, min_size_gap=gap, weights=weights, protected=protected
        )
        trace = [(s.start, s.end, s.threshold, s.at, s.kept_start, s.kept_end) for s in splits]
        assert (start, end, trace) == _reference_search_region(sequence, gap, weights, protected)


SHOP = (
    "<html><body><nav class='menu'>"
    + "".join(
        f"<div class='column'><h4>Department {d}</h4><ul>"
        + "".join(f"<li><a href='/c/{d}/{c}'>Category {d}.{c}</a></li>" for c in range(10))
        + "</ul></div>"
        for d in range(10)
    )
    + "</nav><div class='page'><h1>Wool jackets</h1><div class='grid'>"
    + "".join(
        f"<div class='card'><a href='/p/{n}'><img src='/{n}.jpg' alt=''></a><h2><a "
        f"href='/p/{n}'>Wool jacket model {n}</a></h2><p>A warm jacket of recycled wool with a "
        f"cotton lining, tested in the mountains, model {n}.</p><span>{100 + n} EUR</span></div>"
        for n in range(12)
    )
    + "</div></div></body></html>"
)
"""A shop's category page: a menu with more elements than the product cards below it."""


def test_complete_records_keeps_the_cards_whole_around_the_main_content() -> None:
    tree = parse(SHOP)
    main = prune_tag_paths(tree, PAPER, keep_main_content=True)
    assert len(elements_at(main, "//div[@class='card']/p")) == 12
    assert not main.xpath("//div[@class='card']/h2")  # the title links are not main content
    pruned, region = prune_tag_paths_region(
        tree, PAPER, keep_main_content=True, complete_records=True
    )
    assert len(elements_at(pruned, "//div[@class='card']/h2/a")) == 12
    assert len(elements_at(pruned, "//div[@class='card']/a/img")) == 12
    assert region.kept_count == len(elements_at(pruned, "/html/body//*")) + 1
    two = SHOP.replace("<div class='card'>", "<div class='card odd'>", 10)
    few = prune_tag_paths(parse(two), PAPER, keep_main_content=True, complete_records=True)
    assert len(elements_at(few, "//div[@class='card odd']/h2")) == 10
    assert len(elements_at(few, "//div[@class='card']/h2")) == 0  # only two cards alike


def test_keep_heading_keeps_the_first_h1() -> None:
    tree = parse(SHOP)
    assert not prune_tag_paths(tree, PAPER, keep_main_content=True).xpath("//h1")
    pruned = prune_tag_paths(tree, PAPER, keep_heading=True)
    assert strings_at(pruned, "//h1/text()") == ["Wool jackets"]
