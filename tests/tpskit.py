"""The pages and helpers of the TPS tests (tests/tps/) and of the tps_selector tests
(tests/crawl/test_spider.py)."""

from __future__ import annotations

from conftest import body_of, html_of, text_parts
from lxml import etree

from scrapy_cetd.tps import TpsOptions

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


INTRO = (
    "<p class='intro'>Our winter jackets are made from recycled wool and lined with organic "
    "cotton; every one of them is tested in the mountains before it reaches the shop.</p>"
)


def forum_index() -> str:
    """A forum's index: a site menu of 8 sections with 6 topics each, in a ``<nav>``, then 12
    threads under a heading."""
    menu = "".join(
        f"<li class='menu-item'><a href='/section/{s}'>Section {s}</a><ul class='sub-menu'>"
        + "".join(
            f"<li class='menu-item'><a href='/section/{s}/{t}'>Topic {s}.{t}</a></li>"
            for t in range(6)
        )
        + "</ul></li>"
        for s in range(8)
    )
    threads = "".join(
        f"<li class='thread'><h3><a href='/t/{n}'>Thread {n}: how do I fix the leaking tap in "
        "my kitchen</a></h3><p class='excerpt'>I have tried replacing the washer twice and the "
        "tap still drips every few seconds, any idea what else could be worn out? "
        f"Post {n}.</p><span class='meta'>by user{n}, {n + 3} replies</span></li>"
        for n in range(12)
    )
    return (
        "<html><head><title>Plumbing forum</title></head><body>"
        f"<header><nav class='main-nav'><ul class='menu'>{menu}</ul></nav></header>"
        f"<main><h1>Plumbing questions</h1><ul class='threads'>{threads}</ul></main>"
        "<footer><p>Forum rules</p><p>Contact</p></footer></body></html>"
    )


def shop_category() -> str:
    """A shop's category page: a mega-menu of 10 departments with 10 categories each, then a
    heading, an introduction and 12 product cards."""
    columns = "".join(
        f"<div class='mega-column'><h4>Department {d}</h4><ul>"
        + "".join(f"<li><a href='/c/{d}/{c}'>Category {d}.{c}</a></li>" for c in range(10))
        + "</ul></div>"
        for d in range(10)
    )
    products = "".join(
        f"<div class='product-card'><a href='/p/{n}'><img src='/img/{n}.jpg' alt='Jacket {n}'>"
        f"</a><h2 class='product-name'><a href='/p/{n}'>Wool jacket model {n}</a></h2>"
        "<p class='product-description'>A warm jacket of recycled wool with a cotton lining, "
        f"tested in the mountains, model {n}.</p><span class='price'>{100 + n} EUR</span></div>"
        for n in range(12)
    )
    return (
        "<html><head><title>Jackets</title></head><body>"
        f"<nav class='mega-menu'>{columns}</nav>"
        "<div class='page'><h1>Jackets</h1><p class='category-intro'>Our jackets are made from "
        "recycled wool and lined with organic cotton.</p>"
        f"<div class='product-grid'>{products}</div></div>"
        "<footer><ul><li><a href='/imprint'>Imprint</a></li><li><a href='/terms'>Terms</a></li>"
        "</ul></footer></body></html>"
    )


def count(tree: etree._Element, xpath: str) -> int:
    found = tree.xpath(xpath)
    assert isinstance(found, list)
    return len(found)
