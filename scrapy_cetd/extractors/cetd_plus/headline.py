"""Step 6, the headline: the page's first ``<h1>`` with text."""

from __future__ import annotations

from scrapy_cetd.page.dom import DomView, deep_proxies
from scrapy_cetd.page.markup import text_of


def find_headline(view: DomView) -> int | None:
    """The first ``<h1>`` of the view that has text. The headings inside one without text
    have none either, and are skipped: each text is read once."""
    tags, size = view.tags, len(view)
    # On a deep page, every proxy is held while the headings are read, and freed deepest
    # first: each heading's proxy, freed alone, would walk up to the closest ancestor that
    # has one (the depth, for each of many empty headings).
    held = deep_proxies(view.elements[0]) if "h1" in tags else []  # noqa: F841
    i = 0
    while i < size:
        if tags[i] == "h1":
            if text_of(view.elements[i]).strip():
                return i
            i = view.subtree_end(i)
        else:
            i += 1
    return None
