"""Page furniture found by markup, reader texts located in the view, the view without them."""

from __future__ import annotations

import random
from collections.abc import Callable

from conftest import body_of, deep_chain, parse
from ratios import TENFOLD, growth

from scrapy_cetd.extractors.furniture import _common_ancestors, boilerplate, located, without
from scrapy_cetd.page.density import count_nodes
from scrapy_cetd.page.dom import build_view

TEXT = "a long paragraph of the article that goes on well past the furniture around it " * 3


def furniture(html: str, **options: bool) -> list[str]:
    """The tags of the outermost elements of ``html``'s body taken for furniture."""
    view = build_view(body_of(parse(html)))
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


def test_an_element_named_a_footer_is_furniture_when_asked_for() -> None:
    page = (
        f"<body><main><p>{TEXT}</p></main><div class='x-bar-footer'>About us</div>"
        "<div id='siteFooter'>Contact</div><div class='seofootercopy'>Our range</div></body>"
    )
    assert furniture(page) == []
    assert furniture(page, footers=True) == ["div", "div"]
    assert furniture(page, footers=True, structural=False) == []  # a step of the furniture's
    wrapper = f"<body><div class='has-footer'><p>{TEXT}</p></div><p>More text.</p></body>"
    assert furniture(wrapper, footers=True) == []  # half the text or more: the page's wrapper
    negated = f"<body><div class='wsite-not-footer'>Intro</div><p>{TEXT}</p></body>"
    assert furniture(negated, footers=True) == []  # Weebly's content column: not a footer
    header = (
        f"<body><p>{TEXT}</p><table><tr><th class='p-2 footer_title_big'>Challenge</th>"
        "<th class='p-2 footer_title_big'>Solution</th></tr><tr><td>Cost</td><td>Plan</td></tr>"
        "</table><div class='footer_links'>About us</div></body>"
    )
    assert furniture(header, footers=True) == ["div"]  # a header cell heads its column


def test_furniture_that_wraps_the_page_is_not_furniture() -> None:
    assert furniture(f"<body><nav><p>{TEXT}</p></nav><aside>More</aside></body>") == ["aside"]
    assert furniture(f"<body><form><p>{TEXT}</p><input name='q'></form></body>") == []
    assert furniture(f"<body><article class='comment'><p>{TEXT}</p></article></body>") == []


def test_descendants_of_furniture_are_furniture() -> None:
    view = build_view(body_of(parse("<body><p>text</p><nav><ul><li>a</li></ul></nav></body>")))
    drop = boilerplate(view, count_nodes(view).chars, structural=True, comments=False)
    assert drop == [False, False, True, True, True]


def test_located_finds_a_text_across_inline_markup() -> None:
    review = "I bought this jacket for a winter trip and it kept me warm through three days"
    page = f"<body><div><p>{review.replace('winter', '<b>winter</b>')}</p><p>Anna</p></div></body>"
    view = build_view(body_of(parse(page)))
    (found,) = located(view, [review])
    assert view.tags[found] == "p"
    assert located(view, ["too short", "words that are nowhere on this page at all"]) == []


def test_without_joins_the_text_around_a_removed_element() -> None:
    view = build_view(body_of(parse("<body><p>before <span>gone</span> after</p></body>")))
    drop = [tag == "span" for tag in view.tags]
    pruned = without(view, drop, href_links=True)
    assert pruned.tags == ["body", "p"]
    assert pruned.runs[1] == ["before  after"]
    assert pruned.children == [[1], []]


def test_without_counts_only_anchors_with_href_as_links_when_asked() -> None:
    page = "<body><a name='top'><p>text</p></a><a href='/'>x</a></body>"
    view = build_view(body_of(parse(page)))
    keep = [False] * len(view)
    assert without(view, keep, href_links=True).in_link == [False, False, False, True]
    assert without(view, keep, href_links=False).in_link == [False, True, True, True]


def test_located_is_linear_in_the_texts_and_the_page() -> None:
    """Texts that begin like much of the page (each is looked for from the start of the
    page), and texts found at the bottom of a deep chain (each climbs the chain)."""

    def common_words(size: int) -> Callable[[], object]:
        view = build_view(body_of(parse(f"<body><p>{'the ' * size}</p></body>")))
        texts = [f"the the the the the {n} and more" for n in range(size // 10)]
        return lambda: located(view, texts)

    assert growth(common_words, 2_000, 20_000) < TENFOLD

    def deep(depth: int) -> Callable[[], object]:
        _, chain = deep_chain(depth)
        chain[-1].text = "a review of the jacket that kept me warm"
        view = build_view(chain[0])
        texts = ["a review of the jacket that kept me warm"] * (depth // 4)
        return lambda: located(view, texts)

    assert growth(deep, 200, 2_000) < TENFOLD


def test_common_ancestors_are_those_found_by_climbing() -> None:
    rng = random.Random(7)
    for _ in range(200):
        parent = [-1]
        for i in range(1, rng.randint(1, 60)):
            parent.append(rng.randrange(i))  # a preorder needs the parent on the last path
        order = _preorder(parent)
        parent = [order.index(parent[old]) if parent[old] >= 0 else -1 for old in order]
        pairs = [(rng.randrange(len(parent)), rng.randrange(len(parent))) for _ in range(20)]
        assert _common_ancestors(parent, pairs) == [_climbing(parent, u, v) for u, v in pairs]


def _preorder(parent: list[int]) -> list[int]:
    """The nodes of the tree that ``parent`` describes, in preorder."""
    children: list[list[int]] = [[] for _ in parent]
    for i, p in enumerate(parent):
        if p >= 0:
            children[p].append(i)
    order, stack = [], [0]
    while stack:
        i = stack.pop()
        order.append(i)
        stack.extend(reversed(children[i]))
    return order


def _climbing(parent: list[int], u: int, v: int) -> int:
    """The closest common ancestor of ``u`` and ``v``, by climbing from both."""
    lineage = {u}
    while parent[u] >= 0:
        u = parent[u]
        lineage.add(u)
    while v not in lineage:
        v = parent[v]
    return v
