"""The regions that bound a page's content, shared by the page types: its main landmark
(step 14, and a product's selection), the region of a run with the headline above it (steps 14
and 21), what lies outside a region, and what lies before the page's heading (step 26).
"""

from __future__ import annotations

from collections.abc import Sequence

from lxml import etree

from scrapy_cetd.page.dom import DomView
from scrapy_cetd.page.output import Keep


def bound_to(view: DomView, modes: list[Keep], region: int) -> None:
    """Drop from ``modes`` what lies outside the element ``region``; its ancestors keep only
    what lies inside it (they become shells)."""
    end = view.subtree_end(region)
    above = set(view.ancestors(region))
    for i in range(len(view)):
        if region <= i < end:
            continue
        if i not in above:
            modes[i] = Keep.DROP
        elif modes[i] != Keep.DROP:
            modes[i] = Keep.SHELL


_ROLE_MAIN = etree.XPath("descendant-or-self::*[@role='main']")

MAIN_LOOKUPS = 8
"""Up to this many ``role="main"`` elements are looked up in the view one by one; a page with
more is read in one pass over the view."""


def main_landmark(view: DomView, chars: Sequence[int], share: float) -> int | None:
    """The ``<main>`` element (or ``role="main"``) of ``view`` with the most text, when it
    holds at least ``share`` of the text of the view's root (a ``<main>`` around one widget
    is no main column); ``chars`` are the view's :func:`count_nodes` characters."""
    candidates = [i for i, tag in enumerate(view.tags) if tag == "main"]
    found = _ROLE_MAIN(view.elements[0])
    assert isinstance(found, list)
    if len(found) <= MAIN_LOOKUPS:
        for element in found:
            try:
                candidates.append(view.elements.index(element))
            except ValueError:  # hidden, or furniture
                continue
    else:  # one pass over the view, not one per element: each look-up scans the view
        roles = set(found)
        candidates.extend(i for i, element in enumerate(list(view.elements)) if element in roles)
    best = max(candidates, key=lambda i: (chars[i], -i), default=None)
    if best is None or chars[best] < share * chars[0]:
        return None
    return best


def headed_region(view: DomView, chars: Sequence[int], region: int) -> int:
    """The closest element holding both ``region`` and the page's first ``<h1>`` with text
    (``chars``: the view's :func:`count_nodes` characters); ``region`` itself when the page
    has none."""
    size, tags, parent = len(view), view.tags, view.parent
    heading = next((i for i in range(size) if tags[i] == "h1" and chars[i]), None)
    if heading is None:
        return region
    above = set()
    i = region
    while i >= 0:
        above.add(i)
        i = parent[i]
    i = heading
    while i not in above:
        i = parent[i]
    return i


def drop_before_heading(
    view: DomView, chars: Sequence[int], modes: list[Keep], region: int, share: float
) -> None:
    """Drop from ``modes`` what lies before the first ``<h1>`` with text inside the element
    ``region`` (the page's heading), when it holds less than ``share`` of the region's text:
    the elements that end before the heading, children of its ancestors up to ``region``."""
    tags, parent, depth = view.tags, view.parent, view.depth
    heading = region
    while heading < len(view) and (heading == region or depth[heading] > depth[region]):
        if tags[heading] == "h1" and chars[heading]:
            break
        heading += 1
    else:
        return
    if heading == region:
        return
    before: list[int] = []
    child, above = heading, parent[heading]
    while child != region:
        before.extend(c for c in view.children[above] if c < child)
        child, above = above, parent[above]
    if sum(chars[c] for c in before) < share * chars[region]:
        for c in before:
            modes[c] = Keep.DROP
