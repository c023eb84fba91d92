"""Extraction by page type: what cetd-plus does differently on a page of a known type.

A page's type (:mod:`scrapy_cetd.page.page_types`, or forced by the user) picks a profile: the
steps that replace cetd-plus's narrowing to one dense block on pages whose main content is not
one block of prose. Each step is an option of
:class:`~scrapy_cetd.extractors.cetd_plus.CetdPlusExtractor` that turns it off; the gain of
each is measured by ``python -m benchmarks.page_type_accuracy`` (``docs/page-types.md``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from lxml import etree

from scrapy_cetd.extractors.furniture import CHECK_EVERY
from scrapy_cetd.limits import check_deadline
from scrapy_cetd.page.dom import BLOCK_TAGS, DomView
from scrapy_cetd.page.output import Keep, kept_elements


@dataclass(frozen=True)
class Profile:
    """The steps a page of one type follows instead of cetd-plus's narrowing."""

    name: str
    """The page type."""
    hidden: bool = False
    """Elements hidden by their own markup are content: closed tabs and accordions (a
    product's description and specifications, a service page's FAQ answers)."""
    thread: bool = False
    """The page is a thread: its comment sections are content (the posts and replies) and
    the selection is not narrowed to one post, as on a page that declares itself a
    discussion."""
    whole_page: bool = False
    """The content is all the page keeps once its furniture is gone (step 2), within its main
    landmark: the records of a list, every section of a service page, the main column of a
    documentation page with its code, tables and headings. One dense block is only a part of
    it."""
    records: bool = False
    """With ``whole_page``: the content is bounded by the region of the page's records (the
    run of sibling records, alike in tag and class, that holds the most text) with the
    headline above them, when that run holds enough of the text (the ``record_share``
    option); the main landmark bounds it otherwise."""
    main_bound: bool = False
    """cetd-plus's own selection is bounded by the page's main landmark: a product's
    recommendations, recently viewed items and shop banners outside ``<main>`` go."""
    unique_blocks: bool = False
    """A kept block that repeats the text of one kept before it goes: templates that show a
    product's description twice (one copy for wide screens, one for narrow, or a tab and its
    accordion) give the text once."""


PROFILES: dict[str, Profile] = {
    "forum": Profile("forum", thread=True, unique_blocks=True),
    "listing": Profile("listing", whole_page=True, records=True, unique_blocks=True),
    "collection": Profile("collection", whole_page=True, unique_blocks=True),
    "documentation": Profile("documentation", whole_page=True),
    "service": Profile("service", hidden=True, whole_page=True, unique_blocks=True),
    "product": Profile("product", hidden=True, main_bound=True, unique_blocks=True),
}
"""The profile of each page type that has one; articles follow cetd-plus's own steps. On
products neither the whole page nor the whole-body expansion beat those steps; documentation
keeps its repeated blocks (the same command shown twice is its content twice); only listings
are bounded by their records (on a shop's category the record region did no better than the
main landmark: lower on some sites, higher on others); hidden elements are content only where
that measured better (products, service pages)."""


def bound_to(view: DomView, modes: list[Keep], region: int) -> None:
    """Drop from ``modes`` what lies outside the element ``region``; its ancestors keep only
    what lies inside it (they become shells)."""
    end = region + 1
    while end < len(view) and view.depth[end] > view.depth[region]:
        end += 1
    above = set(view.ancestors(region))
    for i in range(len(view)):
        if region <= i < end:
            continue
        if i not in above:
            modes[i] = Keep.DROP
        elif modes[i] != Keep.DROP:
            modes[i] = Keep.SHELL


_ROLE_MAIN = etree.XPath("descendant-or-self::*[@role='main']")


def main_landmark(view: DomView, chars: Sequence[int], share: float) -> int | None:
    """The ``<main>`` element (or ``role="main"``) of ``view`` with the most text, when it
    holds at least ``share`` of the text of the view's root (a ``<main>`` around one widget
    is no main column); ``chars`` are the view's :func:`count_nodes` characters."""
    candidates = [i for i, tag in enumerate(view.tags) if tag == "main"]
    found = _ROLE_MAIN(view.elements[0])
    assert isinstance(found, list)
    for element in found:
        try:
            candidates.append(view.elements.index(element))
        except ValueError:  # hidden, or furniture
            continue
    best = max(candidates, key=lambda i: (chars[i], -i), default=None)
    if best is None or chars[best] < share * chars[0]:
        return None
    return best


REPEAT_MIN_CHARS = 20
"""The fewest characters (spaces collapsed) a block needs to be told a repeat: a short label
("Add to cart", a size) repeats by design."""

_LINE_TAGS = frozenset({"br", "hr"})


def drop_repeated_blocks(view: DomView, modes: list[Keep]) -> None:
    """Drop each kept block without blocks below it whose text (spaces collapsed, at least
    :data:`REPEAT_MIN_CHARS` characters) is that of a kept block before it. One pass to find
    the blocks without blocks below, one over the kept ones: linear in the view."""
    size, tags, parent, depth = len(view), view.tags, view.parent, view.depth
    block_below = [False] * size
    for i in range(size - 1, 0, -1):
        if block_below[i] or (tags[i] in BLOCK_TAGS and tags[i] not in _LINE_TAGS):
            block_below[parent[i]] = True
    in_output = kept_elements(view, modes)
    seen: set[str] = set()
    i = steps = 1
    while i < size:
        steps += 1
        if not steps % CHECK_EVERY:
            check_deadline("dropping repeated blocks")
        if not (
            in_output[i]
            and modes[i] == Keep.TEXT
            and tags[i] in BLOCK_TAGS
            and tags[i] not in _LINE_TAGS
            and not block_below[i]
        ):
            i += 1
            continue
        end = i + 1
        while end < size and depth[end] > depth[i]:
            end += 1
        text = " ".join(" ".join(run.split()) for j in range(i, end) for run in view.runs[j])
        text = " ".join(text.split())
        if len(text) >= REPEAT_MIN_CHARS:
            if text in seen:
                modes[i] = Keep.DROP
            seen.add(text)
        i = end


MIN_RECORDS = 3
"""The fewest siblings alike in tag and class that make a run of records."""

MIN_RECORD_CHARS = 10
"""The fewest characters a sibling needs to count as a record (an empty spacer is none)."""


def record_region(view: DomView, chars: Sequence[int], share: float) -> int | None:
    """The element that bounds the records of a list: the parent of the run of
    :data:`MIN_RECORDS` or more siblings alike in tag and class that holds the most text, or
    the closest element holding both it and the page's first ``<h1>`` with text (the list's
    heading, and the intro between them); ``None`` when no run holds ``share`` of the text of
    the view's root. Only the elements that hold that much are looked at, each child once."""
    size, children, tags, parent = len(view), view.children, view.tags, view.parent
    least = max(share * chars[0], 1)
    best, best_chars = None, 0
    held: list[etree._Element] = []  # freed together at the end: lxml walks up from one alone
    for p in range(size):
        if chars[p] < least or len(children[p]) < MIN_RECORDS:
            continue
        held.append(view.elements[p])  # its children's proxies, freed alone, stop at it
        runs: dict[tuple[str, str], list[int]] = {}
        for c in children[p]:
            if chars[c] >= MIN_RECORD_CHARS:
                run = runs.setdefault((tags[c], view.elements[c].get("class") or ""), [0, 0])
                run[0] += 1
                run[1] += chars[c]
        for count, total in runs.values():
            if count >= MIN_RECORDS and total > best_chars:
                best, best_chars = p, total
        if not p % CHECK_EVERY:
            check_deadline("finding the records")
    if best is None or best_chars < least:
        return None
    heading = next((i for i in range(size) if tags[i] == "h1" and chars[i]), None)
    if heading is None:
        return best
    above = set()
    i = best
    while i >= 0:
        above.add(i)
        i = parent[i]
    i = heading
    while i not in above:
        i = parent[i]
    return i
