"""The features of the links: how much of the text is in long links, how many characters a
link holds, the subheadings that are links, the pictures inside links, the targets several
links share (an index links each item's picture and its title to one page)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import NamedTuple

from lxml import etree

from scrapy_cetd.page import accel
from scrapy_cetd.page.density import NodeCounts
from scrapy_cetd.page.dom import DomView
from scrapy_cetd.page.page_types.measures import log_count, share_of
from scrapy_cetd.page.page_types.tags import HEADINGS, MEDIA

LONG_LINK_CHARS = 30
"""A link with this many characters of text or more names an item (a story's headline, a
product's name), not a place of the site's menus."""


_SUBHEADINGS = HEADINGS - {"h1"}


def link_features(view: DomView, counts: NodeCounts) -> dict[str, float]:
    """What the links of the visible body ``view`` (whose counts are ``counts``) point at and
    hold: the share of the text in long links (:data:`LONG_LINK_CHARS`), the characters per
    link, the share of the subheadings that are links and of the images inside links (an index
    of items, each a linked title and a linked picture), the targets that two links or more
    share and the share of the links that point at them (a card links its picture and its
    title to the same page), and the subheadings by level."""
    n = LinkCounts._make(
        link_counts(view.elements, view.tags, counts.chars, counts.link_chars, view.in_link)
    )
    return {
        "long_link_share": share_of(n.long_link_chars, counts.chars[0]),
        "chars_per_link": log_count(n.link_chars / n.links) if n.links else 0.0,
        "linked_headings": log_count(n.linked_headings),
        "linked_heading_share": share_of(n.linked_headings, n.headings),
        "linked_media_share": share_of(n.linked_media, n.media),
        "shared_targets": log_count(n.shared_targets),
        "shared_target_share": share_of(n.shared_target_links, n.target_links),
        "h2": log_count(n.h2),
        "h3": log_count(n.h3),
        "h4_to_h6": log_count(n.h4_to_h6),
    }


class LinkCounts(NamedTuple):
    """What :func:`link_counts` counts in a view, for :func:`link_features`."""

    links: int
    """``<a>`` elements."""
    link_chars: int
    """The characters of their text."""
    long_link_chars: int
    """The characters of those of :data:`LONG_LINK_CHARS` or more."""
    headings: int
    """Subheadings (``<h2>`` to ``<h6>``)."""
    linked_headings: int
    """Subheadings with text, at least half of it link text."""
    media: int
    """:data:`MEDIA` elements."""
    linked_media: int
    """Those inside a link."""
    target_links: int
    """Links with an ``href``."""
    shared_targets: int
    """Targets (``href``, stripped) that two of them or more point at."""
    shared_target_links: int
    """The links that point at those."""
    h2: int
    h3: int
    h4_to_h6: int


@accel.twin(accel.compiled.link_counts)
def link_counts(
    elements: Sequence[etree._Element],
    tags: list[str],
    chars: list[int],
    link_chars: list[int],
    in_link: list[bool],
) -> tuple[int, ...]:
    """The fields of :class:`LinkCounts` for a view's ``elements`` (their ``tags``, ``chars``,
    ``link_chars`` and ``in_link``), in pure Python: the reference the compiled pass
    reproduces."""
    link_text: list[int] = []
    targets: Counter[str] = Counter()
    headings = linked_headings = media = linked_media = 0
    levels: Counter[str] = Counter()
    for i, tag in enumerate(tags):
        if tag == "a":
            link_text.append(chars[i])
            href = elements[i].get("href")
            if href:
                targets[href.strip()] += 1
        elif tag in _SUBHEADINGS:
            headings += 1
            levels[tag] += 1
            linked_headings += bool(chars[i]) and 2 * link_chars[i] >= chars[i]
        elif tag in MEDIA:
            media += 1
            linked_media += in_link[i]
    shared = [n for n in targets.values() if n >= 2]
    return (
        len(link_text),
        sum(link_text),
        sum(n for n in link_text if n >= LONG_LINK_CHARS),
        headings,
        linked_headings,
        media,
        linked_media,
        sum(targets.values()),
        len(shared),
        sum(shared),
        levels["h2"],
        levels["h3"],
        levels["h4"] + levels["h5"] + levels["h6"],
    )
