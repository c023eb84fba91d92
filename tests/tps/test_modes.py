"""What pruning keeps of each element (scrapy_cetd.tps.modes): the complement of the region, and the
options beyond the paper (main content, records, heading, landmark, furniture, widgets, buttons)."""

from __future__ import annotations

from conftest import body_of, elements_at, parse, strings_at, text_parts
from lxml import etree
from tpskit import FIGURE_2, INTRO, LIST_PAGE, PAPER, THREE_REGIONS, body_html, words

import scrapy_cetd
from scrapy_cetd.page.dom import build_view
from scrapy_cetd.tps import prune_tag_paths, prune_tag_paths_region
from scrapy_cetd.tps.modes import main_content


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


def test_figure_2_inverted_keeps_only_the_shells() -> None:
    pruned, region = prune_tag_paths_region(parse(FIGURE_2), PAPER, invert=True)
    assert region.invert
    assert region.kept_count == 2
    assert body_html(pruned) == "<body><table></table></body>"


def test_three_regions_inverted() -> None:
    pruned = prune_tag_paths(parse(THREE_REGIONS), PAPER, invert=True)
    html = body_html(pruned)
    assert "region2" not in html
    assert html.count("region1") == 4
    assert html.count("region3") == 4
    assert html.count("<br>") == 2


def test_inverted_without_split_leaves_an_empty_body() -> None:
    pruned, region = prune_tag_paths_region(parse("<body>x<p>y</p></body>"), PAPER, invert=True)
    assert (region.start, region.end) == (1, 2)
    assert region.kept_count == 0
    assert body_html(pruned) == "<body></body>"


def test_keep_main_content_keeps_the_intro_tps_cuts_off() -> None:
    tree = parse(LIST_PAGE.replace("<h1>Jackets</h1>", f"<h1>Jackets</h1>{INTRO}"))
    assert not prune_tag_paths(tree, PAPER).xpath("//p[@class='intro']")
    pruned = prune_tag_paths(tree, PAPER, keep_main_content=True)
    assert strings_at(pruned, "//p[@class='intro']/text()")[0].startswith("Our winter jackets")
    assert len(elements_at(pruned, "//li[@class='product']")) == 8


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
