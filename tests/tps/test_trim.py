"""The pruned copy (scrapy_cetd.tps.trim): shells, tails, positions kept, the input never
modified."""

from __future__ import annotations

import copy

import lxml.html
from conftest import body_of, elements_at, parse
from lxml import etree
from tpskit import FIGURE_2, LIST_PAGE, PAPER, THREE_REGIONS

from scrapy_cetd.page.dom import build_view
from scrapy_cetd.tps import prune_tag_paths, search_tag_path_region
from scrapy_cetd.tps.modes import DROP, KEEP
from scrapy_cetd.tps.trim import trim

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
