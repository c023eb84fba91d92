"""Page furniture found by markup, reader texts located in the view, the view without them."""

from __future__ import annotations

from conftest import parse

from scrapy_cetd.extractors.furniture import boilerplate, located, without
from scrapy_cetd.page.density import count_nodes
from scrapy_cetd.page.dom import build_view

TEXT = "a long paragraph of the article that goes on well past the furniture around it " * 3


def furniture(html: str, **options: bool) -> list[str]:
    """The tags of the outermost elements of ``html``'s body taken for furniture."""
    view = build_view(parse(html).find("body"))
    settings = {"structural": True, "comments": True, **options}
    drop = boilerplate(view, count_nodes(view).chars, **settings)
    return [view.tags[i] for i in range(1, len(view)) if drop[i] and not drop[view.parent[i]]]


def test_semantic_tags_roles_forms_and_comment_sections_are_furniture() -> None:
    page = (
        f"<body><nav>Home News</nav><div role='banner'>Logo</div><main><p>{TEXT}</p>"
        "<form><label>Newsletter</label></form><div id='comments'>Nice post</div></main>"
        "<footer>Copyright</footer></body>"
    )
    assert furniture(page) == ["nav", "div", "form", "div", "footer"]
    assert furniture(page, comments=False) == ["nav", "div", "form", "footer"]
    assert furniture(page, structural=False) == ["div"]
    assert furniture(page, forms=False) == ["nav", "div", "div", "footer"]


def test_furniture_that_wraps_the_page_is_not_furniture() -> None:
    assert furniture(f"<body><nav><p>{TEXT}</p></nav><aside>More</aside></body>") == ["aside"]
    assert furniture(f"<body><form><p>{TEXT}</p><input name='q'></form></body>") == []
    assert furniture(f"<body><article class='comment'><p>{TEXT}</p></article></body>") == []


def test_descendants_of_furniture_are_furniture() -> None:
    view = build_view(parse("<body><p>text</p><nav><ul><li>a</li></ul></nav></body>").find("body"))
    drop = boilerplate(view, count_nodes(view).chars, structural=True, comments=False)
    assert drop == [False, False, True, True, True]


def test_located_finds_a_text_across_inline_markup() -> None:
    review = "I bought this jacket for a winter trip and it kept me warm through three days"
    page = f"<body><div><p>{review.replace('winter', '<b>winter</b>')}</p><p>Anna</p></div></body>"
    view = build_view(parse(page).find("body"))
    (found,) = located(view, [review])
    assert view.tags[found] == "p"
    assert located(view, ["too short", "words that are nowhere on this page at all"]) == []


def test_without_joins_the_text_around_a_removed_element() -> None:
    view = build_view(parse("<body><p>before <span>gone</span> after</p></body>").find("body"))
    drop = [tag == "span" for tag in view.tags]
    pruned = without(view, drop, href_links=True)
    assert pruned.tags == ["body", "p"]
    assert pruned.runs[1] == ["before  after"]
    assert pruned.children == [[1], []]


def test_without_counts_only_anchors_with_href_as_links_when_asked() -> None:
    page = "<body><a name='top'><p>text</p></a><a href='/'>x</a></body>"
    view = build_view(parse(page).find("body"))
    keep = [False] * len(view)
    assert without(view, keep, href_links=True).in_link == [False, False, False, True]
    assert without(view, keep, href_links=False).in_link == [False, True, True, True]
