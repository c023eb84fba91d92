"""The steps of a service page: the menus of short links its template did not mark as
``<nav>`` (step 25).
"""

from __future__ import annotations

from scrapy_cetd.limits import CHECK_EVERY, check_deadline
from scrapy_cetd.page.density import NodeCounts
from scrapy_cetd.page.dom import BLOCK_TAGS, DomView
from scrapy_cetd.page.output import Keep, kept_elements

MENU_MIN_LINKS = 3
"""The fewest links that make a block a menu (two buttons side by side are a choice)."""

MENU_MAX_SHARE = 0.5
"""The most of the page's text a menu holds: a block with more is the page itself (a list of
short links typed a service page, or a page whose closed menus, shown with its hidden panels,
hold as much text as its content), which a service page's profile would otherwise drop whole."""

MENU_LINK_SHARE = 0.7
"""The share of its text a block's links must hold to make it a menu: cetd-plus's own
``link_block_ratio``."""


def drop_menus(view: DomView, counts: NodeCounts, modes: list[Keep], link_chars: int) -> None:
    """Drop the outermost kept blocks that are menus: :data:`MENU_MIN_LINKS` links or more,
    holding :data:`MENU_LINK_SHARE` of the block's text, whose text is on average shorter than
    ``link_chars`` characters (a menu's entries name pages; a list of offers or articles
    says more), and at most :data:`MENU_MAX_SHARE` of the page's text. A link is an outermost
    element of :data:`~scrapy_cetd.page.dom.LINK_TAGS` with text. Two passes over the view."""
    size, parent, in_link = len(view), view.parent, view.in_link
    chars, linked = counts.chars, counts.link_chars
    links = [0] * size
    for i in range(size - 1, 0, -1):
        if in_link[i] and not in_link[parent[i]] and chars[i]:
            links[i] += 1
        links[parent[i]] += links[i]
    in_output = kept_elements(view, modes)
    for i in range(1, size):
        if i & CHECK_EVERY == CHECK_EVERY:
            check_deadline("finding the menus")
        if not in_output[parent[i]]:
            in_output[i] = False
        elif (
            modes[i] == Keep.TEXT
            and in_output[i]
            and links[i] >= MENU_MIN_LINKS
            and linked[i] >= MENU_LINK_SHARE * chars[i]
            and linked[i] < link_chars * links[i]
            and view.tags[i] in BLOCK_TAGS
            and chars[i] <= MENU_MAX_SHARE * chars[0]
        ):
            modes[i] = Keep.DROP
            in_output[i] = False
