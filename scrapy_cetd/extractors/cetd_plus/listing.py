"""The steps of a list (listing and collection pages): the controls (step 27) and the badges
(step 28) kept with the records.
"""

from __future__ import annotations

from collections.abc import Sequence

from lxml import etree

from scrapy_cetd.extractors.cetd_plus.record_runs import MIN_RECORDS, sibling_runs
from scrapy_cetd.extractors.cetd_plus.repeats import REPEAT_MIN_CHARS
from scrapy_cetd.limits import CHECK_EVERY, check_deadline
from scrapy_cetd.page.dom import DomView
from scrapy_cetd.page.output import Keep, kept_elements

CONTROL_TAGS = frozenset({"label"})
"""Controls whose text goes: the labels of form fields (a filter's checkboxes, a sort order).
Buttons stay: some lists show their records' buttons as part of each record ("Save",
"Quick add"), others leave them out, and no structure tells the two apart."""

CONTROL_SHARE = 0.5
"""A control holding this share of the text or more wraps the content: a markup error (an
unclosed ``<label>``), not a control."""


def drop_controls(view: DomView, chars: Sequence[int], modes: list[Keep]) -> None:
    """Drop the controls (:data:`CONTROL_TAGS`) that ``modes`` keep with their text, holding
    less than :data:`CONTROL_SHARE` of the view's text."""
    tags, most = view.tags, CONTROL_SHARE * chars[0]
    for i in range(1, len(view)):
        if tags[i] in CONTROL_TAGS and modes[i] == Keep.TEXT and chars[i] < most:
            modes[i] = Keep.DROP


BADGE_SHARE = 0.7
"""A badge's text is shared by elements as many as this share of the records or more: the
mark most cards carry ("Add to cart", "Free shipping"), not a value some records share (a
size, a skill, a sector)."""


def most_records(view: DomView, chars: Sequence[int], kept: Sequence[bool]) -> int:
    """The number of records in the longest run of siblings alike in tag and class
    (:func:`.record_runs.sibling_runs`) below a ``kept`` element; 0 when no kept element has
    :data:`MIN_RECORDS` children, or none of them
    :data:`.record_runs.MIN_RECORD_CHARS` characters."""
    most = 0
    held: list[etree._Element] = []  # freed together at the end: lxml walks up from one alone
    for p in range(len(view)):
        if not kept[p] or len(view.children[p]) < MIN_RECORDS:
            continue
        held.append(view.elements[p])  # its children's proxies, freed alone, stop at it
        most = max(most, max((len(run) for run in sibling_runs(view, chars, p)), default=0))
        if p & CHECK_EVERY == CHECK_EVERY:
            check_deadline("counting the records")
    return most


def drop_badges(view: DomView, chars: Sequence[int], modes: list[Keep]) -> None:
    """Drop the badges ``modes`` keep: the outermost elements with text shorter than
    :data:`REPEAT_MIN_CHARS` (the repeats :func:`.repeats.drop_repeated_blocks` leaves),
    neither a link nor in one, without digits, whose text is that of :data:`MIN_RECORDS` such
    elements or more, and by :data:`BADGE_SHARE` of the records of the longest run
    (:func:`most_records`) ("New", "Sale", "In stock", "Free shipping" on the cards of a
    grid). A number is a record's own data (a price, a count, a date), a link's text names the
    record; a short text repeated from card to card says nothing of one record. Each element
    is read once: the outermost short elements do not nest."""
    size, parent = len(view), view.parent
    in_output = kept_elements(view, modes)
    found: dict[str, list[int]] = {}
    for i in range(1, size):
        if i & CHECK_EVERY == CHECK_EVERY:
            check_deadline("finding the badges")
        if not (
            0 < chars[i] < REPEAT_MIN_CHARS <= chars[parent[i]]
            and not view.in_link[i]
            and in_output[i]
            and modes[i] == Keep.TEXT
        ):
            continue
        text = view.collapsed_runs(i, view.subtree_end(i))
        if not any(character.isdigit() for character in text):
            found.setdefault(text, []).append(i)
    if all(len(owners) < MIN_RECORDS for owners in found.values()):
        return  # no text is repeated enough to be a badge: the records need not be counted
    least = max(MIN_RECORDS, BADGE_SHARE * most_records(view, chars, in_output))
    for owners in found.values():
        if len(owners) >= least:
            for i in owners:
                modes[i] = Keep.DROP
