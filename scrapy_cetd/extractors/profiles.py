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

from scrapy_cetd.page.dom import DomView


@dataclass(frozen=True)
class Profile:
    """The steps a page of one type follows instead of cetd-plus's narrowing."""

    name: str
    """The page type."""
    thread: bool = False
    """The page is a thread: its comment sections are content (the posts and replies) and
    the selection is not narrowed to one post, as on a page that declares itself a
    discussion."""
    whole_page: bool = False
    """The content is all the page keeps once its furniture is gone (step 2), within its main
    landmark: the records of a list, every section of a service page, the main column of a
    documentation page with its code, tables and headings. One dense block is only a part of
    it."""


PROFILES: dict[str, Profile] = {
    "forum": Profile("forum", thread=True),
    "listing": Profile("listing", whole_page=True),
    "collection": Profile("collection", whole_page=True),
    "documentation": Profile("documentation", whole_page=True),
    "service": Profile("service", whole_page=True),
}
"""The profile of each page type that has one: articles and products follow cetd-plus's own
steps (on products no profile tried beat them, see ``docs/page-types.md``)."""

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
